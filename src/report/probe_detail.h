// A probe's summary and problems, and the few inventory texts tfrig writes
// (NVML's detail, a GPU's driver problem and lost evidence, a data path's
// error), in the reader's language. They are stored in English (a snapshot
// is a file of facts, read by programs) with their message beside them
// (core::Message), which is rendered here; a text without one (a snapshot
// older than the messages, a tool's line quoted verbatim) prints as stored.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "core/message.h"
#include "probe/probe.h"

namespace tfrig::report {

// A status's detail and its i-th problem in the reader's language.
std::string status_detail(const probe::ProbeStatus& s);
std::string status_problem(const probe::ProbeStatus& s, size_t i);

// A stored English text in the reader's language: its message rendered, else
// the text as stored.
std::string stored_text(const std::string& english, const std::optional<core::Message>& message);

// An NVML state key ("driver_not_loaded") as words.
std::string nvml_state(const std::string& state);

}  // namespace tfrig::report

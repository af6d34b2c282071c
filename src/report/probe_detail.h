// A probe's summary, its problems and the driver's NVML note in the reader's
// language. They are stored in English (a snapshot is a file of facts, read
// by programs). A probe's or the importer's summary and problems carry their
// message (core::Message, parsers' errors included) and are rendered from it;
// the other texts (inventory fields, evidence sources, NVML's errors) are
// matched against the English shapes probe_detail.cpp knows, and any other
// text (an older snapshot's summary among them) prints as stored.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "core/message.h"
#include "probe/probe.h"

namespace tfrig::report {

// A status's detail and its i-th problem in the reader's language: from
// their messages (core::render); a text without one through probe_detail.
std::string status_detail(const probe::ProbeStatus& s);
std::string status_problem(const probe::ProbeStatus& s, size_t i);

std::string probe_detail(std::string_view english);
// The message of a stored English text of a shape the table knows (its
// english() is exactly that text), for a renderer or a rule that keeps the
// English and renders later; nullopt for any other text.
std::optional<core::Message> probe_detail_message(std::string_view english);
// An NVML state key ("driver_not_loaded") as words, and as a message.
std::string nvml_state(const std::string& state);
core::Message nvml_state_message(const std::string& state);

}  // namespace tfrig::report

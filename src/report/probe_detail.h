// A probe's summary, its problems and the driver's NVML note in the reader's
// language. The probes and the importer store them in English (a snapshot is
// a file of facts, read by programs); the terminal report translates the
// shapes it knows here, at rendering, and prints any other text as stored.
#pragma once

#include <string>
#include <string_view>

namespace tfrig::report {

std::string probe_detail(std::string_view english);
// An NVML state key ("driver_not_loaded") as words.
std::string nvml_state(const std::string& state);

}  // namespace tfrig::report

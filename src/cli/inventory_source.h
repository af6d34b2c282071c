// The options that say where a command's report comes from (filling
// gather::InventorySourceOptions, gather/gather.h, which assembles it) and
// the writers of a report's JSON and of a command's output file.
#pragma once

#include <string>
#include <vector>

#include "capture/capture.h"
#include "gather/gather.h"
#include "verdict/report.h"

namespace CLI {
class App;
}  // namespace CLI

namespace tfrig::cli {

// --max-capture-bytes, --max-capture-entry-bytes, --max-capture-entries and
// --max-capture-ratio: on every command that reads a capture (doctor --from,
// import, explain --from).
void add_capture_limit_options(CLI::App& cmd, capture::Limits& limits);

// --data, --python and --deadline, bound to `options`: the probe options of
// every command that probes the machine into a report (snapshot, capture).
void add_probe_options(CLI::App& cmd, gather::InventorySourceOptions& options);

// Writes the report's JSON to `output` ("-" = stdout) atomically; returns the
// exit code (kExitCantCreate with the path logged when it cannot be written).
int write_report_json(const report::Report& report, const std::string& output);
// Writes text to `output` the same way ("-" = stdout; a device or FIFO in
// place; a file atomically, so a reader never sees half of it).
int write_output(const std::string& text, const std::string& output);

}  // namespace tfrig::cli

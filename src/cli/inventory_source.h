// Where a command's inventory comes from: the live machine under --root, or
// a saved snapshot. Shared by doctor, snapshot and later commands.
#pragma once

#include <string>
#include <vector>

#include "capture/capture.h"
#include "core/clock.h"
#include "core/result.h"
#include "core/sysroot.h"
#include "verdict/report.h"

namespace CLI {
class App;
}  // namespace CLI

namespace tfrig::cli {

struct InventorySourceOptions {
  std::string root = "/";
  std::string snapshot;  // non-empty: read this file instead of probing
  std::vector<std::string> data_paths;
  double deadline_seconds = 5.0;
  std::vector<std::string> python_prefixes;  // --python PREFIX
  std::string nvidia_smi_xml;  // non-empty: the GPU part of an inventory from `nvidia-smi -q -x` output
  std::vector<std::string> from;  // non-empty: import these files (src/importer) instead of probing
  // Set: gets the import's problems in the interface language (the report keeps them in English).
  std::vector<std::string>* import_warnings = nullptr;
  capture::Limits capture_limits;  // --max-capture-*: reading a capture among `from`
};

// --max-capture-bytes, --max-capture-entry-bytes, --max-capture-entries and
// --max-capture-ratio: on every command that reads a capture (doctor --from,
// import, explain --from).
void add_capture_limit_options(CLI::App& cmd, capture::Limits& limits);

// --data, --python and --deadline, bound to `options`: the probe options of
// every command that probes the machine into a report (snapshot, capture).
void add_probe_options(CLI::App& cmd, InventorySourceOptions& options);

core::Result<report::Report> load_report(const InventorySourceOptions& options);
// Runs every probe on root (live, --root, an unpacked capture) into a report.
core::Result<report::Report> probe_report(const core::SysRoot& root, const InventorySourceOptions& options);

// A report whose inventory holds only what `nvidia-smi -q -x` output says
// (GPUs and driver), for `doctor --nvidia-smi-xml` and `import nvidia-smi-xml`.
core::Result<report::Report> report_from_nvidia_smi_xml(const std::string& file);

// The report as JSON, invalid UTF-8 replaced (a mount name or an XML field can
// hold any bytes): the one serialisation of doctor --format json, snapshot and import.
std::string report_json_text(const report::Report& report);

// Writes the report's JSON to `output` ("-" = stdout) atomically; returns the
// exit code (kExitCantCreate with the path logged when it cannot be written).
int write_report_json(const report::Report& report, const std::string& output);
// Writes text to `output` the same way ("-" = stdout; a device or FIFO in
// place; a file atomically, so a reader never sees half of it).
int write_output(const std::string& text, const std::string& output);

}  // namespace tfrig::cli

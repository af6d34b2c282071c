// Where a command's report comes from (doctor's assembly): the live machine
// under --root, a saved snapshot, a tfrig capture replayed in memory, other
// tools' files imported, or `nvidia-smi -q -x` output. Used by doctor,
// snapshot, import, capture, setup, plan, compat and explain; the options
// that fill InventorySourceOptions are bound in cli/inventory_source.h.
#pragma once

#include <string>
#include <vector>

#include "capture/capture.h"
#include "core/result.h"
#include "core/sysroot.h"
#include "verdict/report.h"

namespace tfrig::gather {

struct InventorySourceOptions {
  std::string root = "/";
  std::string snapshot;  // non-empty: read this file instead of probing
  std::vector<std::string> data_paths;
  double deadline_seconds = 5.0;
  std::vector<std::string> python_prefixes;  // --python PREFIX
  std::string nvidia_smi_xml;                // non-empty: the GPU part of an inventory from `nvidia-smi -q -x` output
  std::vector<std::string> from;             // non-empty: import these files (src/importer) instead of probing
  // Set: gets the import's problems in the interface language (the report keeps them in English).
  std::vector<std::string>* import_warnings = nullptr;
  capture::Limits capture_limits;  // --max-capture-*: reading a capture among `from`
};

core::Result<report::Report> load_report(const InventorySourceOptions& options);
// Runs every probe on root (live, --root, an unpacked capture) into a report.
core::Result<report::Report> probe_report(const core::SysRoot& root, const InventorySourceOptions& options);

// A report whose inventory holds only what `nvidia-smi -q -x` output says
// (GPUs and driver), for `doctor --nvidia-smi-xml` and `import nvidia-smi-xml`.
core::Result<report::Report> report_from_nvidia_smi_xml(const std::string& file);

// The report as JSON, invalid UTF-8 replaced (a mount name or an XML field can
// hold any bytes): the one serialisation of doctor --format json, snapshot and import.
std::string report_json_text(const report::Report& report);

}  // namespace tfrig::gather

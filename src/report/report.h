// The report: what doctor prints and snapshot saves. One document, one
// serialiser: `doctor --format json`, `snapshot -o` and `doctor --snapshot`
// all go through to_json/from_json here (docs/snapshot.md).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/result.h"
#include "core/text_width.h"
#include "inventory/inventory.h"
#include "probe/probe.h"
#include "rules/finding.h"

namespace tfrig::report {

struct Report {
  int schema_version = inventory::kSchemaVersion;
  std::string tool_version;
  std::string generated_at;  // ISO 8601 UTC
  std::string root;          // the --root it was probed under
  std::string source;        // "live" or "snapshot:<file>"
  inventory::Inventory inventory;
  std::vector<probe::ProbeStatus> probes;
  // Filled by doctor after the rules ran (absent from plain snapshots). The
  // texts keep their English (the JSON's) and their message: each renderer
  // says them in its own language (docs/i18n.md).
  bool evaluated = false;
  rules::Text target;   // "TensorFlow 2.17.0 (installed in /usr)"
  rules::Text verdict;  // the one line at the top
  std::vector<rules::Finding> findings;  // worst first
  rules::Summary summary;
  struct Skipped {
    std::string rule_id;
    rules::Text missing;  // the fact the rule needed
  };
  std::vector<Skipped> skipped;
};

// The findings part of the JSON document ({findings, summary, target, verdict}).
nlohmann::json findings_to_json(const Report& report);
// The verdict line and the findings grouped by area, worst first, wrapped to
// `width` columns (core/text_width.h) with hanging indents.
std::string render_findings_text(const Report& report, bool color, size_t width);

nlohmann::json to_json(const Report& report);
// Reads a snapshot document; errors name the file and the JSON path.
core::Result<Report> report_from_json(const nlohmann::json& j);
core::Result<Report> load_snapshot(const std::string& path);

// The terminal report, by area.
struct TextOptions {
  bool color = false;
  bool show_problems = true;
  size_t width = core::kDefaultTextWidth;  // columns: lines wrap, tables fold (core/text_width.h)
};
std::string render_text(const Report& report, const TextOptions& options);
// The inventory by area and the probes' states, as render_text shows them
// after the findings; not escaped for a terminal (the HTML page escapes it).
std::string render_sections_text(const Report& report, const TextOptions& options);

}  // namespace tfrig::report

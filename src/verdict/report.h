// The report: what doctor prints and snapshot saves, the model the rules
// judge, the importer builds and fleet and explain read. One document, one
// serialiser: `doctor --format json`, `snapshot -o` and `doctor --snapshot`
// all go through to_json/from_json here (docs/snapshot.md). It lives below
// rules/ (docs/architecture.md, "Folder order"); its renderers are report/'s.
// The namespace stayed report:: when it moved from report/ (issue 32), so
// that its many readers did not change.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/result.h"
#include "inventory/inventory.h"
#include "probe/probe.h"
#include "verdict/finding.h"

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
  rules::Text target;                    // "TensorFlow 2.17.0 (installed in /usr)"
  rules::Text verdict;                   // the one line at the top
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

nlohmann::json to_json(const Report& report);
// Reads a snapshot document; errors name the file and the JSON path.
core::Result<Report> report_from_json(const nlohmann::json& j);
core::Result<Report> load_snapshot(const std::string& path);

}  // namespace tfrig::report

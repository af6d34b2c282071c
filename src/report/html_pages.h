// The HTML report's pages (docs/report.md): one per kind of tfrig JSON
// output. Each page answers first (the verdict, the findings worst first, the
// chart that matters) and then explains: its last section renders the whole
// JSON document, so every fact and number of `--format json` is on the page.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "report/html.h"

namespace tfrig::watch {
struct Recording;
}

namespace tfrig::report::html {

enum class PageKind { kDoctor, kPlan, kPipeline, kBench, kWatch, kFleet };

std::string_view kind_name(PageKind kind);  // "doctor", "plan", ...

// Which command wrote this JSON document, from the keys it has; none when it
// is not one of them.
std::optional<PageKind> detect_kind(const nlohmann::json& doc);

struct Document {
  PageKind kind = PageKind::kDoctor;
  nlohmann::json data;  // the command's JSON output (watch: plus "series", bench: plus "history")
  std::string label;    // where it came from: a file name, "live"
  // Read from a file (tfrig report): its texts are the JSON's English, which
  // a page in another language says.
  bool prose_from_json = false;
};

// A page's sections; anchors start with `prefix` (several documents share a page).
std::vector<Section> document_sections(const Document& doc, std::string_view prefix);

// One page of one or more documents.
std::string render_documents(const std::vector<Document>& docs);

// The samples of a watch recording as the chart's series:
// {"t":[...], "cpu_busy_percent":[...], "disk_util_percent":[...], "gpu_util_percent":[[...] per GPU]},
// null where a sample did not measure it.
nlohmann::json watch_series_json(const watch::Recording& rec);

}  // namespace tfrig::report::html

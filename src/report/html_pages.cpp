// What the pages share: which command wrote a document, its title, and the
// page of one or more documents. Each command's sections are in its own file
// (report/html_<command>_page.cpp); the parts they share in report/html_page_parts.cpp.
#include "report/html_pages.h"

#include <algorithm>

#include <fmt/format.h>

#include "core/i18n.h"
#include "report/html_page_parts.h"
#include "watch/sample.h"

namespace tfrig::report::html {

namespace {

using nlohmann::json;

std::string page_title(const Document& doc) {
  const json& d = doc.data;
  switch (doc.kind) {
    case PageKind::kDoctor: {
      const std::string host = detail::str(detail::member(detail::member(d, "inventory"), "host"), "hostname");
      // TRANSLATORS: page titles: a tfrig command, then what the page is about (a host, a model, a folder).
      return trf("tfrig doctor: {}", host.empty() ? doc.label : host);
    }
    case PageKind::kPlan: return trf("tfrig plan: {}", detail::str(detail::member(d, "model"), "name"));
    case PageKind::kPipeline: return trf("tfrig pipeline: {}", detail::str(d, "data_dir"));
    case PageKind::kBench: return trf("tfrig bench: {}", detail::str(detail::member(d, "context"), "hostname"));
    case PageKind::kWatch: return trf("tfrig watch: {}", detail::verdict_words(detail::str(d, "verdict")));
    case PageKind::kFleet: return trf("tfrig fleet: {} nodes", detail::array(d, "nodes").size());
  }
  return "tfrig";
}

}  // namespace

std::string_view kind_name(PageKind kind) {
  switch (kind) {
    case PageKind::kDoctor: return "doctor";
    case PageKind::kPlan: return "plan";
    case PageKind::kPipeline: return "pipeline";
    case PageKind::kBench: return "bench";
    case PageKind::kWatch: return "watch";
    case PageKind::kFleet: return "fleet";
  }
  return "?";
}

std::optional<PageKind> detect_kind(const nlohmann::json& doc) {
  if (!doc.is_object()) return std::nullopt;
  if (doc.contains("inventory") && doc.contains("probes")) return PageKind::kDoctor;
  if (doc.contains("gpus") && doc.contains("memory") && doc.contains("model")) return PageKind::kPlan;
  if (doc.contains("stages") && doc.contains("gpu_demand_samples_per_s")) return PageKind::kPipeline;
  if (doc.contains("results") && doc.contains("context")) return PageKind::kBench;
  if (doc.contains("whole_run") && doc.contains("phases")) return PageKind::kWatch;
  if (doc.contains("nodes") && doc.contains("drift")) return PageKind::kFleet;
  return std::nullopt;
}

std::vector<Section> document_sections(const Document& doc, std::string_view prefix) {
  switch (doc.kind) {
    case PageKind::kDoctor: return detail::doctor_sections(doc.data, prefix);
    case PageKind::kPlan: return detail::plan_sections(doc.data, prefix);
    case PageKind::kPipeline: return detail::pipeline_sections(doc.data, prefix);
    case PageKind::kBench: return detail::bench_sections(doc.data, prefix);
    case PageKind::kWatch: return detail::watch_sections(doc.data, prefix);
    case PageKind::kFleet: return detail::fleet_sections(doc.data, prefix);
  }
  return {};
}

std::string render_documents(const std::vector<Document>& docs) {
  Page page;
  const bool from_files = std::any_of(docs.begin(), docs.end(), [](const Document& d) { return d.prose_from_json; });
  if (from_files && core::i18n::language() != "en") {
    page.notice =
        _("This page was built from JSON files. tfrig's JSON is always in English, so the verdicts, findings "
          "and notes below are quoted from it in English; run the command itself with --format html for a page "
          "wholly in this language.");
  }
  if (docs.size() == 1) {
    page.title = page_title(docs[0]);
    // TRANSLATORS: under the page title: where its data came from (a file, a command).
    page.subtitle = trf("From {}", docs[0].label);
    page.sections = document_sections(docs[0], "");
    return render_page(page);
  }
  page.title = trf("tfrig report: {} results", docs.size());
  for (size_t i = 0; i < docs.size(); ++i) {
    // TRANSLATORS: separates the sources in a page's subtitle.
    if (i > 0) page.subtitle += _("; ");
    // TRANSLATORS: {0} a tfrig command (doctor, plan, ...), {1} the file its output came from.
    page.subtitle += trf("{0} from {1}", kind_name(docs[i].kind), docs[i].label);
  }
  // One section per document: its own sections become h3-level parts.
  for (size_t i = 0; i < docs.size(); ++i) {
    const std::string prefix = fmt::format("d{}-", i + 1);
    std::string body;
    for (const auto& s : document_sections(docs[i], prefix)) {
      body += "<section id=\"" + escape(s.id) + "\"><h3 class=\"part\">" + escape(s.title) + "</h3>\n" + s.body +
              "</section>\n";
    }
    page.sections.push_back({fmt::format("d{}", i + 1), page_title(docs[i]), body});
  }
  return render_page(page);
}

nlohmann::json watch_series_json(const watch::Recording& rec) {
  json t = json::array(), cpu = json::array(), disk = json::array(), gpus = json::array();
  const size_t gpu_count = rec.info.gpus.size();
  for (size_t g = 0; g < gpu_count; ++g) gpus.push_back(json::array());
  for (const auto& s : rec.samples) {
    t.push_back(s.t);
    cpu.push_back(s.cpu && s.cpu->cores > 0 ? json(s.cpu->busy_cores / s.cpu->cores * 100) : json(nullptr));
    double util = -1;
    for (const auto& dsk : s.disks) util = std::max(util, dsk.util);
    disk.push_back(util >= 0 ? json(util * 100) : json(nullptr));
    for (size_t g = 0; g < gpu_count; ++g) {
      json v = nullptr;
      for (const auto& gs : s.gpus) {
        if (gs.index == rec.info.gpus[g].index && gs.util_percent) v = *gs.util_percent;
      }
      gpus[g].push_back(v);
    }
  }
  return {{"t", t}, {"cpu_busy_percent", cpu}, {"disk_util_percent", disk}, {"gpu_util_percent", gpus}};
}

}  // namespace tfrig::report::html

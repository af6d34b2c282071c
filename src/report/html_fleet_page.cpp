// The fleet page (docs/report.md): the nodes, the drift matrix (facts as
// rows, nodes as columns), the findings across nodes, the odd nodes out, the whole JSON.
#include <map>

#include "core/i18n.h"
#include "report/html_page_parts.h"
#include "report/severity_paint.h"

namespace tfrig::report::html::detail {

namespace {

using nlohmann::json;

// How many nodes, facts that differ, findings and unreadable inputs; a row per node.
Section fleet_summary_section(const json& d, std::string_view p) {
  const json& nodes = array(d, "nodes");
  const std::string worst = member(d, "worst").is_string() ? str(d, "worst") : "ok";
  std::string body = verdict_box(
      worst, severity_badge(worst) + " " +
                 escape(trf("{} nodes, {} facts that differ, {} findings, {} unreadable", nodes.size(),
                            array(d, "drift").size(), array(d, "findings").size(), array(d, "unreadable").size())));
  std::vector<std::vector<std::string>> rows;
  for (const auto& n : nodes) {
    const json& s = member(n, "summary");
    rows.push_back({escape(str(n, "node")), escape(str(n, "hostname")), escape(str(n, "source")),
                    json_value_html(member(s, "error")), json_value_html(member(s, "warning")),
                    json_value_html(member(s, "info"))});
  }
  body += table(_("Nodes"),
                {C_("fleet table", "node"), _("hostname"), C_("fleet table", "from"), C_("fleet table", "errors"),
                 C_("fleet table", "warnings"), C_("fleet table", "infos")},
                rows);
  if (!member(d, "baseline").is_null()) body += "<p>" + trf("Baseline: {}", json_html(member(d, "baseline"))) + "</p>";
  return {std::string(p) + "summary", _("Fleet"), body};
}

// A fact's row of the drift matrix: "=" where a node has the expected value,
// the node's value marked with a sign where it differs.
std::vector<std::string> drift_row(const json& f, const json& nodes) {
  std::map<std::string, std::string> differing;
  for (const auto& x : array(f, "differing"))
    differing[str(x, "node")] =
        x.contains("value") ? (x["value"].is_string() ? x["value"].get<std::string>() : x["value"].dump()) : "";
  std::vector<std::string> row{
      escape(str(f, "title")) + " <code>" + escape(str(f, "fact")) + "</code>",
      member(f, "expected").is_string() ? escape(str(f, "expected")) : json_value_html(member(f, "expected"))};
  for (const auto& n : nodes) {
    auto it = differing.find(str(n, "node"));
    row.push_back(it == differing.end() ? "=" : "<span class=\"drift\">\u2260 " + escape(it->second) + "</span>");
  }
  return row;
}

// The highlight: the cells holding a differing value get the class too.
std::string mark_drift_cells(const std::string& body) {
  std::string marked;
  size_t pos = 0;
  while (true) {
    size_t a = body.find("<td><span class=\"drift\">", pos);
    if (a == std::string::npos) {
      marked += body.substr(pos);
      break;
    }
    marked += body.substr(pos, a - pos) + "<td class=\"drift\"><span class=\"drift\">";
    pos = a + std::string("<td><span class=\"drift\">").size();
  }
  return marked;
}

// Facts as rows, nodes as columns: a differing cell is marked with a word
// and a background, never the colour alone.
Section fleet_drift_section(const json& d, std::string_view p) {
  const json& nodes = array(d, "nodes");
  std::vector<std::string> header{C_("fleet table", "fact"), C_("fleet table", "expected")};
  for (const auto& n : nodes) header.push_back(str(n, "node"));
  std::vector<std::vector<std::string>> rows;
  for (const auto& f : array(d, "drift")) rows.push_back(drift_row(f, nodes));
  std::string body =
      "<p class=\"meta\">" + escape(_("= : the expected value; \u2260 : this node differs (highlighted).")) + "</p>";
  body += rows.empty() ? "<p>" + escape(_("No drift: every node has the same facts.")) + "</p>"
                       : table(_("Nodes \u00d7 facts"), header, rows, "drift-matrix");
  return {std::string(p) + "drift", _("Drift"), mark_drift_cells(body)};
}

// Each finding once, with the nodes (and their entities) it fired on.
Section fleet_findings_section(const json& d, std::string_view p) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& f : array(d, "findings")) {
    std::string where;
    for (const auto& n : array(f, "nodes")) {
      where += (where.empty() ? "" : "; ") + escape(str(n, "node")) + " (" + escape(str(n, "entities")) + ")";
    }
    rows.push_back({severity_badge(str(f, "severity")), escape(str(f, "title")),
                    "<code>" + escape(str(f, "rule_id")) + "</code>", json_value_html(member(f, "node_count")), where});
  }
  return {std::string(p) + "findings", _("Findings across nodes"),
          rows.empty() ? "<p>" + escape(_("No findings.")) + "</p>"
                       : table("",
                               {C_("fleet table", "severity"), C_("fleet table", "finding"), C_("fleet table", "rule"),
                                C_("fleet table", "nodes"), C_("fleet table", "where")},
                               rows)};
}

// The nodes that differ most from the others, ranked.
Section fleet_odd_section(const json& d, std::string_view p) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& n : array(d, "odd_nodes")) {
    rows.push_back({json_value_html(member(n, "rank")), escape(str(n, "node")), json_value_html(member(n, "score")),
                    escape(std::to_string(array(n, "differences").size())),
                    escape(std::to_string(array(n, "findings").size()))});
  }
  return {std::string(p) + "odd", _("The odd nodes out"),
          rows.empty() ? none_paragraph()
                       : table("",
                               {C_("fleet table", "rank"), C_("fleet table", "node"), C_("fleet table", "score"),
                                C_("fleet table", "differences"), C_("fleet table", "findings")},
                               rows)};
}

}  // namespace

std::vector<Section> fleet_sections(const json& d, std::string_view p) {
  std::vector<Section> out;
  out.push_back(fleet_summary_section(d, p));
  out.push_back(fleet_drift_section(d, p));
  out.push_back(fleet_findings_section(d, p));
  out.push_back(fleet_odd_section(d, p));
  out.push_back({std::string(p) + "data", _("All data"), all_data(d, "fleet")});
  return out;
}

}  // namespace tfrig::report::html::detail

// The doctor page (docs/report.md): the verdict, the findings worst first,
// the GPU topology and PCIe links, the inventory by area, the rest of the JSON.
#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "core/i18n.h"
#include "report/html_chart.h"
#include "report/html_page_parts.h"
#include "report/report.h"
#include "report/severity_paint.h"

namespace tfrig::report::html::detail {

namespace {

using nlohmann::json;

int severity_rank(std::string_view s) {
  if (s == "error") return 2;
  if (s == "warning") return 1;
  return 0;
}

// The commands of a fix: its backtick spans, or the whole fix when it is one
// command (no spaces around sentences, starts like a command line).
std::vector<std::string> fix_commands(const std::string& fix) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (true) {
    const size_t a = fix.find('`', pos);
    if (a == std::string::npos) break;
    const size_t b = fix.find('`', a + 1);
    if (b == std::string::npos) break;
    if (b > a + 1) out.push_back(fix.substr(a + 1, b - a - 1));
    pos = b + 1;
  }
  return out;
}

std::string finding_html(const json& f, size_t n, std::string_view prefix) {
  const std::string sev = str(f, "severity");
  std::string out = fmt::format("<article class=\"finding {}\" id=\"{}f{}\">", escape(anchor(sev)), escape(prefix), n);
  out += "<h3>" + severity_badge(sev) + " " + escape(str(f, "title")) + "</h3>";
  out +=
      "<p class=\"meta\">" +
      // TRANSLATORS: under a finding's title: {0} the rule id, {1} the area (driver, gpu, ...), {2} what it is about.
      trf("rule {0} \u00b7 area {1} \u00b7 {2}", "<code>" + escape(str(f, "rule_id")) + "</code>",
          escape(area_label(str(f, "area"))), escape(str(f, "entity"))) +
      "</p>";
  out += "<p>" + with_code(str(f, "message")) + "</p>";
  const json& evidence = array(f, "evidence");
  if (!evidence.empty()) {
    std::vector<std::vector<std::string>> rows;
    // The source as the JSON has it: in the page's language when doctor judged the machine for this page.
    for (const auto& e : evidence)
      rows.push_back({escape(str(e, "fact")), with_code(str(e, "value")), escape(str(e, "source"))});
    out +=
        table(_("Evidence"),
              {C_("evidence table", "fact"), C_("evidence table", "value here"), C_("evidence table", "from")}, rows);
  }
  const std::string fix = str(f, "fix");
  if (!fix.empty()) {
    out += "<h4>" + escape(_("Fix")) + "</h4><p>" + with_code(fix) + "</p>";
    for (const auto& c : fix_commands(fix)) out += "<pre class=\"fix\"><code>" + escape(c) + "</code></pre>";
  }
  const json& refs = array(f, "references");
  if (!refs.empty()) {
    std::string links;
    for (size_t i = 0; i < refs.size(); ++i) {
      if (i > 0) links += ", ";
      links += refs[i].is_string() ? link_or_text(refs[i].get<std::string>()) : escape(refs[i].dump());
    }
    out += source_line(links);
  }
  return out + "</article>\n";
}

// PCIe transfer rate per lane by generation, GT/s (PCI-SIG base specifications 1.0-6.0).
double pcie_gts(int gen) {
  static constexpr double kRates[] = {0, 2.5, 5, 8, 16, 32, 64};
  return gen >= 1 && gen <= 6 ? kRates[gen] : NAN;
}

std::string gpu_label(const json& g) {
  std::string name = str(g, "name");
  return fmt::format("GPU {}{}", member(g, "index").is_number() ? member(g, "index").dump() : "?",
                     name.empty() ? "" : " " + name);
}

std::string links_section(const json& gpus) {
  BarChart chart;
  chart.title = _("PCIe link of each GPU: the current link's bandwidth as a share of the best it can train to");
  // TRANSLATORS: column of the PCIe link chart: the current link as a share of its maximum.
  chart.value_header = _("current of max");
  chart.reference = 100;
  chart.reference_label = C_("PCIe link", "max");
  chart.max = 100;
  for (const auto& g : gpus) {
    const double gc = dbl(g, "pcie_link_gen_current");
    const double gm = dbl(g, "pcie_link_gen_max");
    const double wc = dbl(g, "pcie_link_width_current");
    const double wm = dbl(g, "pcie_link_width_max");
    if (!std::isfinite(gc) || !std::isfinite(gm) || !std::isfinite(wc) || !std::isfinite(wm) || wm <= 0) continue;
    const double share = pcie_gts(integer(g, "pcie_link_gen_current", 0)) * wc /
                         (pcie_gts(integer(g, "pcie_link_gen_max", 0)) * wm) * 100;
    Bar b;
    b.label = gpu_label(g);
    b.value = share;
    b.value_text = fmt::format("Gen{} x{} / Gen{} x{}", gc, wc, gm, wm);
    if (share < 99.9) {
      // TRANSLATORS: a PCIe link below the best it can train to.
      b.mark = C_("PCIe link", "below");
      b.highlight = true;
    }
    chart.bars.push_back(std::move(b));
  }
  if (chart.bars.empty()) return "<p>" + escape(_("No PCIe link speeds in this input.")) + "</p>";
  return bar_chart(chart) + "<p class=\"meta\">" +
         escape(_(
             "An idle GPU lowers its link to save power (nvidia-smi -q: \"Link Generation\"); a link below max under load, "
             "or a narrower width, is a slot or riser problem.")) +
         "</p>";
}

// A pair of GPUs in the topology: how they are connected.
struct GpuPair {
  std::string connection;
  std::string p2p;
  bool nvlink = false;
};
using GpuPairs = std::map<std::pair<int, int>, GpuPair>;  // by (lower index, higher index)

// Pairs from NVML's topology (gpu_topology).
void add_topology_pairs(const json& inv, GpuPairs& pairs) {
  for (const auto& p : array(inv, "gpu_topology")) {
    if (!member(p, "gpu_a").is_number() || !member(p, "gpu_b").is_number()) continue;
    const int a = integer(p, "gpu_a", -1);
    const int b = integer(p, "gpu_b", -1);
    const std::pair<int, int> key{std::min(a, b), std::max(a, b)};  // by value: std::minmax returns references
    GpuPair& e = pairs[key];
    e.nvlink = e.nvlink || (member(p, "nvlink").is_boolean() && p["nvlink"].get<bool>());
    e.connection = str(p, "level");
    e.p2p = member(p, "p2p_read").is_boolean() ? (p["p2p_read"].get<bool>() ? _("yes") : _("no")) : _("unknown");
  }
}

// Pairs from the NVLinks whose far end is another GPU (found by its PCI bus id).
void add_nvlink_pairs(const json& gpus, GpuPairs& pairs) {
  std::map<std::string, int> by_bus;
  for (const auto& g : gpus) {
    if (member(g, "pci_bus_id").is_string() && member(g, "index").is_number())
      by_bus[str(g, "pci_bus_id")] = integer(g, "index", -1);
  }
  for (const auto& g : gpus) {
    if (!member(g, "index").is_number()) continue;
    for (const auto& l : array(g, "nvlinks")) {
      if (str(l, "remote_kind") != "gpu" || !(member(l, "active").is_boolean() && l["active"].get<bool>())) continue;
      auto it = by_bus.find(str(l, "remote_pci_bus_id"));
      const int self = integer(g, "index", -1);
      if (it == by_bus.end() || it->second == self) continue;
      const std::pair<int, int> key{std::min(self, it->second), std::max(self, it->second)};
      GpuPair& e = pairs[key];
      e.nvlink = true;
      if (e.p2p.empty()) e.p2p = _("unknown");
    }
  }
}

// The topology diagram's GPU boxes, framed by NUMA node, in index order,
// from x = 10 on; `centre` gets each GPU's centre and `x` the diagram's right end.
std::string numa_boxes_svg(const json& gpus, double arc_space, std::map<int, double>& centre, double& x) {
  constexpr double kBox = 64;
  constexpr double kGap = 14;
  std::map<int, std::vector<const json*>> by_numa;  // -1 = unknown
  for (const auto& g : gpus) by_numa[integer(g, "numa_node", -1)].push_back(&g);
  x = 10;
  std::string boxes;
  for (const auto& [numa, list] : by_numa) {
    const double x0 = x;
    for (const json* g : list) {
      const int idx = integer(*g, "index", -1);
      centre[idx] = x + kBox / 2;
      boxes += fmt::format(
          "<rect x=\"{:.0f}\" y=\"{:.0f}\" width=\"{:.0f}\" height=\"40\" rx=\"4\" fill=\"#e6f0fb\" stroke=\"#0b4f9c\"/>"
          "<text x=\"{:.0f}\" y=\"{:.0f}\" text-anchor=\"middle\">GPU {}</text>",
          x, arc_space + 14, kBox, x + kBox / 2, arc_space + 38, idx);
      x += kBox + kGap;
    }
    const std::string label = numa < 0 ? _("NUMA node unknown") : trf("NUMA node {}", numa);
    boxes +=
        fmt::format("<rect x=\"{:.0f}\" y=\"{:.0f}\" width=\"{:.0f}\" height=\"66\" fill=\"none\" stroke=\"#4d5660\" "
                    "stroke-dasharray=\"4 3\"/><text x=\"{:.0f}\" y=\"{:.0f}\">{}</text>",
                    x0 - 6, arc_space + 6, x - x0 - kGap + 12, x0 - 2, arc_space + 88, escape(label));
    x += 24;
  }
  return boxes;
}

// The pairs as arcs above the boxes: solid green for NVLink, dashed grey for a PCIe path.
std::string pair_arcs_svg(const GpuPairs& pairs, std::map<int, double>& centre, double arc_space) {
  std::string arcs;
  for (const auto& [key, p] : pairs) {
    if (!centre.count(key.first) || !centre.count(key.second)) continue;
    const double a = centre[key.first];
    const double b = centre[key.second];
    const double h = std::min(arc_space - 6, 18 + std::fabs(b - a) / 8);
    arcs += fmt::format(
        "<path d=\"M{:.0f} {:.0f} Q{:.0f} {:.0f} {:.0f} {:.0f}\" fill=\"none\" stroke=\"{}\" stroke-width=\"{}\"{}/>",
        a, arc_space + 14, (a + b) / 2, arc_space + 14 - 2 * h, b, arc_space + 14, p.nvlink ? "#009E73" : "#8c959f",
        p.nvlink ? 3 : 1.5, p.nvlink ? "" : " stroke-dasharray=\"5 3\"");
  }
  return arcs;
}

// The diagram: a box per GPU, NUMA nodes as frames, pairs as arcs above; opens the <figure>.
std::string topology_svg(const json& gpus, const GpuPairs& pairs) {
  const double arc_space = pairs.empty() ? 10 : 70;
  std::map<int, double> centre;
  double x = 10;
  const std::string boxes = numa_boxes_svg(gpus, arc_space, centre, x);
  const std::string arcs = pair_arcs_svg(pairs, centre, arc_space);
  const double width = std::max(x, 300.0);
  const double height = arc_space + 100;
  std::string out = fmt::format(
      "<figure><svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {:.0f} {:.0f}\" width=\"{:.0f}\" height=\"{:.0f}\" "
      "class=\"natural\" role=\"img\" aria-label=\"{}\">",
      width, height, width, height,
      escape(_("GPUs by NUMA node; solid green arcs are NVLink, dashed grey arcs PCIe paths")));
  out += arcs + boxes + "</svg><figcaption>" +
         escape(_("GPUs by NUMA node. Solid arcs: NVLink; dashed arcs: PCIe path (its level in the table).")) +
         "</figcaption>";
  return out;
}

// The diagram's numbers: each GPU's NUMA node and CPUs, each pair's link.
std::string topology_tables(const json& gpus, const GpuPairs& pairs) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& g : gpus) {
    rows.push_back({escape(gpu_label(g)), escape(str(g, "pci_bus_id")),
                    escape(member(g, "numa_node").is_number() ? g["numa_node"].dump() : _("unknown")),
                    json_html(member(g, "cpu_affinity")), escape(std::to_string(array(g, "nvlinks").size()))});
  }
  std::string out = table(_("GPUs and their NUMA nodes"),
                          {"GPU", _("PCI bus"), _("NUMA node"), _("CPUs close to it"), _("NVLinks")}, rows);
  if (!pairs.empty()) {
    std::vector<std::vector<std::string>> prows;
    for (const auto& [key, p] : pairs) {
      prows.push_back({escape(fmt::format("GPU {} \u2194 GPU {}", key.first, key.second)), p.nvlink ? "NVLink" : "PCIe",
                       escape(p.connection.empty() ? _("unknown") : p.connection), escape(p.p2p)});
    }
    out +=
        table(_("GPU pairs"),
              {C_("GPU pairs", "pair"), C_("GPU pairs", "link"), _("common ancestor"), _("peer-to-peer read")}, prows);
  } else {
    out += "<p class=\"meta\">" +
           // TRANSLATORS: {} is the command nvidia-smi topo -m (as code).
           trf("No GPU pair topology in this input (NVML on the machine or {} gives it).",
               "<code>nvidia-smi topo -m</code>") +
           "</p>";
  }
  return out;
}

std::string topology_section(const json& inv) {
  const json& gpus = array(inv, "gpus");
  // Pairs: from NVML's topology, and NVLinks whose far end is another GPU.
  GpuPairs pairs;
  add_topology_pairs(inv, pairs);
  add_nvlink_pairs(gpus, pairs);
  if (gpus.empty()) return "<p>" + escape(_("No GPUs in this input.")) + "</p>";
  return topology_svg(gpus, pairs) + topology_tables(gpus, pairs) + "</figure>\n";
}

// The verdict and the counts of findings (a plain snapshot says it is not
// judged), then what the document is about.
Section doctor_verdict_section(const json& d, std::string_view p, bool judged) {
  const json& inv = member(d, "inventory");
  std::string body;
  if (judged) {
    const json& sum = member(d, "summary");
    const int errors = integer(sum, "error", 0);
    const int warnings = integer(sum, "warning", 0);
    const int infos = integer(sum, "info", 0);
    const std::string worst = errors ? "error" : warnings ? "warning" : "ok";
    body += verdict_box(worst, severity_badge(worst == "ok" ? "ok" : worst) + " " + escape(str(d, "verdict")));
    body += fmt::format("<p class=\"counts\"><span>{} {}</span><span>{} {}</span><span>{} {}</span></p>",
                        severity_badge("error"), errors, severity_badge("warning"), warnings, severity_badge("info"),
                        infos);
  } else {
    body += verdict_box("", trf("A plain snapshot: not judged. {} judges it.",
                                "<code>tfrig doctor --snapshot FILE --format html</code>"));
  }
  std::vector<std::pair<std::string, std::string>> rows;
  if (!str(d, "target").empty()) rows.emplace_back(_("Target"), escape(str(d, "target")));
  rows.emplace_back(_("Host"), escape(str(member(inv, "host"), "hostname")));
  rows.emplace_back(C_("page summary", "GPUs"), escape(std::to_string(array(inv, "gpus").size())));
  rows.emplace_back(_("Driver"), json_value_html(member(member(inv, "driver"), "version")));
  rows.emplace_back(_("Source"), escape(str(d, "source")));
  rows.emplace_back(_("Generated"), escape(str(d, "generated_at")));
  body += kv(rows);
  return {std::string(p) + "verdict", _("Verdict"), body};
}

// The findings worst first, grouped by rule and severity: one rule firing on
// eight GPUs reads as one finding.
std::vector<std::vector<const json*>> finding_groups(const json& findings) {
  std::vector<const json*> sorted;
  for (const auto& f : findings) sorted.push_back(&f);
  std::stable_sort(sorted.begin(), sorted.end(), [](const json* a, const json* b) {
    return severity_rank(str(*a, "severity")) > severity_rank(str(*b, "severity"));
  });
  std::vector<std::vector<const json*>> groups;
  std::map<std::string, size_t> group_of;
  for (const json* f : sorted) {
    const std::string key = str(*f, "rule_id") + "\n" + str(*f, "severity");
    auto [it, added] = group_of.emplace(key, groups.size());
    if (added) groups.emplace_back();
    groups[it->second].push_back(f);
  }
  return groups;
}

// Each group's first finding in full, the others folded under it (still in
// the page, one click away).
Section doctor_findings_section(const json& d, std::string_view p) {
  const json& findings = array(d, "findings");
  std::string body = findings.empty() ? "<p>" + escape(_("No findings.")) + "</p>" : "";
  size_t n = 0;
  for (const auto& group : finding_groups(findings)) {
    body += finding_html(*group.front(), ++n, p);
    if (group.size() < 2) continue;
    std::string entities;
    for (size_t i = 1; i < group.size(); ++i) entities += (i > 1 ? ", " : "") + str(*group[i], "entity");
    body += "<details class=\"more\"><summary>" +
            // TRANSLATORS: a rule that fired on several GPUs: {0} how many more, {1} which (GPU 1, GPU 2, ...).
            escape(trf("The same on {0} more: {1}", group.size() - 1, entities)) + "</summary>";
    for (size_t i = 1; i < group.size(); ++i) body += finding_html(*group[i], ++n, p);
    body += "</details>\n";
  }
  return {std::string(p) + "findings", trf("Findings ({})", findings.size()), body};
}

// The areas in the terminal's words (labels and values translated, units
// formatted); the JSON's field names stay in the raw view below it.
Section doctor_inventory_section(const json& d, std::string_view p) {
  const json& inv = member(d, "inventory");
  std::string body;
  if (auto r = report_from_json(d)) {
    body += "<pre class=\"inventory\">" + escape(render_sections_text(*r, TextOptions{false, true})) + "</pre>";
  }
  std::string raw;
  for (auto it = inv.begin(); inv.is_object() && it != inv.end(); ++it) {
    raw += "<h3 id=\"" + escape(std::string(p) + "inv-" + anchor(it.key())) + "\">" + escape(it.key()) + "</h3>" +
           json_html(it.value());
  }
  body += raw_data_details(
      _("The inventory as the snapshot's JSON holds it (field names and values as programs read them)"), raw);
  return {std::string(p) + "inventory", _("Inventory by area"), body};
}

// Everything but the inventory, folded.
Section doctor_rest_section(const json& d, std::string_view p) {
  json rest = json::object();
  for (auto it = d.begin(); d.is_object() && it != d.end(); ++it) {
    if (it.key() != "inventory") rest[it.key()] = it.value();
  }
  return {std::string(p) + "probes", _("Probes, rules skipped, document"),
          all_data_summary(rest, _("Every value of the doctor (all but the inventory) JSON output"))};
}

}  // namespace

std::vector<Section> doctor_sections(const json& d, std::string_view p) {
  std::vector<Section> out;
  const json& inv = member(d, "inventory");
  const bool judged = d.contains("verdict") || d.contains("findings");
  out.push_back(doctor_verdict_section(d, p, judged));
  if (judged) out.push_back(doctor_findings_section(d, p));
  out.push_back({std::string(p) + "topology", _("GPU topology and links"),
                 topology_section(inv) + links_section(array(inv, "gpus"))});
  out.push_back(doctor_inventory_section(d, p));
  out.push_back(doctor_rest_section(d, p));
  return out;
}

}  // namespace tfrig::report::html::detail

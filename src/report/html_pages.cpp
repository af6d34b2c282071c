#include "report/html_pages.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include <fmt/format.h>

#include "core/i18n.h"
#include "bench/benchmark.h"
#include "pipeline/barrel.h"
#include "plan/cost_report.h"
#include "plan/prices.h"
#include "plan/ranking.h"
#include "plan/render.h"
#include "report/html_chart.h"
#include "report/report.h"
#include "report/severity_paint.h"
#include "watch/classify.h"
#include "watch/sample.h"

namespace tfrig::report::html {

namespace {

using nlohmann::json;

std::string str(const json& j, std::string_view key) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_string()) return "";
  return it->get<std::string>();
}

double dbl(const json& j, std::string_view key) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_number()) return NAN;
  return it->get<double>();
}

// An integer field, or `fallback` when absent, not a number, or outside int
// (a document given to tfrig report can hold anything: 1e300 must not reach
// a cast).
int integer(const json& j, std::string_view key, int fallback) {
  const double v = dbl(j, key);
  if (!std::isfinite(v) || v < -1e9 || v > 1e9) return fallback;
  return static_cast<int>(v);
}

const json& member(const json& j, std::string_view key) {
  static const json kNull;
  if (!j.is_object()) return kNull;
  auto it = j.find(key);
  return it == j.end() ? kNull : *it;
}

const json& array(const json& j, std::string_view key) {
  static const json kEmpty = json::array();
  const json& m = member(j, key);
  return m.is_array() ? m : kEmpty;
}

int severity_rank(std::string_view s) {
  if (s == "error") return 2;
  if (s == "warning") return 1;
  return 0;
}

// Backtick spans in a fix or message as <code>; everything escaped.
std::string with_code(const std::string& text) {
  std::string out;
  bool in_code = false;
  size_t start = 0;
  for (size_t i = 0; i <= text.size(); ++i) {
    if (i == text.size() || text[i] == '`') {
      const std::string piece = escape(text.substr(start, i - start));
      out += in_code ? "<code>" + piece + "</code>" : piece;
      if (i < text.size()) in_code = !in_code;
      start = i + 1;
    }
  }
  return out;
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

std::string kv(const std::vector<std::pair<std::string, std::string>>& rows) {
  std::vector<std::vector<std::string>> cells;
  for (const auto& [k, v] : rows) cells.push_back({"<strong>" + escape(k) + "</strong>", v});
  return table("", {}, cells, "kv");
}

// A folded view of machine data (JSON field names and values as programs
// read them, English by contract): class "raw" marks it for readers and tests.
std::string raw_data_details(const std::string& summary, const std::string& html) {
  return "<details class=\"raw\"><summary>" + escape(summary) + "</summary>" + html + "</details>\n";
}

// `command`: the tfrig command that wrote the JSON ("plan").
std::string all_data(const json& doc, std::string_view command) {
  return raw_data_details(trf("Every value of the {} JSON output", command), json_html(doc));
}

std::string all_data_summary(const json& doc, const std::string& summary) {
  return raw_data_details(summary, json_html(doc));
}

// "Source: " before a list of links or a name.
std::string source_line(const std::string& html) {
  // TRANSLATORS: before the sources of a finding or an advice (links or names).
  // {} is HTML: the catalog's words go into the page as they are.
  return "<p class=\"meta\">" + trf("Source: {}", html) + "</p>";
}

std::string none_paragraph() { return "<p>" + escape(_("None.")) + "</p>"; }

// JSON contract words in the interface's language where plan and pipeline
// translate them, else as they are.
std::string origin_word(const std::string& o) {
  const auto origin = pipeline::origin_from_name(o);
  return origin ? pipeline::origin_label(*origin) : o;
}

std::string rank_by_word(const std::string& r) {
  const auto by = plan::parse_rank_by(r);
  return by ? plan::rank_by_text(*by) : r;
}

// The plan's stave names (src/plan/render.cpp marks the same English words).
std::string stave_name_word(const std::string& name) { return name.empty() ? name : _(name); }

std::string bench_status_word(const std::string& s) {
  const auto status = bench::status_from_name(s);
  return status ? bench::status_label(*status) : s;
}

std::string verdict_box(std::string_view severity_class, const std::string& html_text) {
  return "<p class=\"verdict " + escape(severity_class) + "\">" + html_text + "</p>\n";
}

// ---- doctor --------------------------------------------------------------

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

std::string topology_section(const json& inv) {
  const json& gpus = array(inv, "gpus");
  // Pairs: from NVML's topology, and NVLinks whose far end is another GPU.
  std::map<std::string, int> by_bus;
  for (const auto& g : gpus) {
    if (member(g, "pci_bus_id").is_string() && member(g, "index").is_number())
      by_bus[str(g, "pci_bus_id")] = integer(g, "index", -1);
  }
  struct Pair {
    std::string connection;
    std::string p2p;
    bool nvlink = false;
  };
  std::map<std::pair<int, int>, Pair> pairs;
  for (const auto& p : array(inv, "gpu_topology")) {
    if (!member(p, "gpu_a").is_number() || !member(p, "gpu_b").is_number()) continue;
    const int a = integer(p, "gpu_a", -1);
    const int b = integer(p, "gpu_b", -1);
    const std::pair<int, int> key{std::min(a, b), std::max(a, b)};  // by value: std::minmax returns references
    Pair& e = pairs[key];
    e.nvlink = e.nvlink || (member(p, "nvlink").is_boolean() && p["nvlink"].get<bool>());
    e.connection = str(p, "level");
    e.p2p = member(p, "p2p_read").is_boolean() ? (p["p2p_read"].get<bool>() ? _("yes") : _("no")) : _("unknown");
  }
  for (const auto& g : gpus) {
    if (!member(g, "index").is_number()) continue;
    for (const auto& l : array(g, "nvlinks")) {
      if (str(l, "remote_kind") != "gpu" || !(member(l, "active").is_boolean() && l["active"].get<bool>())) continue;
      auto it = by_bus.find(str(l, "remote_pci_bus_id"));
      const int self = integer(g, "index", -1);
      if (it == by_bus.end() || it->second == self) continue;
      const std::pair<int, int> key{std::min(self, it->second), std::max(self, it->second)};
      Pair& e = pairs[key];
      e.nvlink = true;
      if (e.p2p.empty()) e.p2p = _("unknown");
    }
  }
  // GPUs grouped by NUMA node, in index order.
  std::map<int, std::vector<const json*>> by_numa;  // -1 = unknown
  for (const auto& g : gpus) by_numa[integer(g, "numa_node", -1)].push_back(&g);
  std::string out;
  if (gpus.empty()) return "<p>" + escape(_("No GPUs in this input.")) + "</p>";
  // The diagram: a box per GPU, NUMA nodes as frames, pairs as arcs above.
  constexpr double kBox = 64;
  constexpr double kGap = 14;
  const double arc_space = pairs.empty() ? 10 : 70;
  double x = 10;
  std::map<int, double> centre;
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
  const double width = std::max(x, 300.0);
  const double height = arc_space + 100;
  out += fmt::format(
      "<figure><svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {:.0f} {:.0f}\" width=\"{:.0f}\" height=\"{:.0f}\" "
      "class=\"natural\" role=\"img\" aria-label=\"{}\">",
      width, height, width, height,
      escape(_("GPUs by NUMA node; solid green arcs are NVLink, dashed grey arcs PCIe paths")));
  out += arcs + boxes + "</svg><figcaption>" +
         escape(_("GPUs by NUMA node. Solid arcs: NVLink; dashed arcs: PCIe path (its level in the table).")) +
         "</figcaption>";
  std::vector<std::vector<std::string>> rows;
  for (const auto& g : gpus) {
    rows.push_back({escape(gpu_label(g)), escape(str(g, "pci_bus_id")),
                    escape(member(g, "numa_node").is_number() ? g["numa_node"].dump() : _("unknown")),
                    json_html(member(g, "cpu_affinity")), escape(std::to_string(array(g, "nvlinks").size()))});
  }
  out += table(_("GPUs and their NUMA nodes"),
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
  return out + "</figure>\n";
}

std::vector<Section> doctor_sections(const json& d, std::string_view p) {
  std::vector<Section> out;
  const json& inv = member(d, "inventory");
  const json& findings = array(d, "findings");
  const bool judged = d.contains("verdict") || d.contains("findings");
  {
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
    out.push_back({std::string(p) + "verdict", _("Verdict"), body});
  }
  if (judged) {
    std::vector<const json*> sorted;
    for (const auto& f : findings) sorted.push_back(&f);
    std::stable_sort(sorted.begin(), sorted.end(), [](const json* a, const json* b) {
      return severity_rank(str(*a, "severity")) > severity_rank(str(*b, "severity"));
    });
    // One rule firing on eight GPUs reads as one finding: the first in full,
    // the others folded under it (still in the page, one click away).
    std::vector<std::vector<const json*>> groups;
    std::map<std::string, size_t> group_of;
    for (const json* f : sorted) {
      const std::string key = str(*f, "rule_id") + "\n" + str(*f, "severity");
      auto [it, added] = group_of.emplace(key, groups.size());
      if (added) groups.emplace_back();
      groups[it->second].push_back(f);
    }
    std::string body = sorted.empty() ? "<p>" + escape(_("No findings.")) + "</p>" : "";
    size_t n = 0;
    for (const auto& group : groups) {
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
    out.push_back({std::string(p) + "findings", trf("Findings ({})", sorted.size()), body});
  }
  out.push_back({std::string(p) + "topology", _("GPU topology and links"),
                 topology_section(inv) + links_section(array(inv, "gpus"))});
  {
    // The areas in the terminal's words (labels and values translated, units
    // formatted); the JSON's field names stay in the raw view below it.
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
    out.push_back({std::string(p) + "inventory", _("Inventory by area"), body});
  }
  {
    json rest = json::object();
    for (auto it = d.begin(); d.is_object() && it != d.end(); ++it) {
      if (it.key() != "inventory") rest[it.key()] = it.value();
    }
    out.push_back({std::string(p) + "probes", _("Probes, rules skipped, document"),
                   all_data_summary(rest, _("Every value of the doctor (all but the inventory) JSON output"))});
  }
  return out;
}

// ---- time and money of a run (plan's and pipeline's run_cost) -------------

// An amount of the run_cost JSON with its currency ("¥1,825.00"), or "-".
std::string money_cell(const json& j, std::string_view key, const std::string& currency) {
  const double v = dbl(j, key);
  return escape(std::isfinite(v) ? plan::format_money(v, currency) : std::string("-"));
}

std::string hours_cell(const json& j, std::string_view key) {
  const double v = dbl(j, key);
  return escape(std::isfinite(v) && v > 0 ? plan::format_hours(v) : std::string("-"));
}

// Where the prices come from, in the currency of every amount, and the rate
// that converted them (the lines the terminal prints above its table).
std::string prices_paragraphs(const json& rc, const std::string& currency) {
  std::string body;
  const std::string source = str(rc, "prices_source");
  if (source.empty())
    body +=
        "<p class=\"meta\">" +
        escape(_(
            "no prices given: --prices FILE, --rent \"GPU=PRICE\", --buy \"GPU=PRICE\" (data/prices.example.yaml shows the fields)")) +
        "</p>";
  else
    // TRANSLATORS: {0} where the prices come from, {1} their currency.
    body += "<p class=\"meta\">" + escape(trf("prices: {0}, {1}", source, currency)) + "</p>";
  const json& x = member(rc, "exchange_rate");
  if (x.is_object() && std::isfinite(dbl(x, "rate")))
    body += "<p class=\"meta\">" +
            escape(plan::exchange_rate_text(
                plan::ExchangeRate{str(x, "from"), str(x, "to"), dbl(x, "rate"), core::Message("{}", str(x, "source"))},
                core::i18n::language())) +
            "</p>";
  return body;
}

// The options of plan's cost table shown whether priced or not (the terminal's --top default).
constexpr size_t kCostRows = 10;

// A GPU's busy share as the terminal writes it ("100%").
std::string busy_cell(const json& j) {
  const double v = dbl(j, "gpu_utilization");
  return escape(std::isfinite(v) ? fmt::format("{:.0f}%", v * 100) : std::string("-"));
}

// plan's run_cost: every option that fits, costed for one run, as the
// terminal's table (amounts with the currency's symbol, hours as "3.2 h").
std::string plan_cost_html(const json& rc) {
  const std::string currency = str(rc, "currency").empty() ? std::string("USD") : str(rc, "currency");
  const json& options = array(rc, "options");
  const json& cheapest_index = member(rc, "cheapest");
  const double cheapest = cheapest_index.is_number_unsigned() ? cheapest_index.get<double>() : -1;
  std::string body;
  const double epochs = dbl(rc, "epochs");
  const double samples = dbl(rc, "dataset_samples");
  const double steps = dbl(rc, "steps");
  if (std::isfinite(steps))
    body += "<p>" +
            escape(trf("Time and cost of the run ({0} steps of batch {1})", steps,
                       member(rc, "samples").is_number() ? dbl(rc, "samples") / steps : NAN)) +
            "</p>";
  else if (std::isfinite(epochs) && std::isfinite(samples))
    body += "<p>" +
            escape(trf("Time and cost of the run ({0:g} epochs of {1} samples)", epochs, human_number(samples))) +
            "</p>";
  body += prices_paragraphs(rc, currency);
  std::vector<std::vector<std::string>> rows;
  for (size_t i = 0; i < options.size(); ++i) {
    const json& o = options[i];
    // As the terminal: the plan's first options, and every priced one (the rest is in the JSON below).
    const bool priced = std::isfinite(dbl(o, "rent_cost")) || std::isfinite(dbl(o, "own_cost"));
    if (i >= kCostRows && !priced && static_cast<double>(i) != cheapest) continue;
    std::string run = plan::format_hours(dbl(o, "run_hours"));
    const double lo = dbl(o, "run_hours_low"), hi = dbl(o, "run_hours_high");
    if (std::isfinite(lo) && std::isfinite(hi) && hi > lo * 1.001)
      run += fmt::format(" ({} - {})", plan::format_hours(lo), plan::format_hours(hi));
    if (member(o, "meets_deadline").is_boolean() && !o["meets_deadline"].get<bool>())
      run += " " + C_("run cost", "late");
    const double months = dbl(o, "breakeven_months");
    const bool is_cheapest = static_cast<double>(i) == cheapest;
    rows.push_back({(is_cheapest ? "<strong>" : std::string()) + escape(str(o, "gpu") + (is_cheapest ? " *" : "")) +
                        (is_cheapest ? "</strong>" : ""),
                    json_value_html(member(o, "gpus")), busy_cell(o), hours_cell(o, "epoch_hours"), escape(run),
                    hours_cell(o, "hours_lost_to_input"), money_cell(o, "rent_cost", currency),
                    money_cell(o, "own_cost", currency), money_cell(o, "cost_per_1k_samples", currency),
                    escape(std::isfinite(months) ? trf("{:.1f} months", months) : "-")});
  }
  body += table("",
                {"GPU", "n", C_("run cost", "GPU busy"), C_("run cost", "epoch"), C_("run cost", "run (band)"),
                 C_("run cost", "lost to input"), C_("run cost", "rented"), C_("run cost", "owned"),
                 C_("run cost", "per 1k samples"), C_("run cost", "buy pays off")},
                rows);
  body += "<p class=\"meta\">" +
          escape(_("run (band): expected, and the range the throughput estimate allows; measured rows have no band")) +
          "</p>";
  body +=
      "<p class=\"meta\">" +
      escape(_(
          "rented: billed hours after the provider's rounding; owned: purchase written off per hour of use + energy at board power")) +
      "</p>";
  const double deadline = dbl(rc, "deadline_hours");
  if (cheapest >= 0 && cheapest < static_cast<double>(options.size())) {
    const json& c = options[static_cast<size_t>(cheapest)];
    const double cost = std::min(std::isfinite(dbl(c, "rent_cost")) ? dbl(c, "rent_cost") : INFINITY,
                                 std::isfinite(dbl(c, "own_cost")) ? dbl(c, "own_cost") : INFINITY);
    const int gpus = integer(c, "gpus", 1);
    const std::string line = std::isfinite(deadline)
                                 ? trf("Cheapest within {4}: {0} x {1}, {2} for the run, done in {3}", gpus,
                                       str(c, "gpu"), plan::format_money(cost, currency),
                                       plan::format_hours(dbl(c, "run_hours")), plan::format_hours(deadline))
                                 : trf("Cheapest: {0} x {1}, {2} for the run, done in {3}", gpus, str(c, "gpu"),
                                       plan::format_money(cost, currency), plan::format_hours(dbl(c, "run_hours")));
    body += verdict_box("ok", "* " + escape(line));
  } else if (std::isfinite(deadline)) {
    body += verdict_box("warning", escape(trf("No priced option finishes within {0} (at the slow end of its band).",
                                              plan::format_hours(deadline))));
  }
  for (const json& o : options) {
    const double lost = dbl(o, "rent_cost_lost_to_input");
    if (std::isfinite(lost) && lost > 0 && dbl(o, "hours_lost_to_input") > 0) {
      body +=
          "<p>" +
          escape(trf(
              "{0}: the input pipeline costs {1} of this run ({2} of {3}); fix the pipeline before buying a faster GPU",
              str(o, "gpu"), plan::format_money(lost, currency), plan::format_hours(dbl(o, "hours_lost_to_input")),
              plan::format_hours(dbl(o, "run_hours")))) +
          "</p>";
      break;  // the same pipeline starves every option
    }
  }
  std::vector<std::vector<std::string>> month_rows;
  for (const json& o : options) {
    const double reserved = dbl(o, "rent_month_reserved"), released = dbl(o, "rent_month_released");
    if (!std::isfinite(reserved) || !std::isfinite(released)) continue;
    const bool monthly = str(o, "rent_month_reserved_basis") == "monthly_price";
    const bool releasing = released <= reserved;
    const double saves = releasing ? (reserved > 0 ? (1 - released / reserved) * 100 : 0.0)
                                   : (released > 0 ? (1 - reserved / released) * 100 : 0.0);
    const int gpus = integer(o, "gpus", 1);
    const std::string r = plan::format_money(reserved, currency), f = plan::format_money(released, currency);
    const std::string line =
        monthly
            ? (releasing ? trf("{0} x {1}: {2} reserved at the monthly price, {3} released (releasing saves {4:.0f}%)",
                               gpus, str(o, "gpu"), r, f, saves)
                         : trf("{0} x {1}: {2} reserved at the monthly price, {3} released (reserving saves {4:.0f}%)",
                               gpus, str(o, "gpu"), r, f, saves))
            : (releasing ? trf("{0} x {1}: {2} reserved, {3} released (releasing saves {4:.0f}%)", gpus, str(o, "gpu"),
                               r, f, saves)
                         : trf("{0} x {1}: {2} reserved, {3} released (reserving saves {4:.0f}%)", gpus, str(o, "gpu"),
                               r, f, saves));
    month_rows.push_back({escape(line)});
  }
  if (!month_rows.empty()) {
    const json& runs = member(rc, "runs_per_month");
    body += table(trf("Per month with {0} runs: reserved around the clock vs released after each run",
                      runs.is_number() ? runs.dump() : std::string("?")),
                  {}, month_rows);
  }
  for (const auto& n : array(rc, "notes"))
    body += "<p class=\"meta\">" + escape(trf("note: {0}", n.is_string() ? n.get<std::string>() : n.dump())) + "</p>";
  return body;
}

// pipeline's run_cost: the run as measured and after each what-if.
std::string pipeline_cost_html(const json& rc) {
  const std::string currency = str(rc, "currency").empty() ? std::string("USD") : str(rc, "currency");
  std::string body = prices_paragraphs(rc, currency);
  std::vector<std::vector<std::string>> rows;
  for (const json& w : array(rc, "rows")) {
    rows.push_back({escape(str(w, "change")), busy_cell(w), hours_cell(w, "run_hours"),
                    money_cell(w, "rent_cost", currency), money_cell(w, "own_cost", currency)});
  }
  body += table("",
                {C_("run cost", "change"), C_("run cost", "GPU busy"), C_("run cost", "run"), C_("run cost", "rented"),
                 C_("run cost", "owned")},
                rows);
  return body;
}

// ---- plan ----------------------------------------------------------------

std::vector<Section> plan_sections(const json& d, std::string_view p) {
  std::vector<Section> out;
  const json& model = member(d, "model");
  const json& mem = member(d, "memory");
  const json& gpus = array(d, "gpus");
  {
    std::vector<std::pair<std::string, std::string>> rows{
        // TRANSLATORS: {0} a model's name, {1} its number of parameters.
        {C_("plan page", "Model"),
         trf("{0} ({1} parameters)", escape(str(model, "name")), json_value_html(member(model, "params")))},
        {_("Batch"), json_value_html(member(d, "batch"))},
        {_("Precision"), escape(str(d, "precision"))},
        {_("Optimizer"), escape(str(d, "optimizer"))},
        // TRANSLATORS: {0} the GPU memory each GPU needs ("11.8 GiB"), {1} the batch each GPU gets.
        {_("GPU memory per GPU"), trf("{0} for batch {1} per GPU", escape(human_bytes(dbl(mem, "total_bytes"))),
                                      json_value_html(member(mem, "batch_per_gpu")))},
    };
    const json& server = member(d, "server");
    if (server.is_object()) {
      rows.emplace_back(_("Suggested server"),
                        escape(fmt::format("{} x {}", member(server, "gpus").dump(), str(server, "gpu"))));
    }
    std::string body = kv(rows);
    const json& machine = member(d, "machine");
    if (machine.is_object()) {
      body += "<h3>" + escape(_("This machine")) + "</h3><p>" + escape(str(machine, "source")) + "</p>";
      std::vector<std::vector<std::string>> srows;
      for (const auto& s : array(machine, "staves")) {
        const std::string v = str(s, "verdict");
        const std::string cls = v == "ok" ? "ok" : v == "short" ? "warning" : v == "fail" ? "error" : "info";
        srows.push_back({escape(stave_name_word(str(s, "name"))),
                         "<span class=\"sev " + cls + "\">" + escape(plan::stave_verdict_text(v)) + "</span>",
                         escape(str(s, "need")), escape(str(s, "have"))});
      }
      body += table(_("Staves of this machine"),
                    {C_("stave table", "stave"), C_("stave table", "verdict"), C_("stave table", "needs"),
                     C_("stave table", "has")},
                    srows);
    }
    for (const auto& n : array(d, "notes"))
      body += "<p class=\"meta\">" + escape(n.is_string() ? n.get<std::string>() : n.dump()) + "</p>";
    out.push_back({std::string(p) + "plan", C_("page section", "Plan"), body});
  }
  {
    // Per GPU: the fixed parts, and activations as the rest of its total
    // (activations are what grows with the batch each GPU gets).
    const double fixed_w = dbl(mem, "weights_bytes");
    const double fixed_g = dbl(mem, "gradients_bytes");
    const double fixed_o = dbl(mem, "optimizer_bytes");
    const double fixed_x = dbl(mem, "overhead_bytes");
    StackedChart chart;
    chart.title = _("GPU memory per GPU against its VRAM (the ranking's first GPUs)");
    chart.part_names = {C_("memory chart", "weights"), C_("memory chart", "gradients"), C_("memory chart", "optimizer"),
                        C_("memory chart", "overhead"), C_("memory chart", "activations")};
    chart.capacity_name = C_("memory chart", "VRAM");
    auto add = [&](const std::string& label, double total, double capacity, const std::string& note) {
      StackedBar b;
      b.label = label;
      const double fixed = fixed_w + fixed_g + fixed_o + fixed_x;
      b.parts = {fixed_w, fixed_g, fixed_o, fixed_x,
                 std::isfinite(total) ? total - fixed : dbl(mem, "activations_bytes")};
      for (auto& v : b.parts) v = std::isfinite(v) ? v : 0;
      b.capacity = std::isfinite(capacity) ? capacity : 0;
      b.note = note;
      chart.bars.push_back(std::move(b));
    };
    for (const auto& g : array(member(d, "machine"), "gpus")) {
      const bool fits = member(g, "fits").is_boolean() && g["fits"].get<bool>();
      // TRANSLATORS: a GPU of this machine in the memory chart: {} is its name.
      add(trf("here: {}", str(g, "name")), dbl(mem, "total_bytes"), dbl(g, "memory_bytes"),
          fits ? _("fits") : _("does not fit"));
    }
    for (size_t i = 0; i < gpus.size() && chart.bars.size() < 12; ++i) {
      const auto& g = gpus[i];
      const bool fits = member(g, "fits").is_boolean() && g["fits"].get<bool>();
      add(str(g, "name"), dbl(g, "total_bytes_per_gpu"), dbl(g, "memory_bytes"), fits ? _("fits") : _("does not fit"));
    }
    std::string body = chart.bars.empty() ? "<p>" + escape(_("No GPUs.")) + "</p>" : stacked_bytes_chart(chart);
    out.push_back({std::string(p) + "memory", _("GPU memory"), body});
  }
  {
    BarChart chart;
    chart.title =
        // TRANSLATORS: {} is what the ranking sorts by (price-performance, speed, memory).
        trf("Estimated training samples/s (first 15 GPUs of the ranking, by {})", rank_by_word(str(d, "rank_by")));
    chart.value_header = _("samples/s");
    for (size_t i = 0; i < gpus.size() && i < 15; ++i) {
      const auto& g = gpus[i];
      Bar b;
      b.label = str(g, "name");
      b.value = dbl(g, "est_samples_per_s");
      b.value_text = std::isfinite(b.value) ? human_number(b.value) : _("unknown");
      const bool fits = member(g, "fits").is_boolean() && g["fits"].get<bool>();
      const double needed = dbl(g, "gpus_needed");
      b.mark = !fits ? _("does not fit") : needed > 1 ? trf("{} GPUs", needed) : "";
      b.highlight = !fits;
      chart.bars.push_back(std::move(b));
    }
    std::vector<std::vector<std::string>> rows;
    for (size_t i = 0; i < gpus.size(); ++i) {
      const auto& g = gpus[i];
      // Numbers as people read them ("1,216", "32.0 GiB", "$1,999.00"); every digit is in the folded JSON below.
      auto number = [&g](std::string_view key) {
        const double v = dbl(g, key);
        return std::isfinite(v) ? escape(human_number(v)) : json_value_html(member(g, key));
      };
      const double launch = dbl(g, "launch_price_usd");
      rows.push_back({escape(std::to_string(i + 1)), escape(str(g, "name")), json_value_html(member(g, "fits")),
                      number("gpus_needed"), number("est_samples_per_s"), number("max_batch_per_gpu"),
                      std::isfinite(dbl(g, "memory_bytes")) ? escape(human_bytes(dbl(g, "memory_bytes")))
                                                            : json_value_html(member(g, "memory_bytes")),
                      std::isfinite(launch) ? escape(plan::format_money(launch, "USD"))
                                            : json_value_html(member(g, "launch_price_usd")),
                      number("samples_per_s_per_kusd"), escape(plan::basis_text(str(g, "basis")))});
    }
    std::string body = chart.bars.empty() ? "" : bar_chart(chart);
    body += table(
        _("Every GPU of the ranking"),
        {"#", "GPU", C_("ranking table", "fits"), C_("ranking table", "GPUs"), _("samples/s"), _("max batch/GPU"),
         C_("memory chart", "VRAM"), _("launch price (USD)"), _("samples/s per k USD"), C_("ranking table", "basis")},
        rows);
    out.push_back({std::string(p) + "ranking", _("GPU ranking"), body});
  }
  if (member(d, "run_cost").is_object())
    out.push_back({std::string(p) + "cost", _("Time and cost of the run"), plan_cost_html(d["run_cost"])});
  out.push_back({std::string(p) + "data", _("All data"), all_data(d, "plan")});
  return out;
}

// ---- pipeline ------------------------------------------------------------

std::vector<Section> pipeline_sections(const json& d, std::string_view p) {
  std::vector<Section> out;
  const double demand = dbl(d, "gpu_demand_samples_per_s");
  const double util = dbl(d, "predicted_gpu_utilization");
  const double target = dbl(d, "target_gpu_utilization");
  {
    const std::string bottleneck = str(d, "bottleneck");
    const bool below = std::isfinite(util) && std::isfinite(target) && util < target;
    // TRANSLATORS: {0} the slowest stage (storage, decode, ...), {1} and {2} percentages.
    std::string text = trf("The {0} sets the pace: predicted GPU utilization {1} (target {2}).",
                           pipeline::stage_label(bottleneck), percent(util), percent(target));
    std::string body =
        verdict_box(below ? "warning" : "ok", severity_badge(below ? "warning" : "ok") + " " + escape(text));
    body +=
        kv({{_("Data"), escape(str(d, "data_dir"))},
            {_("Model, GPU"), escape(trf("{0} on {1}", str(d, "model"), str(d, "gpu")))},
            {_("GPU demand"), escape(trf("{} samples/s", human_number(demand)))},
            {_("Training"), escape(trf("{} samples/s", human_number(dbl(d, "training_samples_per_s"))))},
            {_("Without prefetch"), escape(percent(dbl(d, "predicted_gpu_utilization_without_prefetch")))},
            {_("Cheapest change"), member(d, "cheapest_change").is_null() ? escape(_("none needed"))
                                                                          : json_html(member(d, "cheapest_change"))}});
    out.push_back({std::string(p) + "verdict", _("Verdict"), body});
  }
  {
    const json& stages = array(d, "stages");
    size_t shortest = stages.size();
    double lo = INFINITY;
    for (size_t i = 0; i < stages.size(); ++i) {
      const double v = dbl(stages[i], "samples_per_s");
      if (std::isfinite(v) && v < lo) {
        lo = v;
        shortest = i;
      }
    }
    BarChart chart;
    chart.title = _("The barrel: each stave's rate against the GPU's demand (log scale)");
    chart.value_header = _("samples/s");
    chart.log_scale = true;
    chart.reference = demand;
    // TRANSLATORS: the reference line of the barrel chart: {} samples per second.
    chart.reference_label = trf("GPU demand {}/s", human_number(demand));
    chart.reference_text = human_number(demand);
    std::vector<std::vector<std::string>> rows;
    for (size_t i = 0; i < stages.size(); ++i) {
      const auto& s = stages[i];
      Bar b;
      b.label = pipeline::stage_label(str(s, "name"));
      b.value = dbl(s, "samples_per_s");
      b.value_text = human_number(b.value);
      if (i == shortest) {
        // TRANSLATORS: the shortest stave of the barrel (the slowest stage).
        b.mark = C_("barrel", "shortest");
        b.highlight = std::isfinite(demand) && b.value < demand;
      }
      chart.bars.push_back(std::move(b));
      rows.push_back({escape(pipeline::stage_label(str(s, "name"))), escape(origin_word(str(s, "origin"))),
                      escape(str(s, "detail"))});
    }
    std::string body = stages.empty() ? "<p>" + escape(_("No stages measured.")) + "</p>" : bar_chart(chart);
    body += table(_("How each stave was found"), {C_("stave table", "stave"), _("origin"), _("detail")}, rows);
    out.push_back({std::string(p) + "barrel", _("The barrel"), body});
  }
  {
    BarChart chart;
    chart.title = _("Predicted GPU utilization after each what-if");
    chart.value_header = _("GPU utilization");
    chart.max = 100;
    chart.reference = std::isfinite(target) ? target * 100 : 90;
    // TRANSLATORS: the target GPU utilization line: {} is a percentage.
    chart.reference_label = trf("target {}", percent(std::isfinite(target) ? target : 0.9));
    chart.bars.push_back({_("as measured"), util * 100, percent(util), C_("what-if", "now"), false});
    chart.with_table = false;  // the what-if table below has the same numbers
    std::vector<std::vector<std::string>> rows{
        {"<strong>" + escape(_("as measured")) + "</strong>", escape(percent(util)),
         escape(pipeline::stage_label(str(d, "bottleneck"))), escape(C_("origin", "measured")), ""}};
    for (const auto& w : array(d, "what_if")) {
      const bool applicable = !member(w, "applicable").is_boolean() || w["applicable"].get<bool>();
      const double u = dbl(w, "predicted_gpu_utilization");
      chart.bars.push_back({str(w, "change"), u * 100, percent(u), applicable ? "" : _("not applicable"), false});
      rows.push_back({escape(str(w, "change")), escape(percent(u)), escape(pipeline::stage_label(str(w, "bottleneck"))),
                      escape(origin_word(str(w, "origin"))), escape(str(w, "detail"))});
    }
    std::string body = bar_chart(chart);
    rows.push_back({"<em>" + escape(C_("what-if", "target")) + "</em>",
                    escape(percent(std::isfinite(target) ? target : 0.9)), "", "", ""});
    body += table(
        _("What-ifs"),
        {C_("what-if", "change"), _("GPU utilization"), _("then the pace is set by"), _("origin"), _("detail")}, rows);
    out.push_back({std::string(p) + "whatif", _("What-ifs"), body});
  }
  {
    std::string body;
    for (const auto& a : array(d, "advice")) {
      body += "<article class=\"finding info\"><h3>" +
              // TRANSLATORS: an advice's heading: {0} the pipeline stage, {1} the problem.
              escape(trf("{0}: {1}", pipeline::stage_label(str(a, "stage")), str(a, "problem"))) + "</h3><p>" +
              with_code(str(a, "fix")) + "</p>";
      if (!str(a, "code").empty()) body += "<pre class=\"fix\"><code>" + escape(str(a, "code")) + "</code></pre>";
      if (!str(a, "source").empty()) body += source_line(escape(str(a, "source")));
      body += "</article>";
    }
    out.push_back({std::string(p) + "advice", _("Advice"), body.empty() ? none_paragraph() : body});
  }
  if (member(d, "run_cost").is_object() && !array(member(d, "run_cost"), "rows").empty())
    out.push_back({std::string(p) + "cost", _("Time and cost of the run"), pipeline_cost_html(d["run_cost"])});
  out.push_back({std::string(p) + "data", _("All data"), all_data(d, "pipeline")});
  return out;
}

// ---- bench ---------------------------------------------------------------

// Units where a smaller number is better (latencies); the others are rates.
bool lower_is_better(const std::string& unit) { return unit == "s" || unit == "ms" || unit == "us" || unit == "ns"; }

// A run is marked a regression when it is worse than the run before it by
// more than this share: well above the 1-5% run-to-run spread bench reports
// as cv on a quiet machine (bench/RESULTS.md).
constexpr double kRegressionShare = 0.10;

std::vector<Section> bench_sections(const json& d, std::string_view p) {
  std::vector<Section> out;
  const json& ctx = member(d, "context");
  const json& results = array(d, "results");
  {
    int ok = 0, skipped = 0, failed = 0;
    for (const auto& r : results) {
      const std::string s = str(r, "status");
      (s == "ok" ? ok : s == "skipped" ? skipped : failed)++;
    }
    const std::string cls = failed ? "error" : "ok";
    std::string body =
        verdict_box(cls, severity_badge(cls) + " " +
                             escape(trf("{} metrics measured, {} skipped, {} failed", ok, skipped, failed)));
    body += kv(
        {{_("Host"), escape(str(ctx, "hostname"))},
         {"CPU", escape(str(ctx, "cpu_model"))},
         {_("When"), escape(str(ctx, "timestamp"))},
         {_("Load average"), std::isfinite(dbl(ctx, "load_average")) ? escape(human_number(dbl(ctx, "load_average")))
                                                                     : json_value_html(member(ctx, "load_average"))}});
    // What makes the numbers noisy (a virtual machine, the load, the governor), as the terminal warns.
    for (const auto& w : array(ctx, "warnings"))
      body +=
          "<p class=\"meta\">" + escape(trf("warning: {}", w.is_string() ? w.get<std::string>() : w.dump())) + "</p>";
    std::vector<std::vector<std::string>> rows;
    for (const auto& r : results) {
      const json& prev = member(r, "previous");
      const json& exp = member(r, "expected");
      rows.push_back({escape(str(r, "id")), escape(str(r, "metric")), escape(human_number(dbl(r, "median"))),
                      escape(str(r, "unit")), escape(std::isfinite(dbl(r, "cv")) ? percent(dbl(r, "cv")) : ""),
                      severity_badge(str(r, "status") == "ok"       ? "ok"
                                     : str(r, "status") == "failed" ? "error"
                                                                    : "info") +
                          " " + escape(bench_status_word(str(r, "status"))),
                      prev.is_object() && member(prev, "change_percent").is_number()
                          ? escape(fmt::format("{:+.1f}%", prev["change_percent"].get<double>()))
                          : "",
                      exp.is_object() ? escape(human_number(dbl(exp, "value"))) : "", escape(str(r, "reason"))});
    }
    body += table(_("Every metric"),
                  {C_("bench table", "benchmark"), C_("bench table", "metric"), C_("bench table", "median"),
                   C_("bench table", "unit"), _("spread (cv)"), C_("bench table", "status"), _("vs previous run"),
                   C_("bench table", "expected"), C_("bench table", "why")},
                  rows);
    out.push_back({std::string(p) + "summary", _("Results"), body});
  }
  {
    BarChart chart;
    chart.title = _("Each metric against what the catalog expects of this hardware");
    chart.value_header = _("share of expected");
    chart.reference = 100;
    chart.reference_label = C_("bench table", "expected");
    for (const auto& r : results) {
      const json& exp = member(r, "expected");
      const double v = dbl(r, "median");
      const double e = dbl(exp, "value");
      if (!exp.is_object() || !std::isfinite(v) || !std::isfinite(e) || e <= 0) continue;
      const double share = lower_is_better(str(r, "unit")) ? e / v : v / e;
      chart.bars.push_back({str(r, "id") + " " + str(r, "metric"), share * 100, percent(share),
                            // TRANSLATORS: a benchmark result below what the catalog expects.
                            share < 0.8 ? C_("expectation", "below") : "", share < 0.8});
    }
    std::string body =
        chart.bars.empty()
            // TRANSLATORS: {} is the command tfrig bench --compare (as code).
            ? "<p>" + trf("No expectations in this run ({} adds them).", "<code>tfrig bench --compare</code>") + "</p>"
            : bar_chart(chart);
    out.push_back({std::string(p) + "expected", _("Against expectation"), body});
  }
  {
    // history: [{run_id, timestamp, id, metric, unit, median}], oldest first.
    std::map<std::string, std::vector<const json*>> series;
    std::vector<std::string> order;
    for (const auto& h : array(d, "history")) {
      const std::string key = str(h, "id") + " " + str(h, "metric");
      if (!series.count(key)) order.push_back(key);
      series[key].push_back(&h);
    }
    std::string body;
    for (const auto& key : order) {
      auto& runs = series[key];
      if (runs.size() > 20) runs.erase(runs.begin(), runs.end() - 20);
      BarChart chart;
      const std::string unit = str(*runs.front(), "unit");
      // TRANSLATORS: {0} a benchmark and metric, {1} its unit, {2} how many runs.
      chart.title = trf("{0} ({1}) over the last {2} runs on this machine", key, unit, runs.size());
      chart.value_header = unit;
      double previous = NAN;
      for (const json* h : runs) {
        const double v = dbl(*h, "median");
        Bar b;
        // TRANSLATORS: a past benchmark run: {0} its number, {1} its date.
        b.label = trf("run {0} {1}", member(*h, "run_id").dump(), str(*h, "timestamp").substr(0, 10));
        b.value = v;
        b.value_text = human_number(v);
        if (std::isfinite(previous) && previous > 0 && std::isfinite(v)) {
          const double change = v / previous - 1;
          const bool worse = lower_is_better(unit) ? change > kRegressionShare : change < -kRegressionShare;
          if (worse) {
            b.mark = trf("regression {:+.0f}%", change * 100);
            b.highlight = true;
          }
        }
        previous = v;
        chart.bars.push_back(std::move(b));
      }
      body += bar_chart(chart);
    }
    if (body.empty())
      body = "<p>" + escape(_("No history in this input.")) + "</p>";
    else
      body = "<p class=\"meta\">" +
             escape(trf("A regression: worse than the run before by more than {:.0f}%.", kRegressionShare * 100)) +
             "</p>" + body;
    out.push_back({std::string(p) + "history", _("History"), body});
  }
  out.push_back({std::string(p) + "data", _("All data"), all_data(d, "bench")});
  return out;
}

// ---- watch ---------------------------------------------------------------

// A watch verdict ("io_bound") for people: the terminal's phrase in Chinese
// (watch::verdict_label), the JSON name with spaces in English ("io bound").
std::string verdict_words(const std::string& v) {
  std::string out = v;
  if (auto verdict = watch::verdict_from_name(v)) out = watch::verdict_label(*verdict);
  if (out == v) std::replace(out.begin(), out.end(), '_', ' ');
  return out;
}

std::vector<Section> watch_sections(const json& d, std::string_view p) {
  std::vector<Section> out;
  const json& run = member(d, "run");
  {
    // The verdict itself is the badge's word; its colour from the severity
    // (none without a GPU watched: then it describes the work, an info).
    const std::string verdict = str(d, "verdict");
    const std::string sev = member(d, "severity").is_string() ? str(d, "severity")
                            : verdict == "compute_bound"      ? "ok"
                                                              : "info";
    std::string body =
        verdict_box(sev, "<span class=\"sev " + escape(anchor(sev)) + "\">" + escape(verdict_words(verdict)) +
                             "</span> " + escape(str(d, "explanation")));
    if (!str(d, "fix").empty()) body += "<h4>" + escape(_("Fix")) + "</h4><p>" + with_code(str(d, "fix")) + "</p>";
    body += kv(
        // TRANSLATORS: {0} how many samples, {1} the seconds between two.
        {{_("Watched"), escape(str(run, "command").empty() ? "pid " + member(run, "pid").dump() : str(run, "command"))},
         {_("Started"), escape(str(run, "started_utc"))},
         {_("Samples"),
          trf("{0} every {1} s", json_value_html(member(d, "samples")), json_value_html(member(run, "interval_s")))},
         {_("GPUs"), escape(member(d, "gpu_watched").is_boolean() && d["gpu_watched"].get<bool>()
                                ? C_("watch GPUs", "watched")
                                : _(str(run, "gpu_status")))},  // stored English (watch/monitor.cpp)
         {_("Source"), escape(str(run, "source"))}});
    out.push_back({std::string(p) + "verdict", _("Verdict"), body});
  }
  {
    LineChart chart;
    chart.title = _("Utilization over time, phases shaded with their verdicts");
    const json& series = member(d, "series");
    for (const auto& t : array(series, "t")) chart.x.push_back(t.is_number() ? t.get<double>() : NAN);
    auto to_values = [](const json& a) {
      std::vector<double> v;
      for (const auto& e : a) v.push_back(e.is_number() ? e.get<double>() : NAN);
      return v;
    };
    const json& gpu = array(series, "gpu_util_percent");
    for (size_t g = 0; g < gpu.size(); ++g) chart.lines.push_back({fmt::format("GPU {}", g), to_values(gpu[g])});
    if (series.contains("cpu_busy_percent"))
      chart.lines.push_back({_("CPU busy"), to_values(series["cpu_busy_percent"])});
    if (series.contains("disk_util_percent"))
      chart.lines.push_back({_("disk busy"), to_values(series["disk_util_percent"])});
    for (const auto& ph : array(d, "phases")) {
      chart.bands.push_back({dbl(ph, "start_s"), dbl(ph, "end_s"), verdict_words(str(ph, "verdict"))});
    }
    if (chart.x.empty()) {
      // Only the analysis (a --format json file): the phases on their time line.
      for (const auto& b : chart.bands) {
        chart.x.push_back(b.start);
        chart.x.push_back(b.end);
      }
    }
    std::string body = line_chart(chart);
    std::vector<std::vector<std::string>> rows;
    for (const auto& ph : array(d, "phases")) {
      rows.push_back({escape(fmt::format("{:.2f}-{:.2f} s", dbl(ph, "start_s"), dbl(ph, "end_s"))),
                      escape(verdict_words(str(ph, "verdict"))), json_value_html(member(ph, "gpu_util_percent")),
                      escape(percent(dbl(ph, "cpu_busy_share"))),
                      escape(human_number(dbl(ph, "read_bytes_per_s") / 1e6)) + " MB/s", escape(str(ph, "why"))});
    }
    body += table(_("Phases"),
                  {C_("phase table", "time"), C_("phase table", "verdict"), _("GPU busy %"), _("CPU busy"),
                   C_("phase table", "read"), C_("phase table", "why")},
                  rows);
    out.push_back({std::string(p) + "timeline", _("Over time"), body});
  }
  json rest = d;
  if (rest.is_object()) rest.erase("series");
  out.push_back({std::string(p) + "data", _("All data"), all_data(rest, "watch")});
  return out;
}

// ---- fleet ---------------------------------------------------------------

std::vector<Section> fleet_sections(const json& d, std::string_view p) {
  std::vector<Section> out;
  const json& nodes = array(d, "nodes");
  {
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
    if (!member(d, "baseline").is_null())
      body += "<p>" + trf("Baseline: {}", json_html(member(d, "baseline"))) + "</p>";
    out.push_back({std::string(p) + "summary", _("Fleet"), body});
  }
  {
    // Facts as rows, nodes as columns: a differing cell is marked with a word
    // and a background, never the colour alone.
    std::vector<std::string> header{C_("fleet table", "fact"), C_("fleet table", "expected")};
    for (const auto& n : nodes) header.push_back(str(n, "node"));
    std::vector<std::vector<std::string>> rows;
    for (const auto& f : array(d, "drift")) {
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
      rows.push_back(std::move(row));
    }
    std::string body =
        "<p class=\"meta\">" + escape(_("= : the expected value; \u2260 : this node differs (highlighted).")) + "</p>";
    body += rows.empty() ? "<p>" + escape(_("No drift: every node has the same facts.")) + "</p>"
                         : table(_("Nodes \u00d7 facts"), header, rows, "drift-matrix");
    // The highlight: the cells holding a differing value.
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
    out.push_back({std::string(p) + "drift", _("Drift"), marked});
  }
  {
    std::vector<std::vector<std::string>> rows;
    for (const auto& f : array(d, "findings")) {
      std::string where;
      for (const auto& n : array(f, "nodes")) {
        where += (where.empty() ? "" : "; ") + escape(str(n, "node")) + " (" + escape(str(n, "entities")) + ")";
      }
      rows.push_back({severity_badge(str(f, "severity")), escape(str(f, "title")),
                      "<code>" + escape(str(f, "rule_id")) + "</code>", json_value_html(member(f, "node_count")),
                      where});
    }
    out.push_back({std::string(p) + "findings", _("Findings across nodes"),
                   rows.empty()
                       ? "<p>" + escape(_("No findings.")) + "</p>"
                       : table("",
                               {C_("fleet table", "severity"), C_("fleet table", "finding"), C_("fleet table", "rule"),
                                C_("fleet table", "nodes"), C_("fleet table", "where")},
                               rows)});
  }
  {
    std::vector<std::vector<std::string>> rows;
    for (const auto& n : array(d, "odd_nodes")) {
      rows.push_back({json_value_html(member(n, "rank")), escape(str(n, "node")), json_value_html(member(n, "score")),
                      escape(std::to_string(array(n, "differences").size())),
                      escape(std::to_string(array(n, "findings").size()))});
    }
    out.push_back({std::string(p) + "odd", _("The odd nodes out"),
                   rows.empty()
                       ? none_paragraph()
                       : table("",
                               {C_("fleet table", "rank"), C_("fleet table", "node"), C_("fleet table", "score"),
                                C_("fleet table", "differences"), C_("fleet table", "findings")},
                               rows)});
  }
  out.push_back({std::string(p) + "data", _("All data"), all_data(d, "fleet")});
  return out;
}

std::string page_title(const Document& doc) {
  const json& d = doc.data;
  switch (doc.kind) {
    case PageKind::kDoctor: {
      const std::string host = str(member(member(d, "inventory"), "host"), "hostname");
      // TRANSLATORS: page titles: a tfrig command, then what the page is about (a host, a model, a folder).
      return trf("tfrig doctor: {}", host.empty() ? doc.label : host);
    }
    case PageKind::kPlan: return trf("tfrig plan: {}", str(member(d, "model"), "name"));
    case PageKind::kPipeline: return trf("tfrig pipeline: {}", str(d, "data_dir"));
    case PageKind::kBench: return trf("tfrig bench: {}", str(member(d, "context"), "hostname"));
    case PageKind::kWatch: return trf("tfrig watch: {}", verdict_words(str(d, "verdict")));
    case PageKind::kFleet: return trf("tfrig fleet: {} nodes", array(d, "nodes").size());
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
    case PageKind::kDoctor: return doctor_sections(doc.data, prefix);
    case PageKind::kPlan: return plan_sections(doc.data, prefix);
    case PageKind::kPipeline: return pipeline_sections(doc.data, prefix);
    case PageKind::kBench: return bench_sections(doc.data, prefix);
    case PageKind::kWatch: return watch_sections(doc.data, prefix);
    case PageKind::kFleet: return fleet_sections(doc.data, prefix);
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

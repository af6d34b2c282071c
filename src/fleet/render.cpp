#include "fleet/render.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/display_width.h"
#include "core/terminal_text.h"
#include "core/i18n.h"
#include "report/severity_paint.h"

namespace tfrig::fleet {

namespace {

std::string paint(bool color, rules::Severity s, const std::string& text) { return report::paint_severity(color, s, text); }

std::string bold(bool color, const std::string& text) { return color ? "\033[1m" + text + "\033[0m" : text; }

template <class T, class F>
std::string listed(const std::vector<T>& items, size_t max, F show) {
  std::string out;
  for (size_t i = 0; i < items.size() && i < max; ++i) out += (i ? ", " : "") + show(items[i]);
  // TRANSLATORS: ends a list of node names cut short ("node1, node2, and 5 more").
  if (items.size() > max) out += trf(", and {} more", items.size() - max);
  return out;
}

// "0.1.0 on 38, 0.0.9 on 2"
std::string versions_line(const std::vector<Node>& nodes) {
  std::map<std::string, size_t> tools;
  for (const auto& n : nodes) ++tools[n.tool_version.empty() ? _("unknown") : n.tool_version];
  std::string out;
  for (const auto& [v, count] : tools) {
    // TRANSLATORS: a tfrig version and how many nodes' snapshots it wrote ("0.1.0 on 38").
    const std::string pattern = C_("tool version on nodes", "{0} on {1}");
    out += (out.empty() ? "" : ", ") + core::i18n::format_translated(pattern, "{0} on {1}", fmt::make_format_args(v, count));
  }
  return out;
}

std::string heading(const FleetReport& r) {
  const size_t total = r.nodes.size() + r.unreadable.size();
  if (r.baseline) {
    return trnf("tfrig fleet {0} - {1} node ({2} read, {3} unreadable), compared with the baseline {4}",
                "tfrig fleet {0} - {1} nodes ({2} read, {3} unreadable), compared with the baseline {4}", total,
                TFRIG_VERSION, total, r.nodes.size(), r.unreadable.size(), *r.baseline);
  }
  return trnf("tfrig fleet {0} - {1} node ({2} read, {3} unreadable)", "tfrig fleet {0} - {1} nodes ({2} read, {3} unreadable)",
              total, TFRIG_VERSION, total, r.nodes.size(), r.unreadable.size());
}

// Where the expected value comes from, with how many nodes have it.
std::string expected_line(const FleetReport& r, const Drift& d) {
  if (r.baseline) return trf("baseline: on {0} of the {1} nodes that state it", d.expected_nodes, d.known_nodes);
  if (d.expected_nodes * 2 > d.known_nodes) {
    return trf("majority: on {0} of the {1} nodes that state it", d.expected_nodes, d.known_nodes);
  }
  return trf("most common (no majority): on {0} of the {1} nodes that state it", d.expected_nodes, d.known_nodes);
}

// The severity in the reader's language, padded to the widest one (by display width).
std::string severity_cell(rules::Severity s) {
  size_t width = 0;
  for (auto each : {rules::Severity::kError, rules::Severity::kWarning, rules::Severity::kInfo}) {
    width = std::max(width, core::display_width(_(rules::severity_name(each))));
  }
  return core::pad_right(_(rules::severity_name(s)), width);
}

}  // namespace

// Node names are file names and values come from the nodes' snapshots: each
// goes through core::terminal_line (one line, no control bytes), the whole
// text through core::terminal_text.
std::string render_text(const FleetReport& r, const RenderOptions& o) {
  const auto L = [](const std::string& s) { return core::terminal_line(s); };
  std::string out = L(heading(r)) + "\n";
  if (!r.nodes.empty()) out += L(trf("snapshots written by tfrig {}", versions_line(r.nodes))) + "\n";

  // TRANSLATORS: a section of `tfrig fleet`: facts whose value differs between nodes.
  out += "\n" + bold(o.color, _("Drift")) + "\n";
  if (r.drift.empty()) out += "  " + _("every compared fact is the same on every node") + "\n";
  for (const auto& d : r.drift) {
    // TRANSLATORS: a fact's id (gpu.pcie_link[gpu1]) and what it is.
    out += "  " + trf("{0}  ({1})", paint(o.color, rules::Severity::kWarning, L(d.fact)), L(d.title)) + "\n";
    out += "      " + expected_line(r, d) + "\n";
    out += fmt::format("      = {}\n", L(d.expected));
    // Group the differing nodes by value.
    std::map<std::string, std::vector<std::string>> by_value;
    for (const auto& nv : d.differing) by_value[nv.value].push_back(nv.node);
    for (const auto& [value, nodes] : by_value) {
      // TRANSLATORS: a value that differs from the fleet's, how many nodes have it, and which.
      out += "      ! " + L(trf("{0} on {1}: {2}", value, nodes.size(),
                                 listed(nodes, o.max_nodes_listed, [](const std::string& s) { return s; }))) + "\n";
    }
  }

  out += "\n" + bold(o.color, _("Findings across the fleet")) + "\n";
  if (r.findings.empty()) out += "  " + _("no rule fires on any node") + "\n";
  for (const auto& f : r.findings) {
    // TRANSLATORS: how many nodes a rule fires on, of all nodes read; keep the widths (>5, <5).
    const std::string count = trf("{0:>5} of {1:<5}", f.nodes.size(), r.nodes.size());
    // The rule's lines hang under its id, in both languages (the severity
    // column is as wide as the language's longest word).
    const std::string prefix = fmt::format("  {} {} ", paint(o.color, f.severity, severity_cell(f.severity)), count);
    const std::string indent(core::display_width(prefix), ' ');
    out += core::wrap_hanging(prefix, fmt::format("{}  {}{}", L(f.rule_id), L(f.title), f.on_baseline ? _(" (also on the baseline)") : std::string()),
                              o.width) + "\n";
    if (f.nodes.size() < r.nodes.size() || r.nodes.size() == 1) {
      out += core::wrap_hanging(indent, L(listed(f.nodes, o.max_nodes_listed, [](const NodeEntity& n) {
               return n.entities == "host" ? n.node : n.node + " (" + n.entities + ")";
             })), o.width) + "\n";
    } else {
      out += indent + _("every node") + "\n";
    }
  }

  // TRANSLATORS: a section of `tfrig fleet`: the nodes that differ most from the rest (outliers).
  out += "\n" + bold(o.color, _("Odd nodes out")) + "\n";
  if (r.odd_nodes.empty()) out += "  " + _("none: no node differs from the rest") + "\n";
  int rank = 0;
  for (const auto& n : r.odd_nodes) {
    if (static_cast<size_t>(rank) == o.max_odd_nodes) {
      out += "  " + trf("... and {} more (`--format json` lists every one)", r.odd_nodes.size() - o.max_odd_nodes) + "\n";
      break;
    }
    // TRANSLATORS: rank, node name, and how far it is from the rest (errors weigh 9, warnings 3, infos 1).
    out += "  " + trf("{0}. {1}  (score {2})", ++rank, bold(o.color, L(n.node)), n.score) + "\n";
    // TRANSLATORS: a fact, this node's value, and the value of the rest of the fleet.
    for (const auto& d : n.differences) out += "       " + L(trf("{0}: {1} (fleet: {2})", d.fact, d.value, d.expected)) + "\n";
    for (const auto& id : n.findings) out += "       " + L(trf("{} fires here", id)) + "\n";
    for (const auto& fix : n.fixes) out += "       " + L(trf("fix: {}", fix)) + "\n";
  }

  if (!r.unreadable.empty()) {
    out += "\n" + bold(o.color, _("Unreadable")) + "\n";
    for (const auto& u : r.unreadable) out += "  " + L(u.name + ": " + u.error) + "\n";
  }
  bool noted = false;
  for (const auto& n : r.nodes) {
    // An imported node's only notes say how it was imported: JSON keeps them.
    if (n.source == "import") continue;
    for (const auto& note : n.notes) {
      if (!noted) out += "\n" + bold(o.color, _("Notes")) + "\n";
      noted = true;
      out += "  " + L(n.name + ": " + note) + "\n";
    }
  }
  // The other lines wrap under their own indent and marker.
  return core::terminal_text(core::wrap_lines(out, o.width), o.color);
}

namespace {

using nlohmann::json;

std::string dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

// Appends `"key": [ e0, e1, ... ]`, each element made and dumped on its own
// so that a report on 10,000 nodes never exists as one JSON tree.
template <class T, class F>
void append_array(std::string& out, const char* key, const std::vector<T>& items, F make) {
  out += fmt::format(",\n \"{}\": [", key);
  for (size_t i = 0; i < items.size(); ++i) out += (i ? ",\n  " : "\n  ") + dump(make(items[i], i));
  out += items.empty() ? "]" : "\n ]";
}

}  // namespace

std::string render_json(const FleetReport& r) {
  std::string out = "{\n \"schema_version\": 1";
  out += ",\n \"tool_version\": " + dump(TFRIG_VERSION);
  out += ",\n \"baseline\": " + (r.baseline ? dump(*r.baseline) : std::string("null"));
  out += ",\n \"worst\": " + (r.any_problem ? dump(std::string(rules::severity_name(r.worst))) : std::string("null"));
  out += ",\n \"node_count\": " + std::to_string(r.nodes.size() + r.unreadable.size());
  append_array(out, "nodes", r.nodes, [](const Node& n, size_t) {
    return json{{"node", n.name},
                {"file", n.file},
                {"hostname", n.hostname.empty() ? json(nullptr) : json(n.hostname)},
                {"source", n.source},
                {"schema_version", n.schema_version},
                {"tool_version", n.tool_version},
                {"notes", n.notes},
                {"summary", {{"error", n.summary.errors}, {"warning", n.summary.warnings}, {"info", n.summary.infos}}}};
  });
  append_array(out, "unreadable", r.unreadable, [](const Unreadable& u, size_t) {
    return json{{"node", u.name}, {"file", u.file}, {"error", u.error}};
  });
  append_array(out, "drift", r.drift, [](const Drift& d, size_t) {
    json differing = json::array();
    for (const auto& nv : d.differing) differing.push_back({{"node", nv.node}, {"value", nv.value}});
    return json{{"fact", d.fact},
                {"kind", d.kind},
                {"scope", d.scope.empty() ? json(nullptr) : json(d.scope)},
                {"title", d.title},
                {"expected", d.expected},
                {"expected_nodes", d.expected_nodes},
                {"known_nodes", d.known_nodes},
                {"differing", differing}};
  });
  append_array(out, "findings", r.findings, [](const FindingAcross& f, size_t) {
    json on = json::array();
    for (const auto& n : f.nodes) on.push_back({{"node", n.node}, {"entities", n.entities}});
    return json{{"rule_id", f.rule_id},
                {"severity", rules::severity_name(f.severity)},
                {"title", f.title},
                {"node_count", f.nodes.size()},
                {"nodes", on},
                {"on_baseline", f.on_baseline}};
  });
  append_array(out, "odd_nodes", r.odd_nodes, [](const OddNode& n, size_t i) {
    json diffs = json::array();
    for (const auto& d : n.differences) diffs.push_back({{"fact", d.fact}, {"value", d.value}, {"expected", d.expected}});
    return json{{"rank", i + 1}, {"node", n.node},         {"score", n.score},
                {"differences", diffs}, {"findings", n.findings}, {"fixes", n.fixes}};
  });
  out += "\n}\n";
  return out;
}

}  // namespace tfrig::fleet

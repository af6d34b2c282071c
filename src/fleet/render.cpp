#include "fleet/render.h"

#include <map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "report/severity_paint.h"

namespace tfrig::fleet {

namespace {

std::string paint(bool color, rules::Severity s, const std::string& text) { return report::paint_severity(color, s, text); }

std::string bold(bool color, const std::string& text) { return color ? "\033[1m" + text + "\033[0m" : text; }

template <class T, class F>
std::string listed(const std::vector<T>& items, size_t max, F show) {
  std::string out;
  for (size_t i = 0; i < items.size() && i < max; ++i) out += (i ? ", " : "") + show(items[i]);
  if (items.size() > max) out += fmt::format(", and {} more", items.size() - max);
  return out;
}

// "0.1.0 on 38, 0.0.9 on 2"
std::string versions_line(const std::vector<Node>& nodes) {
  std::map<std::string, size_t> tools;
  for (const auto& n : nodes) ++tools[n.tool_version.empty() ? "unknown" : n.tool_version];
  std::string out;
  for (const auto& [v, count] : tools) out += fmt::format("{}{} on {}", out.empty() ? "" : ", ", v, count);
  return out;
}

}  // namespace

std::string render_text(const FleetReport& r, const RenderOptions& o) {
  const size_t total = r.nodes.size() + r.unreadable.size();
  std::string out = fmt::format("tfrig fleet {} - {} node{} ({} read, {} unreadable){}\n", TFRIG_VERSION, total,
                                total == 1 ? "" : "s", r.nodes.size(), r.unreadable.size(),
                                r.baseline ? ", compared with the baseline " + *r.baseline : "");
  if (!r.nodes.empty()) out += "snapshots written by tfrig " + versions_line(r.nodes) + "\n";

  out += "\n" + bold(o.color, "Drift") + "\n";
  if (r.drift.empty()) out += "  every compared fact is the same on every node\n";
  for (const auto& d : r.drift) {
    out += fmt::format("  {}  ({})\n", paint(o.color, rules::Severity::kWarning, d.fact), d.title);
    const char* label = r.baseline ? "baseline" : d.expected_nodes * 2 > d.known_nodes ? "majority" : "most common (no majority)";
    out += fmt::format("      {}: on {} of the {} nodes that state it\n", label, d.expected_nodes, d.known_nodes);
    out += fmt::format("      {}\n", fmt::format("= {}", d.expected));
    // Group the differing nodes by value.
    std::map<std::string, std::vector<std::string>> by_value;
    for (const auto& nv : d.differing) by_value[nv.value].push_back(nv.node);
    for (const auto& [value, nodes] : by_value) {
      out += fmt::format("      ! {} on {}: {}\n", value, nodes.size(),
                         listed(nodes, o.max_nodes_listed, [](const std::string& s) { return s; }));
    }
  }

  out += "\n" + bold(o.color, "Findings across the fleet") + "\n";
  if (r.findings.empty()) out += "  no rule fires on any node\n";
  for (const auto& f : r.findings) {
    out += fmt::format("  {} {:>5} of {:<5} {}  {}{}\n", paint(o.color, f.severity, fmt::format("{:<7}", rules::severity_name(f.severity))),
                       f.nodes.size(), r.nodes.size(), f.rule_id, f.title, f.on_baseline ? " (also on the baseline)" : "");
    if (f.nodes.size() < r.nodes.size() || r.nodes.size() == 1) {
      out += "          " + listed(f.nodes, o.max_nodes_listed, [](const NodeEntity& n) {
               return n.entities == "host" ? n.node : n.node + " (" + n.entities + ")";
             }) + "\n";
    } else {
      out += "          every node\n";
    }
  }

  out += "\n" + bold(o.color, "Odd nodes out") + "\n";
  if (r.odd_nodes.empty()) out += "  none: no node differs from the rest\n";
  int rank = 0;
  for (const auto& n : r.odd_nodes) {
    if (static_cast<size_t>(rank) == o.max_odd_nodes) {
      out += fmt::format("  ... and {} more (`--format json` lists every one)\n", r.odd_nodes.size() - o.max_odd_nodes);
      break;
    }
    out += fmt::format("  {}. {}  (score {})\n", ++rank, bold(o.color, n.node), n.score);
    for (const auto& d : n.differences) out += fmt::format("       {}: {} (fleet: {})\n", d.fact, d.value, d.expected);
    for (const auto& id : n.findings) out += fmt::format("       {} fires here\n", id);
    for (const auto& fix : n.fixes) out += fmt::format("       fix: {}\n", fix);
  }

  if (!r.unreadable.empty()) {
    out += "\n" + bold(o.color, "Unreadable") + "\n";
    for (const auto& u : r.unreadable) out += fmt::format("  {}: {}\n", u.name, u.error);
  }
  bool noted = false;
  for (const auto& n : r.nodes) {
    for (const auto& note : n.notes) {
      if (note.rfind("imported", 0) == 0) continue;
      if (!noted) out += "\n" + bold(o.color, "Notes") + "\n";
      noted = true;
      out += fmt::format("  {}: {}\n", n.name, note);
    }
  }
  return out;
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

#include "fleet/render.h"

#include <algorithm>
#include <map>
#include <string_view>
#include <type_traits>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/display_width.h"
#include "core/escape.h"
#include "core/terminal_text.h"
#include "core/i18n.h"
#include "report/severity_paint.h"

namespace tfrig::fleet {

namespace {

std::string paint(bool color, rules::Severity s, const std::string& text) {
  return report::paint_severity(color, s, text);
}

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
    out += (out.empty() ? "" : ", ") +
           core::i18n::format_translated(pattern, "{0} on {1}", fmt::make_format_args(v, count));
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
  return trnf("tfrig fleet {0} - {1} node ({2} read, {3} unreadable)",
              "tfrig fleet {0} - {1} nodes ({2} read, {3} unreadable)", total, TFRIG_VERSION, total, r.nodes.size(),
              r.unreadable.size());
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

// A node's read error in a language (one built by hand has only its English).
std::string unreadable_in(const Unreadable& u, std::string_view language) {
  return u.message.empty() ? u.error : core::render(u.message, language);
}

// A value of a node's snapshot as one line of text (no control bytes).
std::string line_of(const std::string& s) { return core::terminal_line(s); }

// The facts whose value differs between nodes, each with the nodes grouped by value.
std::string drift_section(const FleetReport& r, const RenderOptions& o, const std::string& language) {
  std::string out;
  // TRANSLATORS: a section of `tfrig fleet`: facts whose value differs between nodes.
  out += "\n" + bold(o.color, _("Drift")) + "\n";
  if (r.drift.empty()) out += "  " + _("every compared fact is the same on every node") + "\n";
  for (const auto& d : r.drift) {
    const std::string fact = paint(o.color, rules::Severity::kWarning, line_of(d.fact));
    // TRANSLATORS: a fact's id (gpu.pcie_link[gpu1]) and what it is.
    out += "  " + trf("{0}  ({1})", fact, line_of(title_in(d.title, language))) + "\n";
    out += "      " + expected_line(r, d) + "\n";
    out += fmt::format("      = {}\n", line_of(fact_value_in(d.expected, d.expected_message, language)));
    // Group the differing nodes by value (its English), shown in the reader's language.
    std::map<std::string, std::vector<std::string>> by_value;
    std::map<std::string, std::string> shown;
    for (const auto& nv : d.differing) {
      by_value[nv.value].push_back(nv.node);
      shown.emplace(nv.value, fact_value_in(nv.value, nv.value_message, language));
    }
    for (const auto& [english_value, nodes] : by_value) {
      const std::string& value = shown[english_value];
      const std::string names = listed(nodes, o.max_nodes_listed, [](const std::string& s) { return s; });
      // TRANSLATORS: a value that differs from the fleet's, how many nodes have it, and which.
      out += "      ! " + line_of(trf("{0} on {1}: {2}", value, nodes.size(), names)) + "\n";
    }
  }
  return out;
}

// The rules that fire on some node, with the nodes they fire on.
std::string findings_section(const FleetReport& r, const RenderOptions& o, const std::string& language) {
  std::string out;
  out += "\n" + bold(o.color, _("Findings across the fleet")) + "\n";
  if (r.findings.empty()) out += "  " + _("no rule fires on any node") + "\n";
  for (const auto& f : r.findings) {
    // TRANSLATORS: how many nodes a rule fires on, of all nodes read; keep the widths (>5, <5).
    const std::string count = trf("{0:>5} of {1:<5}", f.nodes.size(), r.nodes.size());
    // The rule's lines hang under its id, in both languages (the severity
    // column is as wide as the language's longest word).
    const std::string prefix = fmt::format("  {} {} ", paint(o.color, f.severity, severity_cell(f.severity)), count);
    const std::string indent(core::display_width(prefix), ' ');
    out += core::wrap_hanging(prefix,
                              fmt::format("{}  {}{}", line_of(f.rule_id), line_of(title_in(f.title, language)),
                                          f.on_baseline ? _(" (also on the baseline)") : std::string()),
                              o.width) +
           "\n";
    if (f.nodes.size() < r.nodes.size() || r.nodes.size() == 1) {
      out +=
          core::wrap_hanging(indent,
                             line_of(listed(f.nodes, o.max_nodes_listed,
                                            [](const NodeEntity& n) {
                                              return n.entities == "host" ? n.node : n.node + " (" + n.entities + ")";
                                            })),
                             o.width) +
          "\n";
    } else {
      out += indent + _("every node") + "\n";
    }
  }
  return out;
}

// The nodes that differ most from the rest, by rank, at most o.max_odd_nodes of them.
std::string odd_nodes_section(const FleetReport& r, const RenderOptions& o, const std::string& language) {
  std::string out;
  // TRANSLATORS: a section of `tfrig fleet`: the nodes that differ most from the rest (outliers).
  out += "\n" + bold(o.color, _("Odd nodes out")) + "\n";
  if (r.odd_nodes.empty()) out += "  " + _("none: no node differs from the rest") + "\n";
  int rank = 0;
  for (const auto& n : r.odd_nodes) {
    if (static_cast<size_t>(rank) == o.max_odd_nodes) {
      out +=
          "  " + trf("... and {} more (`--format json` lists every one)", r.odd_nodes.size() - o.max_odd_nodes) + "\n";
      break;
    }
    // TRANSLATORS: rank, node name, and how far it is from the rest (errors weigh 9, warnings 3, infos 1).
    out += "  " + trf("{0}. {1}  (score {2})", ++rank, bold(o.color, line_of(n.node)), n.score) + "\n";
    for (const auto& d : n.differences) {
      const std::string value = fact_value_in(d.value, d.value_message, language);
      const std::string expected = fact_value_in(d.expected, d.expected_message, language);
      // TRANSLATORS: a fact, this node's value, and the value of the rest of the fleet.
      out += "       " + line_of(trf("{0}: {1} (fleet: {2})", d.fact, value, expected)) + "\n";
    }
    for (const auto& id : n.findings) out += "       " + line_of(trf("{} fires here", id)) + "\n";
    for (const auto& fix : fixes_in(n, language)) out += "       " + line_of(trf("fix: {}", fix)) + "\n";
  }
  return out;
}

// The nodes that could not be read, and the notes of those that were.
std::string unreadable_and_notes(const FleetReport& r, const RenderOptions& o, const std::string& language) {
  std::string out;
  if (!r.unreadable.empty()) {
    out += "\n" + bold(o.color, _("Unreadable")) + "\n";
    for (const auto& u : r.unreadable) out += "  " + line_of(u.name + ": " + unreadable_in(u, language)) + "\n";
  }
  bool noted = false;
  for (const auto& n : r.nodes) {
    // An imported node's only notes say how it was imported: JSON keeps them.
    if (n.source == "import") continue;
    for (const auto& note : n.notes) {
      if (!noted) out += "\n" + bold(o.color, _("Notes")) + "\n";
      noted = true;
      out += "  " + line_of(n.name + ": " + core::render(note, language)) + "\n";
    }
  }
  return out;
}

}  // namespace

// Node names are file names and values come from the nodes' snapshots: each
// goes through core::terminal_line (one line, no control bytes), the whole
// text through core::terminal_text.
std::string render_text(const FleetReport& r, const RenderOptions& o) {
  const std::string language(core::i18n::language());
  std::string out = line_of(heading(r)) + "\n";
  if (!r.nodes.empty()) out += line_of(trf("snapshots written by tfrig {}", versions_line(r.nodes))) + "\n";
  out += drift_section(r, o, language);
  out += findings_section(r, o, language);
  out += odd_nodes_section(r, o, language);
  out += unreadable_and_notes(r, o, language);
  // The other lines wrap under their own indent and marker.
  return core::terminal_text(core::wrap_lines(out, o.width), o.color);
}

namespace {

// The JSON document is written straight into one string, element by element,
// in the bytes nlohmann-json's dump(-1) wrote before (objects' keys in sorted
// order, as its std::map kept them): building each element as nlohmann values
// first was a fifth of `tfrig fleet`'s time at 3,000 nodes (bench/RESULTS.md,
// fleet). tests/fleet/fleet_test.cpp checks the bytes against nlohmann's.

// A string as nlohmann's dump (ensure_ascii off, error_handler replace) writes
// it: '"', '\\' and the C0 controls escaped, everything else as it is. A
// string that is not valid UTF-8 (which core::is_valid_utf8 judges as
// strictly as nlohmann's decoder) is left to nlohmann, whose replacement of
// the bad bytes by U+FFFD is then exactly what it was.
void put_string(std::string& out, std::string_view s) {
  if (!core::is_valid_utf8(s)) {
    out += nlohmann::json(std::string(s)).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    return;
  }
  static constexpr char kHex[] = "0123456789abcdef";
  out += '"';
  size_t run = 0;  // start of the bytes not yet copied
  for (size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    out.append(s.substr(run, i - run));
    run = i + 1;
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        out += "\\u00";
        out += kHex[c >> 4];
        out += kHex[c & 15];
    }
  }
  out.append(s.substr(run));
  out += '"';
}

// `"key":` then the value; keys are written in sorted order by the callers.
void put_key(std::string& out, const char* key, bool first = false) {
  if (!first) out += ',';
  out += '"';
  out += key;
  out += "\":";
}

void put_field(std::string& out, const char* key, std::string_view value, bool first = false) {
  put_key(out, key, first);
  put_string(out, value);
}

template <class N>
requires std::is_integral_v<N>
void put_field(std::string& out, const char* key, N value, bool first = false) {
  put_key(out, key, first);
  out += std::to_string(value);
}

void put_field(std::string& out, const char* key, bool value, bool first = false) {
  put_key(out, key, first);
  out += value ? "true" : "false";
}

// A string, or null when it is empty.
void put_field_or_null(std::string& out, const char* key, const std::string& value, bool first = false) {
  put_key(out, key, first);
  if (value.empty()) {
    out += "null";
  } else {
    put_string(out, value);
  }
}

// `[e0,e1,...]`, each element written by put(out, element).
template <class T, class F>
void put_list(std::string& out, const std::vector<T>& items, F put) {
  out += '[';
  for (size_t i = 0; i < items.size(); ++i) {
    if (i) out += ',';
    put(out, items[i]);
  }
  out += ']';
}

void put_strings(std::string& out, const char* key, const std::vector<std::string>& items) {
  put_key(out, key);
  put_list(out, items, [](std::string& o, const std::string& s) { put_string(o, s); });
}

// Appends `"key": [ e0, e1, ... ]`, one element a line, each written by
// put(out, element, index) as one compact object.
template <class T, class F>
void append_array(std::string& out, const char* key, const std::vector<T>& items, F put) {
  out += ",\n \"";
  out += key;
  out += "\": [";
  for (size_t i = 0; i < items.size(); ++i) {
    out += i ? ",\n  " : "\n  ";
    out += '{';
    put(out, items[i], i);
    out += '}';
  }
  out += items.empty() ? "]" : "\n ]";
}

// One element of each array, keys in sorted order.
void put_node(std::string& o, const Node& n, std::string_view language) {
  put_field(o, "file", n.file, true);
  put_field_or_null(o, "hostname", n.hostname);
  put_field(o, "node", n.name);
  put_key(o, "notes");
  put_list(o, n.notes,
           [language](std::string& o2, const core::Message& note) { put_string(o2, core::render(note, language)); });
  put_field(o, "schema_version", n.schema_version);
  put_field(o, "source", n.source);
  put_key(o, "summary");
  o += '{';
  put_field(o, "error", n.summary.errors, true);
  put_field(o, "info", n.summary.infos);
  put_field(o, "warning", n.summary.warnings);
  o += '}';
  put_field(o, "tool_version", n.tool_version);
}

void put_unreadable(std::string& o, const Unreadable& u, std::string_view language) {
  put_field(o, "error", unreadable_in(u, language), true);
  put_field(o, "file", u.file);
  put_field(o, "node", u.name);
}

void put_drift(std::string& o, const Drift& d, std::string_view language) {
  put_key(o, "differing", true);
  put_list(o, d.differing, [language](std::string& o2, const NodeValue& nv) {
    o2 += '{';
    put_field(o2, "node", nv.node, true);
    put_field(o2, "value", fact_value_in(nv.value, nv.value_message, language));
    o2 += '}';
  });
  put_field(o, "expected", fact_value_in(d.expected, d.expected_message, language));
  put_field(o, "expected_nodes", d.expected_nodes);
  put_field(o, "fact", d.fact);
  put_field(o, "kind", d.kind);
  put_field(o, "known_nodes", d.known_nodes);
  put_field_or_null(o, "scope", d.scope);
  put_field(o, "title", title_in(d.title, language));
}

void put_finding_across(std::string& o, const FindingAcross& f, std::string_view language) {
  put_field(o, "node_count", f.nodes.size(), true);
  put_key(o, "nodes");
  put_list(o, f.nodes, [](std::string& o2, const NodeEntity& n) {
    o2 += '{';
    put_field(o2, "entities", n.entities, true);
    put_field(o2, "node", n.node);
    o2 += '}';
  });
  put_field(o, "on_baseline", f.on_baseline);
  put_field(o, "rule_id", f.rule_id);
  put_field(o, "severity", rules::severity_name(f.severity));
  put_field(o, "title", title_in(f.title, language));
}

// `rank` counts from 1, in the report's order.
void put_odd_node(std::string& o, const OddNode& n, size_t rank, std::string_view language) {
  put_key(o, "differences", true);
  put_list(o, n.differences, [language](std::string& o2, const Difference& d) {
    o2 += '{';
    put_field(o2, "expected", fact_value_in(d.expected, d.expected_message, language), true);
    put_field(o2, "fact", d.fact);
    put_field(o2, "value", fact_value_in(d.value, d.value_message, language));
    o2 += '}';
  });
  put_strings(o, "findings", n.findings);
  put_strings(o, "fixes", fixes_in(n, language));
  put_field(o, "node", n.node);
  put_field(o, "rank", rank);
  put_field(o, "score", n.score);
}

// A string, or null when absent.
void put_optional(std::string& out, const std::optional<std::string_view>& value) {
  if (value) {
    put_string(out, *value);
  } else {
    out += "null";
  }
}

}  // namespace

std::string render_json(const FleetReport& r, std::string_view language) {
  std::string out;
  // About 250 bytes a node and 60 a listed node elsewhere: one allocation
  // for most reports.
  out.reserve(4096 + r.nodes.size() * 400);
  out += "{\n \"schema_version\": 1";
  out += ",\n \"tool_version\": ";
  put_string(out, TFRIG_VERSION);
  out += ",\n \"baseline\": ";
  put_optional(out, r.baseline ? std::optional<std::string_view>(*r.baseline) : std::nullopt);
  out += ",\n \"worst\": ";
  put_optional(out, r.any_problem ? std::optional<std::string_view>(rules::severity_name(r.worst)) : std::nullopt);
  out += ",\n \"node_count\": " + std::to_string(r.nodes.size() + r.unreadable.size());
  append_array(out, "nodes", r.nodes, [language](std::string& o, const Node& n, size_t) { put_node(o, n, language); });
  append_array(out, "unreadable", r.unreadable,
               [language](std::string& o, const Unreadable& u, size_t) { put_unreadable(o, u, language); });
  append_array(out, "drift", r.drift,
               [language](std::string& o, const Drift& d, size_t) { put_drift(o, d, language); });
  append_array(out, "findings", r.findings,
               [language](std::string& o, const FindingAcross& f, size_t) { put_finding_across(o, f, language); });
  append_array(out, "odd_nodes", r.odd_nodes,
               [language](std::string& o, const OddNode& n, size_t i) { put_odd_node(o, n, i + 1, language); });
  out += "\n}\n";
  return out;
}

}  // namespace tfrig::fleet

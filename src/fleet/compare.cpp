#include "fleet/compare.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <unordered_map>

#include "core/i18n.h"
#include "rules/rule.h"

namespace tfrig::fleet {

namespace {

struct Entry {
  uint32_t node;
  const Fact* fact;
};

bool same_value(const FactKind* kind, const Fact& a, const std::string& expected,
                std::optional<double> expected_number) {
  if (kind && kind->tolerance > 0 && a.number && expected_number) {
    const double hi = std::max(*a.number, *expected_number);
    return std::fabs(*a.number - *expected_number) <= kind->tolerance * hi;
  }
  return a.value == expected;
}

// The value most nodes share: exact text, or for a kind with a tolerance the
// value with the most nodes within the tolerance of it. Ties go to the
// smaller value, so the result does not depend on the input order.
const Fact* majority(const FactKind* kind, const std::vector<Entry>& entries) {
  if (kind && kind->tolerance > 0) {
    std::vector<const Fact*> sorted;
    for (const auto& e : entries) {
      if (e.fact->number) sorted.push_back(e.fact);
    }
    if (!sorted.empty()) {
      std::sort(sorted.begin(), sorted.end(), [](const Fact* a, const Fact* b) { return *a->number < *b->number; });
      size_t best = 0, best_count = 0, lo = 0, hi = 0;
      for (size_t i = 0; i < sorted.size(); ++i) {
        const double v = *sorted[i]->number;
        while (*sorted[lo]->number < v - kind->tolerance * v) ++lo;
        if (hi < i) hi = i;
        while (hi + 1 < sorted.size() && *sorted[hi + 1]->number - v <= kind->tolerance * *sorted[hi + 1]->number) ++hi;
        if (hi - lo + 1 > best_count) {
          best_count = hi - lo + 1;
          best = i;
        }
      }
      return sorted[best];
    }
  }
  // Each value with its first fact (the one whose words stand for it).
  std::map<std::string_view, std::pair<size_t, const Fact*>> counts;
  for (const auto& e : entries) {
    auto& [count, fact] = counts[e.fact->value];
    if (count++ == 0) fact = e.fact;
  }
  auto best = counts.begin();
  for (auto it = counts.begin(); it != counts.end(); ++it) {
    if (it->second.first > best->second.first) best = it;
  }
  return best->second.second;
}

size_t kind_order(const std::string& kind) {
  const auto& kinds = fact_kinds();
  for (size_t i = 0; i < kinds.size(); ++i) {
    if (kinds[i].id == kind) return i;
  }
  return kinds.size();
}

std::string join(const std::vector<std::string>& v, const char* sep) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : sep) + s;
  return out;
}

std::vector<Drift> find_drift(const std::vector<Node>& nodes, const std::optional<Node>& baseline) {
  std::unordered_map<std::string, std::vector<Entry>> by_fact;
  for (uint32_t i = 0; i < nodes.size(); ++i) {
    for (const auto& f : nodes[i].facts) by_fact[f.id()].push_back(Entry{i, &f});
  }
  std::map<std::string, const Fact*> base_facts;
  if (baseline) {
    for (const auto& f : baseline->facts) base_facts[f.id()] = &f;
  }
  std::vector<Drift> out;
  for (auto& [id, entries] : by_fact) {
    const Fact& first = *entries.front().fact;
    const FactKind* kind = find_fact_kind(first.kind);
    const Fact* expected = nullptr;
    size_t expected_nodes = 0;
    if (auto b = base_facts.find(id); b != base_facts.end()) {
      expected = b->second;
    } else {
      expected = majority(kind, entries);
    }
    // same_value reads the number only for a kind with a tolerance.
    const std::optional<double> expected_number = expected->number;
    Drift d;
    for (const auto& e : entries) {
      if (same_value(kind, *e.fact, expected->value, expected_number)) {
        ++expected_nodes;
      } else {
        d.differing.push_back(NodeValue{nodes[e.node].name, e.fact->value, e.fact->value_message});
      }
    }
    if (d.differing.empty()) continue;
    d.fact = id;
    d.kind = first.kind;
    d.scope = first.scope;
    d.title = kind ? std::string(kind->title) : first.kind;
    d.expected = expected->value;
    d.expected_message = expected->value_message;
    d.expected_nodes = expected_nodes;
    d.known_nodes = entries.size();
    std::sort(d.differing.begin(), d.differing.end(),
              [](const NodeValue& a, const NodeValue& b) { return a.node < b.node; });
    out.push_back(std::move(d));
  }
  std::sort(out.begin(), out.end(), [](const Drift& a, const Drift& b) {
    const size_t ka = kind_order(a.kind), kb = kind_order(b.kind);
    return ka != kb ? ka < kb : a.fact < b.fact;
  });
  return out;
}

std::vector<FindingAcross> findings_across(const std::vector<Node>& nodes, const std::set<std::string>& on_baseline) {
  std::map<std::string, FindingAcross> by_rule;
  for (const auto& n : nodes) {
    std::map<std::string, std::vector<std::string>> entities;  // rule id -> entities on this node
    for (const auto& f : n.findings) {
      auto& fa = by_rule[f.rule_id];
      if (fa.rule_id.empty()) {
        fa.rule_id = f.rule_id;
        fa.severity = f.severity;
        const rules::Rule* rule = rules::find_rule(f.rule_id);
        fa.title = rule ? std::string(rule->title) : f.rule_id;
        fa.on_baseline = on_baseline.count(f.rule_id) > 0;
      }
      fa.severity = std::max(fa.severity, f.severity);
      auto& list = entities[f.rule_id];
      if (std::find(list.begin(), list.end(), f.entity) == list.end()) list.push_back(f.entity);
    }
    for (auto& [rule, list] : entities) by_rule[rule].nodes.push_back(NodeEntity{n.name, join(list, ", ")});
  }
  std::vector<FindingAcross> out;
  for (auto& [id, fa] : by_rule) out.push_back(std::move(fa));
  std::sort(out.begin(), out.end(), [](const FindingAcross& a, const FindingAcross& b) {
    if (a.severity != b.severity) return a.severity > b.severity;
    if (a.nodes.size() != b.nodes.size()) return a.nodes.size() < b.nodes.size();
    return a.rule_id < b.rule_id;
  });
  return out;
}

std::vector<OddNode> odd_nodes(const std::vector<Node>& nodes, const std::vector<Drift>& drift,
                               const std::vector<FindingAcross>& across, bool with_baseline) {
  std::map<std::string, OddNode> odd;
  for (const auto& d : drift) {
    const FactKind* kind = find_fact_kind(d.kind);
    for (const auto& nv : d.differing) {
      auto& o = odd[nv.node];
      o.node = nv.node;
      o.score += severity_weight(rules::Severity::kWarning);
      o.differences.push_back(Difference{d.fact, nv.value, d.expected, nv.value_message, d.expected_message});
      if (kind) o.fix_texts.push_back(Fix{kind, d.scope, d.expected, {}, d.expected_message});
    }
  }
  // A rule is a node's own problem when it fires on fewer than half of the
  // nodes (or, with a baseline, not on the baseline): one that fires
  // everywhere is the fleet's, and listed once under the findings.
  std::map<std::string, const FindingAcross*> rare;
  for (const auto& fa : across) {
    const bool is_rare = with_baseline ? !fa.on_baseline : fa.nodes.size() * 2 < nodes.size();
    if (is_rare) rare[fa.rule_id] = &fa;
  }
  for (const auto& n : nodes) {
    std::map<std::string, rules::Severity> fired;
    for (const auto& f : n.findings) {
      if (!rare.count(f.rule_id)) continue;
      auto [it, inserted] = fired.emplace(f.rule_id, f.severity);
      if (!inserted) it->second = std::max(it->second, f.severity);
      auto& o = odd[n.name];
      o.node = n.name;
      if (inserted) o.findings.push_back(f.rule_id);
      const rules::Rule* rule = f.fix.empty() ? rules::find_rule(f.rule_id) : nullptr;
      // Kept as a message (the rule's fix is its catalog key): each renderer says it in its language.
      Fix fix;
      if (rule) {
        fix.text = core::Message(std::string(rule->fix));
      } else {
        fix.text = rules::text_of(f.fix, f.fix_message ? std::optional<core::Message>(*f.fix_message) : std::nullopt);
      }
      o.fix_texts.push_back(std::move(fix));
    }
    for (const auto& [rule, sev] : fired) odd[n.name].score += severity_weight(sev);
  }
  std::vector<OddNode> out;
  for (auto& [name, o] : odd) {
    // Without repeats, by their English.
    std::vector<Fix> unique;
    std::vector<std::string> english;
    for (auto& f : o.fix_texts) {
      std::string e = fix_in(f, "en");
      if (!e.empty() && std::find(english.begin(), english.end(), e) == english.end()) {
        english.push_back(std::move(e));
        unique.push_back(std::move(f));
      }
    }
    o.fixes = std::move(english);
    o.fix_texts = std::move(unique);
    out.push_back(std::move(o));
  }
  std::stable_sort(out.begin(), out.end(), [](const OddNode& a, const OddNode& b) { return a.score > b.score; });
  return out;
}

}  // namespace

std::string fix_in(const Fix& fix, std::string_view language) {
  if (fix.kind != nullptr)
    return fact_fix(*fix.kind, fix.scope, fact_value_in(fix.expected, fix.expected_message, language), language);
  return rules::in_language(fix.text, language);
}

std::vector<std::string> fixes_in(const OddNode& n, std::string_view language) {
  // A node built without fix_texts (by hand) shows its English fixes.
  if (n.fix_texts.size() != n.fixes.size()) return n.fixes;
  std::vector<std::string> out;
  for (const auto& fix : n.fix_texts) out.push_back(fix_in(fix, language));
  return out;
}

std::string title_in(const std::string& english, std::string_view language) {
  const core::Message m(english);
  return core::known_message(m) ? core::render(m, language) : english;
}

int severity_weight(rules::Severity s) {
  switch (s) {
    case rules::Severity::kError: return 9;
    case rules::Severity::kWarning: return 3;
    case rules::Severity::kInfo: return 1;
  }
  return 1;
}

FleetReport compare(std::vector<Node> nodes, std::vector<Unreadable> unreadable, const std::optional<Node>& baseline) {
  FleetReport r;
  std::sort(nodes.begin(), nodes.end(), [](const Node& a, const Node& b) { return a.name < b.name; });
  std::sort(unreadable.begin(), unreadable.end(),
            [](const Unreadable& a, const Unreadable& b) { return a.name < b.name; });
  std::set<std::string> on_baseline;
  if (baseline) {
    r.baseline = baseline->name;
    for (const auto& f : baseline->findings) on_baseline.insert(f.rule_id);
  }
  r.drift = find_drift(nodes, baseline);
  r.findings = findings_across(nodes, on_baseline);
  r.odd_nodes = odd_nodes(nodes, r.drift, r.findings, baseline.has_value());
  for (const auto& fa : r.findings) r.worst = std::max(r.worst, fa.severity);
  if (!r.drift.empty() || !unreadable.empty()) r.worst = std::max(r.worst, rules::Severity::kWarning);
  r.any_problem = !r.findings.empty() || !r.drift.empty() || !unreadable.empty();
  r.nodes = std::move(nodes);
  r.unreadable = std::move(unreadable);
  return r;
}

}  // namespace tfrig::fleet

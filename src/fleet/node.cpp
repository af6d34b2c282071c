#include "fleet/node.h"

#include <set>

#include "rules/judge.h"

namespace tfrig::fleet {

Node summarize_node(const report::Report& report, const knowledge::Knowledge& k, const std::optional<std::string>& tf) {
  Node n;
  n.schema_version = report.schema_version;
  n.tool_version = report.tool_version;
  if (report.inventory.host.hostname) n.hostname = *report.inventory.host.hostname;
  n.facts = extract_facts(report);
  auto ev = rules::evaluate(rules::context_for(report, k, tf));
  n.summary = ev.summary;
  n.findings.reserve(ev.findings.size());
  for (auto& f : ev.findings) {
    // Most fixes are the rule's own text: kept once in the rule table, not
    // once per node (10,000 nodes x 20 findings add up).
    const rules::Rule* rule = rules::find_rule(f.rule_id);
    const bool own_fix = rule && f.fix == rule->fix;
    n.findings.push_back(NodeFinding{
        std::move(f.rule_id), f.severity, std::move(f.entity), own_fix ? std::string() : std::move(f.fix),
        !own_fix && f.fix_message ? std::make_shared<const core::Message>(std::move(*f.fix_message)) : nullptr});
  }
  return n;
}

}  // namespace tfrig::fleet

// The explicit table of every rule, the evaluator, the target resolution and
// the generated docs/rules.md.
#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "core/i18n.h"
#include "core/log.h"
#include "rules/areas.h"
#include "rules/rule.h"
#include "rules/util.h"

namespace tfrig::rules {

std::string_view outcome_name(Outcome o) {
  switch (o) {
    case Outcome::kPass: return "pass";
    case Outcome::kWarn: return "warn";
    case Outcome::kFail: return "fail";
    case Outcome::kSkip: return "skip";
  }
  return "skip";
}

const std::vector<std::string_view>& areas() {
  static const std::vector<std::string_view> kAreas = {"gpu",     "driver",   "cuda", "tf",        "cpu",   "memory",
                                                       "storage", "hardware", "os",   "container", "tuning"};
  return kAreas;
}

const std::vector<Rule>& all_rules() {
  static const std::vector<Rule> kRules = [] {
    std::vector<Rule> all;
    for (auto table :
         {gpu_rules, gpu_health_rules, driver_rules, cuda_stack_rules, tensorflow_rules, cpu_rules, memory_rules,
          storage_rules, hardware_rules, os_rules, region_rules, container_rules, tuning_rules}) {
      auto part = table();
      all.insert(all.end(), part.begin(), part.end());
    }
    return all;
  }();
  return kRules;
}

const Rule* find_rule(std::string_view id) {
  for (const auto& r : all_rules()) {
    if (r.id == id) return &r;
  }
  return nullptr;
}

core::Message Target::label_message() const {
  if (origin == "installed" && env)
    return core::Message(N_("TensorFlow {0} (installed in {1})"), tf.text(), env->prefix);
  return core::Message(
      // TRANSLATORS: {1} is "--tf" or "newest known".
      N_("TensorFlow {0} ({1})"), tf.text(),
      origin == "newest known" ? core::MessageArg(core::Message(N_("newest known"))) : core::MessageArg(origin));
}

std::string Target::label() const { return core::render(label_message(), core::i18n::language()); }

Target resolve_target(const inventory::Inventory& inv, const knowledge::Knowledge& k,
                      const std::optional<std::string>& tf_flag) {
  Target t;
  const auto* env = util::tf_env(inv);
  if (env) {
    if (auto v = core::Version::parse(env->tensorflow->version)) {
      t.tf = *v;
      t.origin = "installed";
      t.env = env;
      if (tf_flag && *tf_flag != env->tensorflow->version) {
        core::log(core::LogLevel::kWarn, "--tf {} ignored: TensorFlow {} is installed in {} and is what runs", *tf_flag,
                  env->tensorflow->version, env->prefix);
      }
    }
  }
  if (t.origin.empty() && tf_flag) {
    if (auto v = core::Version::parse(*tf_flag)) {
      t.tf = *v;
      t.origin = "--tf";
    }
  }
  if (t.origin.empty() && k.newest_tf()) {
    t.tf = *core::Version::parse(k.newest_tf()->tf);
    t.origin = "newest known";
  }
  t.build = k.find_tf_build(t.tf);
  return t;
}

bool Context::probed(std::string_view probe_id) const {
  if (!probes_run) return true;
  return probes_run->count(std::string(probe_id)) > 0;
}

RuleResult run_rule(const Rule& rule, const Context& ctx) {
  RuleResult rr;
  rr.rule = &rule;
  Check c = rule.check(ctx);
  if (c.outcome == Outcome::kSkip) {
    rr.outcome = Outcome::kSkip;
    rr.skip_reason = std::move(c.skip_reason.english);
    rr.skip_message = std::move(c.skip_reason.message);
    return rr;
  }
  rr.outcome = Outcome::kPass;
  for (auto& h : c.hits) {
    Finding f;
    f.rule_id = std::string(rule.id);
    f.severity = h.severity.value_or(rule.severity);
    f.area = std::string(rule.area);
    f.entity = h.entity;
    f.set_title(core::Message(std::string(rule.title)));
    f.set_message(std::move(h.message));
    f.evidence = std::move(h.evidence);
    f.set_fix(h.fix.empty() ? Text(core::Message(std::string(rule.fix))) : std::move(h.fix));
    for (auto r : rule.references) f.references.emplace_back(r);
    const Outcome o = f.severity == Severity::kError ? Outcome::kFail : Outcome::kWarn;
    if (o == Outcome::kFail || rr.outcome == Outcome::kPass) rr.outcome = o;
    rr.findings.push_back(std::move(f));
  }
  return rr;
}

Evaluation evaluate(const Context& ctx, const std::string& only_area) {
  // The order findings are listed in: by area, then by the rule's place in
  // the table. Made once: `tfrig fleet` evaluates every node.
  using Rank = std::map<std::string_view, size_t, std::less<>>;
  static const Rank area_rank = [] {
    Rank r;
    for (size_t i = 0; i < areas().size(); ++i) r.emplace(areas()[i], i);
    return r;
  }();
  static const Rank rule_rank = [] {
    Rank r;
    size_t i = 0;
    for (const auto& rule : all_rules()) r.emplace(rule.id, i++);
    return r;
  }();
  // A finding whose area or rule is not in the tables sorts first, as
  // operator[] of the maps built here before gave it 0.
  const auto rank = [](const Rank& ranks, std::string_view key) {
    auto it = ranks.find(key);
    return it == ranks.end() ? size_t{0} : it->second;
  };
  Evaluation ev;
  ev.results.reserve(all_rules().size());
  const bool debug = core::log_enabled(core::LogLevel::kDebug);
  for (const auto& rule : all_rules()) {
    if (!only_area.empty() && rule.area != only_area) continue;
    auto rr = run_rule(rule, ctx);
    if (debug) {
      core::log(core::LogLevel::kDebug, "rule {}: {}{}", rule.id, outcome_name(rr.outcome),
                rr.skip_reason.empty() ? "" : " (" + rr.skip_reason + ")");
    }
    for (const auto& f : rr.findings) ev.findings.push_back(f);
    ev.results.push_back(std::move(rr));
  }
  std::stable_sort(ev.findings.begin(), ev.findings.end(), [&](const Finding& a, const Finding& b) {
    if (a.severity != b.severity) return a.severity > b.severity;
    if (a.area != b.area) return rank(area_rank, a.area) < rank(area_rank, b.area);
    return rank(rule_rank, a.rule_id) < rank(rule_rank, b.rule_id);
  });
  ev.summary = summarize(ev.findings);
  return ev;
}

std::string rules_markdown() {
  std::string out;
  out += "# tfrig rules\n\n";
  out += "Generated from the rule table (`src/rules/`) by `tfrig rules --markdown`; do not edit by hand.\n";
  out += "The test `RulesDoc.DocsRulesMdIsGeneratedFromTheTable` (tests/cli/doctor_cli_test.cpp) fails when this\n";
  out += "file differs from the table; run the tests with `TFRIG_UPDATE_GOLDEN=1` to rewrite it.\n\n";
  out += "Every rule ends pass, warn, fail or skip; a skip names the fact that was missing. Severities:\n";
  out += "`error` (TensorFlow will not use the GPU, or will fail), `warning` (it runs, slower or fragile),\n";
  out += "`info` (advice). Ids never change once released.\n\n";
  out += fmt::format("{} rules in {} areas.\n\n", all_rules().size(), areas().size());
  for (auto area : areas()) {
    out += fmt::format("## {}\n\n", area);
    for (const auto& r : all_rules()) {
      if (r.area != area) continue;
      out += fmt::format("### `{}` ({})\n\n", r.id, severity_name(r.severity));
      out += fmt::format("**{}**\n\n", r.title);
      out += fmt::format("- Checks: {}\n", r.checks);
      out += fmt::format("- Why: {}\n", r.why);
      out += fmt::format("- Fix: {}\n", r.fix);
      if (!r.references.empty()) {
        out += "- References:";
        for (auto ref : r.references) out += fmt::format(" <{}>", ref);
        out += "\n";
      }
      out += "\n";
    }
  }
  return out;
}

}  // namespace tfrig::rules

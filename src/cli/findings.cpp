#include "cli/findings.h"

#include <algorithm>
#include <cstdio>

#include <fmt/format.h>

#include "cli/command.h"
#include "core/log.h"
#include "core/output.h"
#include "report/probes_run.h"
#include "rules/util.h"

namespace tfrig::cli {


namespace {

std::string plural(int n, const char* word) { return fmt::format("{} {}{}", n, word, n == 1 ? "" : "s"); }

}  // namespace

std::string verdict_line(const rules::Context& ctx, const rules::Evaluation& ev, const report::Coverage& coverage) {
  const int gpus = rules::util::gpu_count(ctx);
  const int usable = rules::util::usable_gpu_count(ctx);
  bool gpu_blocked = false;
  bool import_blocked = false;
  // Rules that take one GPU out, not the whole stack: the others stay usable.
  const std::set<std::string> per_gpu{"gpu.lost", "gpu.unreachable", "gpu.init_failed"};
  for (const auto& f : ev.findings) {
    if (f.severity != rules::Severity::kError) continue;
    if (f.rule_id == "cpu.no_avx") import_blocked = true;
    if (per_gpu.count(f.rule_id)) continue;
    if (f.area == "gpu" || f.area == "driver" || f.area == "cuda" || f.area == "tf" || f.area == "container") gpu_blocked = true;
  }
  auto not_examined = [&coverage](const char* part) {
    return std::find(coverage.not_examined.begin(), coverage.not_examined.end(), part) != coverage.not_examined.end();
  };
  const bool driver_unknown = not_examined("driver");
  std::string head = ctx.target.label();
  if (import_blocked) {
    head += " will not start on this CPU";
  } else if (gpus == 0 && not_examined("GPUs") && !rules::util::driver_failed(ctx)) {
    head += ": whether this machine has a GPU was not examined";  // never "CPU only" from a version file
  } else if (gpus == 0 && rules::util::driver_failed(ctx)) {
    head += " will not use a GPU";  // nvidia-smi failed: whatever is on the bus, CUDA sees none
  } else if (gpus == 0) {
    head += " will run on the CPU only";
  } else if (gpu_blocked || usable == 0) {
    head += fmt::format(" will not use the {}", gpus == 1 ? "GPU" : fmt::format("{} GPUs", gpus));
  } else if (driver_unknown) {
    head += fmt::format(": {} seen, whether it can use {} was not judged", plural(gpus, "GPU"), gpus == 1 ? "it" : "them");
  } else if (usable < gpus) {
    head += fmt::format(" will use {} of {} GPUs", usable, gpus);
  } else {
    head += fmt::format(" will use {}", plural(gpus, "GPU"));
  }
  std::string scope;
  if (!coverage.not_examined.empty()) {
    scope = " (read: " + (coverage.examined.empty() ? std::string("nothing the rules use") : rules::util::join(coverage.examined, ", ")) +
            "; not examined: " + rules::util::join(coverage.not_examined, ", ") + ")";
  }
  const auto& s = ev.summary;
  if (s.total() == 0) return head + (scope.empty() ? ": no problems found" : ": no problems found in what was read" + scope);
  std::vector<std::string> parts;
  if (s.errors) parts.push_back(plural(s.errors, "error"));
  if (s.warnings) parts.push_back(plural(s.warnings, "warning"));
  if (s.infos) parts.push_back(plural(s.infos, "info"));
  return head + ": " + rules::util::join(parts, ", ") + scope;
}

rules::Evaluation attach_findings(report::Report& r, const knowledge::Knowledge& k, const FindingsOptions& options) {
  rules::Context ctx{r.inventory, k, rules::resolve_target(r.inventory, k, options.tf), report::probes_run(r)};
  auto ev = rules::evaluate(ctx, options.only_area);
  r.evaluated = true;
  r.target = ctx.target.label();
  r.verdict = verdict_line(ctx, ev, report::coverage_of(r));
  if (!options.only_area.empty()) r.verdict += " (only the " + options.only_area + " rules ran)";
  r.findings = ev.findings;
  r.summary = ev.summary;
  r.skipped.clear();
  for (const auto& rr : ev.results) {
    if (rr.outcome == rules::Outcome::kSkip) r.skipped.emplace_back(std::string(rr.rule->id), rr.skip_reason);
  }
  return ev;
}

int exit_code_for_findings(const rules::Summary& s, const std::string& fail_on) {
  if (fail_on == "never") return kExitOk;
  if (s.errors) return kExitErrors;
  if (fail_on == "error") return kExitOk;
  if (s.warnings) return kExitWarnings;
  if (fail_on == "info" && s.infos) return kExitWarnings;
  return kExitOk;
}

// --explain RULE: the rule's row, then what it says here.
int explain_rule(report::Report& r, const knowledge::Knowledge& k, const std::string& id, const std::string& tf) {
  const rules::Rule* rule = rules::find_rule(id);
  if (!rule) {
    core::log(core::LogLevel::kError, "--explain: no rule '{}' (list them with 'tfrig rules')", id);
    return kExitUsage;
  }
  rules::Context ctx{r.inventory, k, rules::resolve_target(r.inventory, k, tf.empty() ? std::nullopt : std::optional<std::string>(tf)),
                     report::probes_run(r)};
  auto rr = rules::run_rule(*rule, ctx);
  std::string out = fmt::format("{} ({}, {})\n  {}\n\n  Checks: {}\n  Why:    {}\n  Fix:    {}\n", rule->id, rule->area,
                                rules::severity_name(rule->severity), rule->title, rule->checks, rule->why, rule->fix);
  for (auto ref : rule->references) out += fmt::format("  See:    {}\n", ref);
  out += fmt::format("\nOn {} for {}: {}{}\n", r.source == "live" ? "this machine" : r.source, ctx.target.label(),
                     rules::outcome_name(rr.outcome), rr.skip_reason.empty() ? "" : " (missing: " + rr.skip_reason + ")");
  r.evaluated = true;
  r.findings = rr.findings;
  r.summary = rules::summarize(rr.findings);
  r.verdict = fmt::format("{}: {}", rule->id, rules::outcome_name(rr.outcome));
  if (!rr.findings.empty()) out += report::render_findings_text(r, false);
  (void)core::write_stdout(out);
  return kExitOk;
}

}  // namespace tfrig::cli

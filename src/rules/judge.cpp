#include "rules/judge.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "report/probes_run.h"
#include "rules/util.h"

namespace tfrig::rules {

namespace {

std::string plural(int n, const char* word) { return fmt::format("{} {}{}", n, word, n == 1 ? "" : "s"); }

}  // namespace

std::string verdict_line(const Context& ctx, const Evaluation& ev, const report::Coverage& coverage) {
  const int gpus = util::gpu_count(ctx);
  const int usable = util::usable_gpu_count(ctx);
  bool gpu_blocked = false;
  bool import_blocked = false;
  // Rules that take one GPU out, not the whole stack: the others stay usable.
  const std::set<std::string> per_gpu{"gpu.lost", "gpu.unreachable", "gpu.init_failed"};
  for (const auto& f : ev.findings) {
    if (f.severity != Severity::kError) continue;
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
  } else if (gpus == 0 && not_examined("GPUs") && !util::driver_failed(ctx)) {
    head += ": whether this machine has a GPU was not examined";  // never "CPU only" from a version file
  } else if (gpus == 0 && util::driver_failed(ctx)) {
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
    scope = " (read: " + (coverage.examined.empty() ? std::string("nothing the rules use") : util::join(coverage.examined, ", ")) +
            "; not examined: " + util::join(coverage.not_examined, ", ") + ")";
  }
  const auto& s = ev.summary;
  if (s.total() == 0) return head + (scope.empty() ? ": no problems found" : ": no problems found in what was read" + scope);
  std::vector<std::string> parts;
  if (s.errors) parts.push_back(plural(s.errors, "error"));
  if (s.warnings) parts.push_back(plural(s.warnings, "warning"));
  if (s.infos) parts.push_back(plural(s.infos, "info"));
  return head + ": " + util::join(parts, ", ") + scope;
}

Context context_for(const report::Report& report, const knowledge::Knowledge& k, const std::optional<std::string>& tf) {
  return Context{report.inventory, k, resolve_target(report.inventory, k, tf), report::probes_run(report)};
}

Evaluation attach_findings(report::Report& r, const knowledge::Knowledge& k, const FindingsOptions& options) {
  const Context ctx = context_for(r, k, options.tf);
  auto ev = evaluate(ctx, options.only_area);
  r.evaluated = true;
  r.target = ctx.target.label();
  r.verdict = verdict_line(ctx, ev, report::coverage_of(r));
  if (!options.only_area.empty()) r.verdict += " (only the " + options.only_area + " rules ran)";
  r.findings = ev.findings;
  r.summary = ev.summary;
  r.skipped.clear();
  for (const auto& rr : ev.results) {
    if (rr.outcome == Outcome::kSkip) r.skipped.emplace_back(std::string(rr.rule->id), rr.skip_reason);
  }
  return ev;
}

OneRule attach_one_rule(report::Report& r, const knowledge::Knowledge& k, const Rule& rule,
                        const std::optional<std::string>& tf) {
  const Context ctx = context_for(r, k, tf);
  OneRule one{run_rule(rule, ctx), ctx.target.label()};
  r.evaluated = true;
  r.findings = one.result.findings;
  r.summary = summarize(one.result.findings);
  r.verdict = fmt::format("{}: {}", rule.id, outcome_name(one.result.outcome));
  return one;
}

}  // namespace tfrig::rules

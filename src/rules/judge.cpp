#include "rules/judge.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "core/i18n.h"
#include "report/probes_run.h"
#include "rules/util.h"

namespace tfrig::rules {

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
  // Whole sentences, the target as {0}: a translation orders them its own way.
  const std::string target = ctx.target.label();
  std::string head;
  if (import_blocked) {
    head = trf("{} will not start on this CPU", target);
  } else if (gpus == 0 && not_examined("GPUs") && !util::driver_failed(ctx)) {
    head = trf("{}: whether this machine has a GPU was not examined", target);  // never "CPU only" from a version file
  } else if (gpus == 0 && util::driver_failed(ctx)) {
    head = trf("{} will not use a GPU", target);  // nvidia-smi failed: whatever is on the bus, CUDA sees none
  } else if (gpus == 0) {
    head = trf("{} will run on the CPU only", target);
  } else if (gpu_blocked || usable == 0) {
    head = gpus == 1 ? trf("{} will not use the GPU", target) : trf("{0} will not use the {1} GPUs", target, gpus);
  } else if (driver_unknown) {
    head = gpus == 1 ? trf("{}: 1 GPU seen, whether it can use it was not judged", target)
                     : trf("{0}: {1} GPUs seen, whether it can use them was not judged", target, gpus);
  } else if (usable < gpus) {
    head = trf("{0} will use {1} of {2} GPUs", target, usable, gpus);
  } else {
    head = trnf("{0} will use {1} GPU", "{0} will use {1} GPUs", static_cast<uint64_t>(gpus), target, gpus);
  }
  // TRANSLATORS: separates the items of a list ("3 warnings, 4 infos"; "GPUs, driver").
  const std::string comma = _(", ");
  auto translated_list = [&comma](const std::vector<std::string>& names) {
    std::string out;
    for (const auto& n : names) out += (out.empty() ? "" : comma) + _(n);
    return out;
  };
  std::string scope;
  if (!coverage.not_examined.empty()) {
    scope = trf(" (read: {0}; not examined: {1})",
                coverage.examined.empty() ? _("nothing the rules use") : translated_list(coverage.examined),
                translated_list(coverage.not_examined));
  }
  const auto& s = ev.summary;
  if (s.total() == 0 && coverage.examined.empty() && !coverage.not_examined.empty()) {
    // TRANSLATORS: {0} the target, {1} the parts of a machine ("GPUs, driver, CPU").
    return trf("{0}: nothing was examined: no input said anything about {1}", head, translated_list(coverage.not_examined));
  }
  if (s.total() == 0) return scope.empty() ? trf("{}: no problems found", head) : trf("{0}: no problems found in what was read{1}", head, scope);
  std::string counts;
  auto add = [&](std::string part) { counts += (counts.empty() ? "" : comma) + part; };
  if (s.errors) add(trnf("{} error", "{} errors", static_cast<uint64_t>(s.errors), s.errors));
  if (s.warnings) add(trnf("{} warning", "{} warnings", static_cast<uint64_t>(s.warnings), s.warnings));
  if (s.infos) add(trnf("{} info", "{} infos", static_cast<uint64_t>(s.infos), s.infos));
  return trf("{0}: {1}{2}", head, counts, scope);
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
  if (!options.only_area.empty()) r.verdict += trf(" (only the {} rules ran)", options.only_area);
  r.findings = ev.findings;
  r.summary = ev.summary;
  r.skipped.clear();
  for (const auto& rr : ev.results) {
    // In the language the report is built in (doctor switches to the output's).
    if (rr.outcome == Outcome::kSkip) r.skipped.emplace_back(std::string(rr.rule->id), in_language(rr.skip_reason, rr.skip_message, core::i18n::language()));
  }
  return ev;
}

std::string outcome_label(Outcome o) {
  switch (o) {
    // TRANSLATORS: what one rule concluded on this machine (doctor --explain RULE).
    case Outcome::kPass: return C_("outcome", "pass");
    case Outcome::kWarn: return C_("outcome", "warn");
    case Outcome::kFail: return C_("outcome", "fail");
    case Outcome::kSkip: return C_("outcome", "skip");
  }
  return C_("outcome", "skip");
}

OneRule attach_one_rule(report::Report& r, const knowledge::Knowledge& k, const Rule& rule,
                        const std::optional<std::string>& tf) {
  const Context ctx = context_for(r, k, tf);
  OneRule one{run_rule(rule, ctx), ctx.target.label()};
  r.evaluated = true;
  r.findings = one.result.findings;
  r.summary = summarize(one.result.findings);
  r.verdict = trf("{0}: {1}", rule.id, outcome_label(one.result.outcome));
  return one;
}

}  // namespace tfrig::rules

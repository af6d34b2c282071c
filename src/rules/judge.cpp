#include "rules/judge.h"

#include <algorithm>
#include <optional>
#include <set>

#include <fmt/format.h>

#include "core/i18n.h"
#include "verdict/probes_run.h"
#include "rules/util.h"

namespace tfrig::rules {

core::Message verdict_message(const Context& ctx, const Evaluation& ev, const report::Coverage& coverage) {
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
    if (f.area == "gpu" || f.area == "driver" || f.area == "cuda" || f.area == "tf" || f.area == "container")
      gpu_blocked = true;
  }
  auto not_examined = [&coverage](const char* part) {
    return std::find(coverage.not_examined.begin(), coverage.not_examined.end(), part) != coverage.not_examined.end();
  };
  const bool driver_unknown = not_examined("driver");
  // Whole sentences, the target as {0}: a translation orders them its own way.
  const core::Message target = ctx.target.label_message();
  core::Message head;
  if (import_blocked) {
    head = core::Message(N_("{} will not start on this CPU"), target);
  } else if (gpus == 0 && not_examined("GPUs") && !util::driver_failed(ctx)) {
    head = core::Message(N_("{}: whether this machine has a GPU was not examined"),
                         target);  // never "CPU only" from a version file
  } else if (gpus == 0 && util::driver_failed(ctx)) {
    head = core::Message(N_("{} will not use a GPU"),
                         target);  // nvidia-smi failed: whatever is on the bus, CUDA sees none
  } else if (gpus == 0) {
    head = core::Message(N_("{} will run on the CPU only"), target);
  } else if (gpu_blocked || usable == 0) {
    head = gpus == 1 ? core::Message(N_("{} will not use the GPU"), target)
                     : core::Message(N_("{0} will not use the {1} GPUs"), target, gpus);
  } else if (driver_unknown) {
    head = gpus == 1 ? core::Message(N_("{}: 1 GPU seen, whether it can use it was not judged"), target)
                     : core::Message(N_("{0}: {1} GPUs seen, whether it can use them was not judged"), target, gpus);
  } else if (usable < gpus) {
    head = core::Message(N_("{0} will use {1} of {2} GPUs"), target, usable, gpus);
  } else {
    head = core::Message::plural(NP_("{0} will use {1} GPU", "{0} will use {1} GPUs"), static_cast<uint64_t>(gpus),
                                 target, gpus);
  }
  // The parts of a machine (report/coverage.cpp): the six the rules judge are
  // catalog words; a part a cut capture names ("7 of 8 GPUs not in the file")
  // is the capture's English and shows as it is.
  auto parts = [](const std::vector<std::string>& names) {
    std::vector<core::MessageArg> items;
    for (const auto& n : names) {
      const core::Message word(n);
      if (core::known_message(word)) {
        items.emplace_back(word);
      } else {
        items.emplace_back(n);
      }
    }
    return core::MessageArg::list(std::move(items));
  };
  std::optional<core::Message> scope;
  if (!coverage.not_examined.empty()) {
    scope = core::Message(N_(" (read: {0}; not examined: {1})"),
                          coverage.examined.empty() ? core::MessageArg(core::Message(N_("nothing the rules use")))
                                                    : parts(coverage.examined),
                          parts(coverage.not_examined));
  }
  const auto& s = ev.summary;
  if (s.total() == 0 && coverage.examined.empty() && !coverage.not_examined.empty()) {
    // TRANSLATORS: {0} the target, {1} the parts of a machine ("GPUs, driver, CPU").
    return core::Message(N_("{0}: nothing was examined: no input said anything about {1}"), head,
                         parts(coverage.not_examined));
  }
  if (s.total() == 0) {
    return scope ? core::Message(N_("{0}: no problems found in what was read{1}"), head, *scope)
                 : core::Message(N_("{}: no problems found"), head);
  }
  return core::Message(N_("{0}: {1}{2}"), head, summary_counts(s),
                       scope ? core::MessageArg(*scope) : core::MessageArg(""));
}

std::string verdict_line(const Context& ctx, const Evaluation& ev, const report::Coverage& coverage) {
  return core::english(verdict_message(ctx, ev, coverage));
}

core::MessageArg summary_counts(const Summary& s) {
  std::vector<core::MessageArg> counts;
  if (s.errors)
    counts.emplace_back(core::Message::plural(NP_("{} error", "{} errors"), static_cast<uint64_t>(s.errors), s.errors));
  if (s.warnings)
    counts.emplace_back(
        core::Message::plural(NP_("{} warning", "{} warnings"), static_cast<uint64_t>(s.warnings), s.warnings));
  if (s.infos)
    counts.emplace_back(core::Message::plural(NP_("{} info", "{} infos"), static_cast<uint64_t>(s.infos), s.infos));
  return core::MessageArg::list(std::move(counts));
}

Context context_for(const report::Report& report, const knowledge::Knowledge& k, const std::optional<std::string>& tf) {
  return Context{report.inventory, k, resolve_target(report.inventory, k, tf), report::probes_run(report)};
}

Evaluation attach_findings(report::Report& r, const knowledge::Knowledge& k, const FindingsOptions& options) {
  const Context ctx = context_for(r, k, options.tf);
  auto ev = evaluate(ctx, options.only_area);
  r.evaluated = true;
  r.target = ctx.target.label_message();
  core::Message verdict = verdict_message(ctx, ev, report::coverage_of(r));
  if (!options.only_area.empty())
    verdict = core::Message(N_("{0}{1}"), verdict, core::Message(N_(" (only the {} rules ran)"), options.only_area));
  r.verdict = std::move(verdict);
  r.findings = ev.findings;
  r.summary = ev.summary;
  r.skipped.clear();
  for (const auto& rr : ev.results) {
    // Kept as the rule wrote it: each renderer says it in its language.
    if (rr.outcome == Outcome::kSkip) {
      r.skipped.push_back({std::string(rr.rule->id), rr.skip_message ? Text(*rr.skip_message) : Text(rr.skip_reason)});
    }
  }
  return ev;
}

core::Message outcome_message(Outcome o) {
  switch (o) {
    // TRANSLATORS: what one rule concluded on this machine (doctor --explain RULE).
    case Outcome::kPass: return core::Message::in_context(NC_("outcome", "pass"));
    case Outcome::kWarn: return core::Message::in_context(NC_("outcome", "warn"));
    case Outcome::kFail: return core::Message::in_context(NC_("outcome", "fail"));
    case Outcome::kSkip: return core::Message::in_context(NC_("outcome", "skip"));
  }
  return core::Message::in_context(NC_("outcome", "skip"));
}

std::string outcome_label(Outcome o) { return core::render(outcome_message(o), core::i18n::language()); }

OneRule attach_one_rule(report::Report& r, const knowledge::Knowledge& k, const Rule& rule,
                        const std::optional<std::string>& tf) {
  const Context ctx = context_for(r, k, tf);
  OneRule one{run_rule(rule, ctx), ctx.target.label_message()};
  r.evaluated = true;
  r.findings = one.result.findings;
  r.summary = summarize(one.result.findings);
  r.verdict = core::Message(N_("{0}: {1}"), std::string(rule.id), outcome_message(one.result.outcome));
  return one;
}

}  // namespace tfrig::rules

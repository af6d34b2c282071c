#include "cli/findings.h"

#include <algorithm>
#include <cstdio>

#include <fmt/format.h>

#include "cli/command.h"
#include "core/display_width.h"
#include "core/i18n.h"
#include "core/log.h"
#include "core/output.h"
#include "report/probes_run.h"
#include "rules/util.h"

namespace tfrig::cli {


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
  // Whole sentences, the target as {0}: a translation orders them its own way.
  const std::string target = ctx.target.label();
  std::string head;
  if (import_blocked) {
    head = trf("{} will not start on this CPU", target);
  } else if (gpus == 0 && not_examined("GPUs") && !rules::util::driver_failed(ctx)) {
    head = trf("{}: whether this machine has a GPU was not examined", target);  // never "CPU only" from a version file
  } else if (gpus == 0 && rules::util::driver_failed(ctx)) {
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
  if (s.total() == 0) return scope.empty() ? trf("{}: no problems found", head) : trf("{0}: no problems found in what was read{1}", head, scope);
  std::string counts;
  auto add = [&](std::string part) { counts += (counts.empty() ? "" : comma) + part; };
  if (s.errors) add(trnf("{} error", "{} errors", static_cast<uint64_t>(s.errors), s.errors));
  if (s.warnings) add(trnf("{} warning", "{} warnings", static_cast<uint64_t>(s.warnings), s.warnings));
  if (s.infos) add(trnf("{} info", "{} infos", static_cast<uint64_t>(s.infos), s.infos));
  return trf("{0}: {1}{2}", head, counts, scope);
}

rules::Evaluation attach_findings(report::Report& r, const knowledge::Knowledge& k, const FindingsOptions& options) {
  rules::Context ctx{r.inventory, k, rules::resolve_target(r.inventory, k, options.tf), report::probes_run(r)};
  auto ev = rules::evaluate(ctx, options.only_area);
  r.evaluated = true;
  r.target = ctx.target.label();
  r.verdict = verdict_line(ctx, ev, report::coverage_of(r));
  if (!options.only_area.empty()) r.verdict += trf(" (only the {} rules ran)", options.only_area);
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
  std::string out = fmt::format("{} ({}, {})\n  {}\n\n", rule->id, rule->area, rules::severity_name(rule->severity), _(rule->title));
  // Labels padded to the widest, by display width (Chinese labels take two columns a character).
  const std::string checks = _("Checks:"), why = _("Why:"), fix = _("Fix:"), see = _("See:");
  size_t w = 0;
  for (const auto* label : {&checks, &why, &fix, &see}) w = std::max(w, core::display_width(*label));
  auto line = [w](const std::string& label, std::string_view text) { return "  " + core::pad_right(label, w) + " " + std::string(text) + "\n"; };
  out += line(checks, _(rule->checks)) + line(why, _(rule->why)) + line(fix, _(rule->fix));
  for (auto ref : rule->references) out += line(see, ref);
  out += trf("\nOn {0} for {1}: {2}{3}\n", r.source == "live" ? _("this machine") : r.source, ctx.target.label(),
             rules::outcome_name(rr.outcome), rr.skip_reason.empty() ? "" : trf(" (missing: {})", rr.skip_reason));
  r.evaluated = true;
  r.findings = rr.findings;
  r.summary = rules::summarize(rr.findings);
  r.verdict = fmt::format("{}: {}", rule->id, rules::outcome_name(rr.outcome));
  if (!rr.findings.empty()) out += report::render_findings_text(r, false);
  (void)core::write_stdout(out);
  return kExitOk;
}

}  // namespace tfrig::cli

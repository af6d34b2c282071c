// Judging a report: the target TensorFlow resolved, the rules run (all or
// one area) on the report's inventory with the probes that ran, and the
// findings, summary, target and verdict written into the report. doctor,
// explain and fleet judge through here; the CLI prints the result and picks
// the exit code.
#pragma once

#include <optional>
#include <string>

#include "knowledge/knowledge.h"
#include "verdict/coverage.h"
#include "verdict/report.h"
#include "rules/rule.h"

namespace tfrig::rules {

struct FindingsOptions {
  std::optional<std::string> tf;  // --tf VERSION
  std::string only_area;          // --only AREA
};

// The rules' context for a report: its inventory, the target resolved from
// the installed TensorFlow else `tf`, and the probes that ran. Holds
// references into `report` and `k`.
Context context_for(const report::Report& report, const knowledge::Knowledge& k, const std::optional<std::string>& tf);

// Evaluates every rule (or one area) and stores findings, summary, target and
// verdict in the report.
Evaluation attach_findings(report::Report& r, const knowledge::Knowledge& k, const FindingsOptions& options);

// One rule's result on a report, and the target it was judged for
// ("TensorFlow 2.17.0 (installed in /usr)").
struct OneRule {
  RuleResult result;
  Text target;
};
// Runs one rule (doctor --explain RULE) and stores its findings, summary and
// verdict ("gpu.no_gpu: pass") in the report.
OneRule attach_one_rule(report::Report& r, const knowledge::Knowledge& k, const Rule& rule,
                        const std::optional<std::string>& tf);
// A rule's outcome as a message, and as the reader's language says it (JSON keeps outcome_name).
core::Message outcome_message(Outcome o);
std::string outcome_label(Outcome o);

// "TensorFlow 2.17.0 (installed in /usr) will use 2 GPUs: 1 error, 3 warnings, 2 infos";
// with parts not examined (report/coverage.h), "... : no problems found in what was
// read (read: GPU topology; not examined: driver, CUDA libraries, TensorFlow)".
// The message, rendered by each output in its language; verdict_line is its English.
core::Message verdict_message(const Context& ctx, const Evaluation& ev, const report::Coverage& coverage = {});
std::string verdict_line(const Context& ctx, const Evaluation& ev, const report::Coverage& coverage = {});
// "1 error, 2 warnings" as a list argument (empty when all are zero).
core::MessageArg summary_counts(const Summary& s);

}  // namespace tfrig::rules

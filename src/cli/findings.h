// Runs the rules over a report (doctor, and later watch/setup): target
// resolution, evaluation, the verdict line and the exit code.
#pragma once

#include <optional>
#include <set>
#include <string>

#include "knowledge/knowledge.h"
#include "report/coverage.h"
#include "report/report.h"
#include "rules/rule.h"

namespace tfrig::cli {

struct FindingsOptions {
  std::optional<std::string> tf;  // --tf VERSION
  std::string only_area;          // --only AREA
};

// Evaluates every rule (or one area) and stores findings, summary, target and
// verdict in the report.
rules::Evaluation attach_findings(report::Report& r, const knowledge::Knowledge& k, const FindingsOptions& options);

// "TensorFlow 2.17.0 (installed in /usr) will use 2 GPUs: 1 error, 3 warnings, 2 infos";
// with parts not examined (report/coverage.h), "... : no problems found in what was
// read (read: GPU topology; not examined: driver, CUDA libraries, TensorFlow)".
std::string verdict_line(const rules::Context& ctx, const rules::Evaluation& ev, const report::Coverage& coverage = {});

// 0 clean, 1 warnings, 2 errors; fail_on: "error" (only errors fail),
// "warning" (default), "info" (any finding), "never".
int exit_code_for_findings(const rules::Summary& summary, const std::string& fail_on);

// doctor --explain RULE: prints the rule's row and its result on this report;
// returns the exit code (64 for an unknown rule).
int explain_rule(report::Report& r, const knowledge::Knowledge& k, const std::string& id, const std::string& tf);

}  // namespace tfrig::cli

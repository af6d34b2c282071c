// What doctor and explain do with a judged report (rules/judge.h): the exit
// code its findings give, and doctor --explain RULE's text.
#pragma once

#include <string>

#include "knowledge/knowledge.h"
#include "verdict/report.h"
#include "verdict/finding.h"

namespace tfrig::cli {

// 0 clean, 1 warnings, 2 errors; fail_on: "error" (only errors fail),
// "warning" (default), "info" (any finding), "never".
int exit_code_for_findings(const rules::Summary& summary, const std::string& fail_on);

// doctor --explain RULE: prints the rule's row and its result on this report;
// returns the exit code (64 for an unknown rule).
int explain_rule(report::Report& r, const knowledge::Knowledge& k, const std::string& id, const std::string& tf);

}  // namespace tfrig::cli

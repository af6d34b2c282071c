// explain's judgement as a function, for `tfrig explain` and for logs given to
// `doctor --from` next to a bug report of the same machine.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "explain/explain.h"
#include "knowledge/knowledge.h"
#include "verdict/report.h"

namespace tfrig::cli {

// The findings of a log, judged against the machine when there is one
// (doctor's rules of the same ids, and compat with the log's versions + the machine's).
// log_name: as explain::findings_from.
std::vector<explain::Explained> judged_log_findings(const explain::LogAnalysis& a, const report::Report* machine,
                                                    const knowledge::Knowledge& k, const std::string& log_name = "");

// doctor --from: splits the files into captures for the importer and logs for
// explain (a file the importer does not know whose lines match a signature).
struct FromFiles {
  std::shared_ptr<const explain::SignatureTable> table;  // the logs' hits point into it
  std::vector<std::string> captures;
  std::vector<std::pair<std::string, explain::LogAnalysis>> logs;
};
core::Result<FromFiles> split_from_files(const std::vector<std::string>& paths, const std::string& knowledge_dir);

// Adds the logs' findings to doctor's report (worst first), its summary and verdict.
void add_log_findings(report::Report& r, const FromFiles& files, const knowledge::Knowledge& k);

}  // namespace tfrig::cli

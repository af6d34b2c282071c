// How well the signatures name the causes of real logs: the corpus under
// tests/data/logs/corpus (labels.json: per file its cause id, whether it is
// harmless noise only, and its split, "train" or "heldout"). The recall is
// measured on each split; the false alarms on the harmless-only logs.
// docs/explain.md carries the figures (`tfrig explain --markdown --corpus DIR`).
#pragma once

#include <string>
#include <vector>

#include "core/result.h"
#include "explain/explain.h"

namespace tfrig::explain {

struct CorpusSplit {
  size_t logs = 0;
  size_t named = 0;  // the cause was named by a finding (its row's id or one of its `causes`)
  double recall() const { return logs ? static_cast<double>(named) / static_cast<double>(logs) : 0.0; }
};

struct CorpusFigures {
  bool present = false;  // labels.json was found
  CorpusSplit train, heldout;
  size_t harmless_logs = 0;
  size_t harmless_alarms = 0;  // harmless-only logs with an error or warning finding
  size_t causes = 0;           // distinct cause ids
  // Train logs whose cause was not named ("file (cause)"); held-out misses are
  // counted, not listed, so that nobody tunes a signature on them.
  std::vector<std::string> train_missed;
  std::vector<std::string> alarm_logs;  // harmless train logs that raised an alarm, with the finding
};

// True when the analysis of a log names `cause`.
bool names_cause(const LogAnalysis& a, const std::string& cause);

// Reads DIR/labels.json and every log it names (UTF-16 converted like explain does).
// A missing labels.json gives figures with present = false; a bad one an error naming the file and row.
core::Result<CorpusFigures> measure_corpus(const SignatureTable& table, const std::string& dir);

// The section of docs/explain.md with the figures.
std::string corpus_markdown(const CorpusFigures& f);

}  // namespace tfrig::explain

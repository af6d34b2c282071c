#include "explain/corpus.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/i18n.h"
#include "core/try.h"
#include "explain/explain.h"

namespace tfrig::explain {

namespace {

core::Result<std::string> read_whole(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) return core::fail(core::ErrorCode::kIo, p.string(), _("cannot open"));
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string percent(const CorpusSplit& s) { return s.logs ? fmt::format("{:.1f}%", 100.0 * s.recall()) : "-"; }

}  // namespace

bool names_cause(const LogAnalysis& a, const std::string& cause) {
  for (const auto& h : a.hits) {
    const Signature& s = *h.signature;
    if (s.id == cause || std::find(s.causes.begin(), s.causes.end(), cause) != s.causes.end()) return true;
  }
  return false;
}

core::Result<CorpusFigures> measure_corpus(const SignatureTable& table, const std::string& dir) {
  CorpusFigures f;
  const auto labels_path = std::filesystem::path(dir) / "labels.json";
  std::error_code ec;
  if (!std::filesystem::exists(labels_path, ec)) return f;
  auto text = TFRIG_TRY(read_whole(labels_path));
  nlohmann::json labels;
  try {
    labels = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    return core::fail(core::ErrorCode::kParse, labels_path.string(), e.what());
  }
  if (!labels.is_object())
    return core::fail(core::ErrorCode::kParse, labels_path.string(), _("expected an object of file names"));
  f.present = true;
  std::set<std::string> causes;
  for (const auto& [file, label] : labels.items()) {
    const std::string at = labels_path.string() + ": " + file;
    // A name is a plain file of the corpus folder: no path, so a label cannot point elsewhere.
    if (file.empty() || file.find('/') != std::string::npos || file.find('\\') != std::string::npos || file[0] == '.') {
      return core::fail(core::ErrorCode::kParse, at, _("expected a file name without a folder"));
    }
    if (!label.is_object() || !label.contains("cause") || !label["cause"].is_string() || !label.contains("split") ||
        !label["split"].is_string()) {
      return core::fail(core::ErrorCode::kParse, at, _("expected cause and split"));
    }
    const std::string cause = label["cause"];
    const std::string split = label["split"];
    const auto h = label.find("harmless");
    if (h != label.end() && !h->is_boolean())
      return core::fail(core::ErrorCode::kParse, at + ".harmless", _("expected true or false"));
    const bool harmless = h != label.end() && h->get<bool>();
    if (split != "train" && split != "heldout")
      return core::fail(core::ErrorCode::kParse, at + ".split", _("expected train or heldout"));
    auto log = TFRIG_TRY(read_whole(std::filesystem::path(dir) / file));
    const auto a = analyze_text(table, log);
    const bool named = names_cause(a, cause);
    causes.insert(cause);
    CorpusSplit& s = split == "train" ? f.train : f.heldout;
    ++s.logs;
    if (named) ++s.named;
    if (!named && split == "train") f.train_missed.push_back(fmt::format("{} ({})", file, cause));
    if (harmless) {
      ++f.harmless_logs;
      for (const auto& e : findings_from(a)) {
        if (e.finding.severity >= rules::Severity::kWarning) {
          ++f.harmless_alarms;
          if (split == "train") f.alarm_logs.push_back(fmt::format("{} ({})", file, e.signature->id));
          break;
        }
      }
    }
  }
  f.causes = causes.size();
  return f;
}

std::string corpus_markdown(const CorpusFigures& f) {
  std::string out = "\n## How often it names the cause (the corpus)\n\n";
  out += "Generated with the rest of this page from `tests/data/logs/corpus` (provenance in its SOURCE.md, labels in\n";
  out += "labels.json). The corpus was split once, by issue, before the signatures were written; the held-out logs\n";
  out +=
      "were never read while writing or tuning them. A log counts as named when a finding's row is its cause id or\n";
  out += "lists it in `causes` (the causes the row's text names). An alarm is an error or warning finding on a log\n";
  out += "that holds harmless noise only. The test `ExplainCorpus.FiguresMeetTheThresholds` fails when the figures\n";
  out += "fall below `tests/explain/corpus_thresholds.json`.\n\n";
  if (!f.present) return out + "The corpus is not in this checkout (no labels.json): no figures.\n";
  out += "| measure | value |\n| --- | --- |\n";
  out += fmt::format("| held-out recall | {} of {} ({}) |\n", f.heldout.named, f.heldout.logs, percent(f.heldout));
  out += fmt::format("| train recall | {} of {} ({}) |\n", f.train.named, f.train.logs, percent(f.train));
  out += fmt::format("| alarms on harmless-only logs | {} of {} |\n", f.harmless_alarms, f.harmless_logs);
  out += fmt::format("| distinct causes | {} |\n", f.causes);
  if (!f.train_missed.empty()) {
    out += "\nTrain logs whose cause is not named (held-out misses are counted only):\n\n";
    for (const auto& m : f.train_missed) out += "- `" + m + "`\n";
  }
  if (!f.alarm_logs.empty()) {
    out += "\nHarmless train logs that raise an alarm:\n\n";
    for (const auto& m : f.alarm_logs) out += "- `" + m + "`\n";
  }
  return out;
}

}  // namespace tfrig::explain

// tfrig pipeline's report: the barrel, the what-ifs, the advice; as text
// for people and JSON for programs (the contract in docs/pipeline.md).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/message.h"
#include "core/text_width.h"

#include "pipeline/advice.h"
#include "pipeline/barrel.h"
#include "pipeline/demand.h"
#include "pipeline/measure.h"
#include "pipeline/whatif.h"

namespace tfrig::pipeline {

struct Report {
  std::string data_dir;
  Demand demand;
  Measured measured;
  Barrel barrel;
  double serial_utilization = 0;  // the same stages without prefetch
  std::vector<WhatIf> what_ifs;
  std::optional<WhatIf> cheapest;  // reaching the target; none when already there or nothing does
  double target_utilization = 0.90;
  std::vector<Advice> advice;
  double dataset_samples = 0;
  core::Message dataset_samples_source;  // "--dataset-size" or "files in DIR" (JSON keeps the English)
  std::optional<double> epoch_seconds;
};

struct ReportInputs {
  std::string data_dir;
  Demand demand;
  Measured measured;
  std::optional<double> dataset_size;  // --dataset-size
  std::optional<uint64_t> available_memory_bytes;
  double target_utilization = 0.90;
};

Report build_report(ReportInputs in);

// The report's texts (details, notes, what-ifs, advice) are messages,
// rendered in `language`: the output's (English in JSON unless --lang), so
// one built report renders as Chinese text and English JSON. The text's own
// words (headings, table headers) are in the process's language, the reader's.
// Lines wrap and the what-if table folds to `width` columns (core/text_width.h).
std::string render_text(const Report& r, std::string_view language, size_t width = core::kDefaultTextWidth);
nlohmann::ordered_json render_json(const Report& r, std::string_view language);

}  // namespace tfrig::pipeline

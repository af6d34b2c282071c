// tfrig plan's output: text tables for people, JSON for programs (the
// contract in docs/plan.md), Markdown for a purchase request.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "plan/plan.h"

namespace tfrig::plan {

struct MemoryRow {
  std::string term;
  uint64_t bytes = 0;
  std::string formula;
};
std::vector<MemoryRow> memory_rows(const PlanResult& r);

struct RenderOptions {
  bool all_gpus = false;  // list GPUs that do not fit too
  size_t top = 0;         // 0 = every GPU that fits
};

std::string render_text(const PlanResult& r, const RenderOptions& o);
std::string render_markdown(const PlanResult& r, const RenderOptions& o);
nlohmann::json to_json(const PlanResult& r);

}  // namespace tfrig::plan

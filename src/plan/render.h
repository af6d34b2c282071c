// tfrig plan's output: text tables for people, JSON for programs (the
// JSON contract in docs/plan.md), Markdown for a purchase request.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/text_width.h"
#include "plan/plan.h"

namespace tfrig::plan {

struct MemoryRow {
  std::string term;
  uint64_t bytes = 0;
  std::string formula;
};
std::vector<MemoryRow> memory_rows(const PlanResult& r);

struct RenderOptions {
  bool all_gpus = false;                   // list GPUs that do not fit too
  size_t top = 0;                          // 0 = every GPU that fits
  size_t width = core::kDefaultTextWidth;  // columns: tables fold, lines wrap (core/text_width.h)
  // The language of the plan's messages (notes, staves, the server's lines):
  // the output's. The renderer's own words are in the process's, the reader's.
  std::string language = "en";
};

std::string render_text(const PlanResult& r, const RenderOptions& o);
// JSON contract words as the reader's language shows them (the terminal and
// the HTML report): a throughput basis ("measured"), a ranking order, a
// stave's verdict ("short"); an unknown word comes back as it is.
std::string basis_text(std::string_view basis);
std::string rank_by_text(RankBy b);
std::string stave_verdict_text(std::string_view verdict);
std::string render_markdown(const PlanResult& r, const RenderOptions& o);
// The plan's messages rendered in `language` (the output's: English unless --lang).
nlohmann::json to_json(const PlanResult& r, std::string_view language);

}  // namespace tfrig::plan

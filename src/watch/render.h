// tfrig watch's outputs: the live status line, and the report as text,
// JSON ({..., verdict, phases, samples} last) or CSV (one row per sample).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "core/text_width.h"
#include "watch/classify.h"
#include "watch/sample.h"

namespace tfrig::watch {

std::string status_line(const Sample& s);
// The report in `language` (the output's: the analysis holds messages).
// Lines wrap to `width` columns (core/text_width.h).
std::string render_text(const Recording& rec, const Analysis& a, std::string_view language, const Thresholds& th = {},
                        size_t width = core::kDefaultTextWidth);
nlohmann::ordered_json render_json(const Recording& rec, const Analysis& a, std::string_view language,
                                   const Thresholds& th = {});
std::string render_csv(const Recording& rec, const Analysis& a);

}  // namespace tfrig::watch

// The report's terminal renderers: the findings block and doctor's text by
// area. The model itself and its JSON are verdict/report.h.
#pragma once

#include <string>

#include "core/text_width.h"
#include "verdict/report.h"

namespace tfrig::report {

// The verdict line and the findings grouped by area, worst first, wrapped to
// `width` columns (core/text_width.h) with hanging indents.
std::string render_findings_text(const Report& report, bool color, size_t width);

// The terminal report, by area.
struct TextOptions {
  bool color = false;
  bool show_problems = true;
  size_t width = core::kDefaultTextWidth;  // columns: lines wrap, tables fold (core/text_width.h)
};
std::string render_text(const Report& report, const TextOptions& options);
// The inventory by area and the probes' states, as render_text shows them
// after the findings; not escaped for a terminal (the HTML page escapes it).
std::string render_sections_text(const Report& report, const TextOptions& options);

}  // namespace tfrig::report

// The fleet report as text for people and JSON for programs (docs/fleet.md
// has the JSON contract).
#pragma once

#include <string>
#include <string_view>

#include "core/text_width.h"
#include "fleet/compare.h"

namespace tfrig::fleet {

struct RenderOptions {
  bool color = false;
  size_t max_nodes_listed = 12;            // text only: longer node lists end in "and N more"
  size_t max_odd_nodes = 25;               // text only: the JSON lists every odd node
  size_t width = core::kDefaultTextWidth;  // text only: lines wrap to it (core/text_width.h)
};

std::string render_text(const FleetReport& r, const RenderOptions& options);
// The JSON document (docs/fleet.md), written element by element.
// The JSON: its titles and fixes in `language` (the output language: English
// unless --lang; the page's for the HTML report).
std::string render_json(const FleetReport& r, std::string_view language = "en");

}  // namespace tfrig::fleet

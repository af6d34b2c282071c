// SVG charts for the HTML report, written from the data by a few hundred lines
// of our own (docs/report.md says why not a library). Each chart is a
// <figure> with an SVG (role="img", a <title> and <desc>) followed by a table
// of the same numbers, so that a screen reader, a printout and a search for a
// value all find them. Colours come from the Okabe-Ito palette (readable
// with colour-vision deficiencies) and every mark also has a text label or
// a pattern: colour is never the only signal.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace tfrig::report::html {

// Horizontal bars, one per row, against an optional reference line.
struct Bar {
  std::string label;
  double value = 0;        // NaN: unknown (no bar, "unknown" in the table)
  std::string value_text;  // as shown at the bar's end and in the table
  std::string mark;        // a word shown after the value ("shortest", "fits"); empty for none
  bool highlight = false;  // drawn in the accent colour (with `mark` saying why)
};
struct BarChart {
  std::string title;
  std::string value_header;  // table column for the value ("samples/s")
  std::vector<Bar> bars;
  std::optional<double> reference;  // a dashed line (the GPU's demand, 100%)
  std::string reference_label;
  std::string reference_text;  // the reference's value as the table shows it; empty: the axis's form
  bool log_scale = false;      // for rates that differ by orders of magnitude
  std::optional<double> max;   // the axis end; default: the largest value or reference
  bool with_table = true;      // false: the caller shows the same numbers in its own table
};
std::string bar_chart(const BarChart& chart);

// Stacked horizontal bars (memory by kind) against each bar's capacity.
struct StackedBar {
  std::string label;
  std::vector<double> parts;  // one per StackedChart::part_names
  double capacity = 0;        // drawn as a frame and a line; 0 = none
  std::string note;           // after the bar: "fits", "does not fit"
};
struct StackedChart {
  std::string title;
  std::vector<std::string> part_names;
  std::vector<StackedBar> bars;
  std::string capacity_name;  // "VRAM"
};
// Values are bytes (shown as GiB).
std::string stacked_bytes_chart(const StackedChart& chart);

// Lines over time with shaded phases.
struct Line {
  std::string name;
  std::vector<double> values;  // one per x; NaN = not measured
};
struct Band {
  double start = 0;
  double end = 0;
  std::string label;  // the phase's verdict, written in the band
};
struct LineChart {
  std::string title;
  std::vector<double> x;  // seconds
  std::vector<Line> lines;
  double y_max = 100;
  std::string y_unit = "%";
  std::vector<Band> bands;
};
std::string line_chart(const LineChart& chart);

// A value in [0, 1] as "89.3%".
std::string percent(double share);

}  // namespace tfrig::report::html

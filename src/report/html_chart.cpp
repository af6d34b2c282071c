#include "report/html_chart.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "core/display_width.h"
#include "core/i18n.h"
#include "report/html.h"

namespace tfrig::report::html {

namespace {

// Okabe & Ito, "Color Universal Design" (2008), https://jfly.uni-koeln.de/color/:
// blue, orange, bluish green, reddish purple, sky blue, vermillion.
constexpr const char* kPalette[] = {"#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00"};
constexpr size_t kPaletteSize = sizeof(kPalette) / sizeof(kPalette[0]);
constexpr const char* kAccent = "#D55E00";
// Dash patterns that tell lines apart without colour.
constexpr const char* kDashes[] = {"", "8 4", "2 3", "10 3 2 3", "4 4", "1 2"};

constexpr double kWidth = 760;
constexpr double kLabelWidth = 212;
constexpr double kValueWidth = 204;
constexpr double kRow = 24;

// A coordinate: a value that is not finite (a broken input) draws at 0 rather
// than writing "nan" into the SVG.
std::string num(double v) { return std::isfinite(v) ? fmt::format("{:.1f}", v) : std::string("0.0"); }

// A time in seconds for text and tables; "unknown" for a broken value.
std::string seconds_text(double s) { return std::isfinite(s) ? fmt::format("{:g}", s) : _("unknown"); }

// Labels in the SVG are cut to fit `max_columns` (a Chinese character takes
// two, like the space it takes at the chart's font size); the table keeps them whole.
std::string short_label(const std::string& s, size_t max_columns) {
  if (core::display_width(s) <= max_columns) return s;
  size_t cut = 0;
  size_t columns = 0;
  while (cut < s.size()) {
    size_t next = cut + 1;
    while (next < s.size() && (static_cast<unsigned char>(s[next]) & 0xC0) == 0x80) ++next;  // one UTF-8 sequence
    const size_t w = core::display_width(std::string_view(s).substr(cut, next - cut));
    if (columns + w + 1 > max_columns) break;  // room for the ellipsis
    columns += w;
    cut = next;
  }
  return s.substr(0, cut) + "\u2026";
}

// Pixels a label takes at the charts' 12px font: ~7.2 per column.
double label_pixels(const std::string& s) { return 7.2 * static_cast<double>(core::display_width(s)); }

// A bar's label, right-aligned against the bars: cut (with an ellipsis) to
// the label area at the widest glyphs of the 12px font (DejaVu Sans capitals
// and digits up to ~8.5px, a CJK character one em), so a long GPU name is
// never cut by the chart's left edge; the whole label is the text's tooltip
// (and stays whole in the table under the chart).
std::string bar_label(double x, double y, const std::string& label) {
  constexpr double kNarrow = 8.5, kWide = 12.5, kRoom = kLabelWidth - 10;
  double px = 0;
  size_t cut = 0;
  bool whole = true;
  while (cut < label.size()) {
    size_t next = cut + 1;
    while (next < label.size() && (static_cast<unsigned char>(label[next]) & 0xC0) == 0x80)
      ++next;  // one UTF-8 sequence
    const double w = core::display_width(std::string_view(label).substr(cut, next - cut)) > 1 ? kWide : kNarrow;
    if (px + w > kRoom) {
      whole = false;
      break;
    }
    px += w;
    cut = next;
  }
  if (!whole) {
    // Room for the ellipsis: drop characters until it fits.
    while (cut > 0 && px + kWide > kRoom) {
      size_t prev = cut - 1;
      while (prev > 0 && (static_cast<unsigned char>(label[prev]) & 0xC0) == 0x80) --prev;
      px -= core::display_width(std::string_view(label).substr(prev, cut - prev)) > 1 ? kWide : kNarrow;
      cut = prev;
    }
  }
  const std::string shown = whole ? label : label.substr(0, cut) + "\u2026";
  const std::string tip = whole ? "" : "<title>" + escape(label) + "</title>";
  return fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}{}</text>", num(x), num(y), tip, escape(shown));
}

// A chart's title as the first sentence of its text alternative.
// TRANSLATORS: {} is a chart's title, followed by what the chart shows.
std::string title_sentence(const std::string& title) { return trf("{}. ", title); }

std::string svg_open(double height, const std::string& id, const std::string& title, const std::string& desc) {
  return fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {:.0f} {:.0f}\" width=\"{:.0f}\" height=\"{:.0f}\" role=\"img\" "
      "aria-label=\"{}\" data-chart=\"{}\"><title>{}</title><desc>{}</desc>",
      kWidth, height, kWidth, height, escape(title_sentence(title) + desc), id, escape(title), escape(desc));
}

// Unique ids for <title>/<desc> within one page.
std::string next_id() {
  static thread_local int counter = 0;
  return fmt::format("chart{}", ++counter);
}

struct Scale {
  bool log = false;
  double lo = 0;
  double hi = 1;
  double x0 = 0;
  double x1 = 1;
  double at(double v) const {
    double t = 0;
    if (log) {
      t = v <= 0 ? 0 : (std::log10(v) - std::log10(lo)) / (std::log10(hi) - std::log10(lo));
    } else {
      t = (v - lo) / (hi - lo);
    }
    return x0 + std::clamp(t, 0.0, 1.0) * (x1 - x0);
  }
};

// Round axis ends: 1, 2 or 5 times a power of ten.
double nice_ceiling(double v) {
  if (v <= 0 || !std::isfinite(v) || v > 1e300) return 1;
  const double p = std::pow(10.0, std::floor(std::log10(v)));
  for (double m : {1.0, 2.0, 4.0, 5.0, 10.0}) {
    if (m * p >= v * 0.999) return m * p;
  }
  return 10 * p;
}

std::string tick_text(double v) {
  const double a = std::fabs(v);
  if (a >= 1e9) return fmt::format("{:g}G", v / 1e9);
  if (a >= 1e6) return fmt::format("{:g}M", v / 1e6);
  if (a >= 1e4) return fmt::format("{:g}k", v / 1e3);
  return fmt::format("{:g}", v);
}

std::string figure(const std::string& title, const std::string& svg, const std::string& table_html) {
  return "<figure>" + svg + "<figcaption>" + escape(title) + "</figcaption>" + table_html + "</figure>\n";
}

}  // namespace

std::string percent(double share) {
  if (!std::isfinite(share)) return _("unknown");
  return fmt::format("{:.1f}%", share * 100);
}

namespace {

// The value axis of a bar chart: log when asked and the values allow it,
// else linear from 0 to `max` or a round end above the largest value.
Scale bar_scale(const BarChart& c) {
  double max = c.reference.value_or(0);
  double min_pos = c.reference && *c.reference > 0 ? *c.reference : INFINITY;
  for (const auto& b : c.bars) {
    if (std::isfinite(b.value)) {
      max = std::max(max, b.value);
      if (b.value > 0) min_pos = std::min(min_pos, b.value);
    }
  }
  Scale s;
  s.log = c.log_scale && std::isfinite(min_pos);
  s.x0 = kLabelWidth;
  s.x1 = kWidth - kValueWidth;
  if (s.log) {
    s.lo = std::pow(10.0, std::floor(std::log10(min_pos)));
    s.hi = std::pow(10.0, std::ceil(std::log10(std::max(max, min_pos * 10))));
    // Denormals and the top of double: no usable decade, draw it linear.
    if (!(s.lo > 0) || !std::isfinite(s.hi)) {
      s.log = false;
      s.lo = 0;
    }
  }
  if (!s.log) {
    s.hi = c.max.value_or(nice_ceiling(max));
  }
  return s;
}

// The bar chart's text alternative: its title, each bar, the reference.
std::string bar_chart_desc(const BarChart& c) {
  std::string desc = title_sentence(c.title);
  for (const auto& b : c.bars) {
    desc +=
        // TRANSLATORS: one bar in a chart's text alternative: its label, its value (and a mark such as "shortest").
        b.mark.empty() ? trf("{}: {}; ", b.label, b.value_text) : trf("{}: {} ({}); ", b.label, b.value_text, b.mark);
  }
  // TRANSLATORS: the reference line of a chart ("GPU demand 711/s"), ending its text alternative.
  if (c.reference) desc += trf("{}.", c.reference_label);
  return desc;
}

// The grid lines, tick labels and axis of a bar chart.
std::string bar_grid_svg(const Scale& s, double top, double axis_y) {
  std::vector<double> ticks;
  if (s.log) {
    for (double t = s.lo; t <= s.hi * 1.0001 && ticks.size() < 16; t *= 10) ticks.push_back(t);
  } else {
    for (int i = 0; i <= 4; ++i) ticks.push_back(s.lo + (s.hi - s.lo) * i / 4);
  }
  std::string svg;
  for (double t : ticks) {
    const double x = s.at(t);
    svg += fmt::format("<line class=\"grid\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"/>", num(x), num(top), num(x),
                       num(axis_y));
    svg += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>", num(x), num(axis_y + 16),
                       escape(tick_text(t)));
  }
  svg += fmt::format("<line class=\"axis\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"/>", num(s.x0), num(axis_y),
                     num(s.x1), num(axis_y));
  return svg;
}

// One bar at height `y`: its label, the bar, its value and mark.
std::string bar_svg(const Bar& b, const Scale& s, double y) {
  std::string svg = bar_label(kLabelWidth - 6, y + 16, b.label);
  double end = s.x0;
  if (std::isfinite(b.value)) {
    end = std::max(s.at(b.value), s.x0 + 1);
    svg += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"16\" fill=\"{}\"/>", num(s.x0), num(y + 4),
                       num(end - s.x0), b.highlight ? kAccent : kPalette[0]);
  }
  std::string text = b.value_text + (b.mark.empty() ? "" : " \u2190 " + b.mark);
  svg += fmt::format("<text x=\"{}\" y=\"{}\"{}>{}</text>", num(end + 4), num(y + 16),
                     b.highlight ? " font-weight=\"bold\"" : "", escape(short_label(text, 28)));
  return svg;
}

// The dashed reference line across the bars and its label above them.
std::string reference_svg(const BarChart& c, const Scale& s, double top, double axis_y) {
  const double x = s.at(*c.reference);
  return fmt::format("<line class=\"ref\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"/>", num(x), num(top - 4), num(x),
                     num(axis_y)) +
         fmt::format("<text x=\"{}\" y=\"12\" text-anchor=\"{}\">{}</text>", num(x),
                     x > kWidth - 200 ? "end" : "middle", escape(c.reference_label));
}

// The bar chart's numbers as a table: each bar, then the reference.
std::string bar_chart_table(const BarChart& c) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& b : c.bars) {
    rows.push_back({escape(b.label), escape(b.value_text), escape(b.mark)});
  }
  if (c.reference) {
    // A measured reference (the GPU's demand, 751.927/s) in the bars' own form, not the axis's.
    const std::string value = c.reference_text.empty() ? tick_text(*c.reference) : c.reference_text;
    rows.push_back({"<em>" + escape(c.reference_label) + "</em>", escape(value), ""});
  }
  return table("", {"", c.value_header, ""}, rows);
}

}  // namespace

std::string bar_chart(const BarChart& c) {
  const std::string id = next_id();
  const Scale s = bar_scale(c);
  const double top = c.reference ? 20 : 6;
  const double height = top + kRow * static_cast<double>(c.bars.size()) + 26;
  const double axis_y = top + kRow * static_cast<double>(c.bars.size());
  std::string svg = svg_open(height, id, c.title, bar_chart_desc(c));
  svg += bar_grid_svg(s, top, axis_y);
  for (size_t i = 0; i < c.bars.size(); ++i) svg += bar_svg(c.bars[i], s, top + kRow * static_cast<double>(i));
  if (c.reference) svg += reference_svg(c, s, top, axis_y);
  svg += "</svg>";
  return figure(c.title, svg, c.with_table ? bar_chart_table(c) : "");
}

namespace {

constexpr double kGiB = 1024.0 * 1024 * 1024;

// The bytes of a stacked bar (its parts, a negative one as 0).
double stacked_total(const StackedBar& b) {
  double total = 0;
  for (double p : b.parts) total += std::max(p, 0.0);
  return total;
}

// The stacked chart's text alternative: each bar's total against its capacity.
std::string stacked_desc(const StackedChart& c) {
  std::string desc = title_sentence(c.title);
  for (const auto& b : c.bars) {
    // TRANSLATORS: one GPU in the memory chart's text alternative: "A100: 11.8 GiB of 40 GiB VRAM; ".
    desc += trf("{}: {} of {} {}; ", b.label, human_bytes(stacked_total(b)), human_bytes(b.capacity), c.capacity_name);
  }
  return desc;
}

// The legend above the stacked bars: a swatch per part, then the capacity's line.
std::string stacked_legend_svg(const StackedChart& c) {
  std::string svg;
  double lx = 4;
  for (size_t p = 0; p < c.part_names.size(); ++p) {
    svg += fmt::format("<rect x=\"{}\" y=\"5\" width=\"12\" height=\"12\" fill=\"{}\"/>", num(lx),
                       kPalette[p % kPaletteSize]);
    svg += fmt::format("<text x=\"{}\" y=\"15\">{}</text>", num(lx + 16), escape(c.part_names[p]));
    lx += 24 + label_pixels(c.part_names[p]);
  }
  svg += fmt::format("<line class=\"ref\" x1=\"{}\" y1=\"11\" x2=\"{}\" y2=\"11\"/><text x=\"{}\" y=\"15\">{}</text>",
                     num(lx), num(lx + 18), num(lx + 22), escape(c.capacity_name));
  return svg;
}

// The GiB grid of the stacked chart.
std::string gib_grid_svg(const Scale& s, double top, double axis_y) {
  std::string svg;
  for (int i = 0; i <= 4; ++i) {
    const double v = s.hi * i / 4;
    const double x = s.at(v);
    svg += fmt::format("<line class=\"grid\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"/>", num(x), num(top), num(x),
                       num(axis_y));
    svg += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>", num(x), num(axis_y + 16),
                       escape(fmt::format("{:g} GiB", v / kGiB)));
  }
  return svg;
}

// One stacked bar at height `y`: its label, its parts end to end, its capacity line and note.
std::string stacked_bar_svg(const StackedBar& b, const std::vector<std::string>& part_names, const Scale& s, double y) {
  std::string svg = bar_label(kLabelWidth - 6, y + 16, b.label);
  double acc = 0;
  for (size_t p = 0; p < b.parts.size(); ++p) {
    const double v = std::max(b.parts[p], 0.0);
    if (v <= 0) continue;
    const double x_a = s.at(acc);
    const double x_b = s.at(acc + v);
    svg += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"16\" fill=\"{}\"><title>{}: {}</title></rect>",
                       num(x_a), num(y + 4), num(std::max(x_b - x_a, 0.5)), kPalette[p % kPaletteSize],
                       escape(p < part_names.size() ? part_names[p] : ""), escape(human_bytes(v)));
    acc += v;
  }
  double end = s.at(acc);
  if (b.capacity > 0) {
    const double x = s.at(b.capacity);
    svg += fmt::format("<line class=\"ref\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"/>", num(x), num(y + 1), num(x),
                       num(y + 23));
    end = std::max(end, x);
  }
  svg += fmt::format("<text x=\"{}\" y=\"{}\">{}</text>", num(end + 4), num(y + 16), escape(short_label(b.note, 18)));
  return svg;
}

// The stacked chart's numbers: a row per bar, a column per part, the total, the capacity and the note.
std::string stacked_table(const StackedChart& c) {
  std::vector<std::string> header{""};
  for (const auto& n : c.part_names) header.push_back(n);
  header.push_back(C_("memory chart", "total"));
  header.push_back(c.capacity_name);
  header.push_back("");
  std::vector<std::vector<std::string>> rows;
  for (const auto& b : c.bars) {
    std::vector<std::string> row{escape(b.label)};
    double total = 0;
    for (double p : b.parts) {
      row.push_back(escape(human_bytes(std::max(p, 0.0))));
      total += std::max(p, 0.0);
    }
    row.push_back(escape(human_bytes(total)));
    row.push_back(escape(b.capacity > 0 ? human_bytes(b.capacity) : _("unknown")));
    row.push_back(escape(b.note));
    rows.push_back(std::move(row));
  }
  return table("", header, rows);
}

}  // namespace

std::string stacked_bytes_chart(const StackedChart& c) {
  const std::string id = next_id();
  double max = 0;
  for (const auto& b : c.bars) max = std::max({max, stacked_total(b), b.capacity});
  Scale s;
  s.x0 = kLabelWidth;
  s.x1 = kWidth - kValueWidth;
  s.hi = nice_ceiling(max / kGiB) * kGiB;
  const double legend_h = 22;
  const double top = legend_h + 4;
  const double axis_y = top + kRow * static_cast<double>(c.bars.size());
  const double height = axis_y + 26;
  std::string svg = svg_open(height, id, c.title, stacked_desc(c));
  svg += stacked_legend_svg(c);
  svg += gib_grid_svg(s, top, axis_y);
  for (size_t i = 0; i < c.bars.size(); ++i)
    svg += stacked_bar_svg(c.bars[i], c.part_names, s, top + kRow * static_cast<double>(i));
  svg += "</svg>";
  return figure(c.title, svg, stacked_table(c));
}

namespace {

constexpr double kLineLeft = 48;
constexpr double kLineRight = 12;
constexpr double kLineTop = 22;
constexpr double kPlotH = 180;

// The line chart's plot area: seconds across, the value up to `y_max`.
struct TimePlot {
  double x_start = 0;
  double x_end = 1;
  double y_max = 100;
  double px(double t) const {
    return kLineLeft + (t - x_start) / (x_end - x_start) * (kWidth - kLineLeft - kLineRight);
  }
  double py(double v) const { return kLineTop + kPlotH - std::clamp(v / y_max, 0.0, 1.0) * kPlotH; }
};

TimePlot time_plot(const LineChart& c) {
  const double last = c.x.empty() ? 1 : c.x.back();
  const double first = c.x.empty() ? 0 : c.x.front();
  TimePlot plot;
  plot.x_end = std::isfinite(last) ? std::max(last, 1e-9) : 1;
  plot.x_start = std::isfinite(first) ? std::min(first, 0.0) : 0;
  if (!(plot.x_end > plot.x_start) || !std::isfinite(plot.x_end - plot.x_start))
    plot.x_start = plot.x_end - 1;  // unordered or broken times
  plot.y_max = c.y_max;
  return plot;
}

// The phases as shaded bands, each with its verdict written in it.
std::string bands_svg(const LineChart& c, const TimePlot& plot) {
  std::string svg;
  for (size_t i = 0; i < c.bands.size(); ++i) {
    const auto& b = c.bands[i];
    const double xa = plot.px(b.start);
    const double xb = std::max(plot.px(b.end), xa + 1);
    svg += fmt::format(
        "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\" stroke=\"#8c959f\" stroke-width=\"0.5\"/>",
        num(xa), num(kLineTop), num(xb - xa), num(kPlotH), i % 2 == 0 ? "#eef2f6" : "#fbf6ea");
    svg += fmt::format("<text x=\"{}\" y=\"{}\">{}</text>", num(xa + 3), num(kLineTop - 6),
                       escape(short_label(b.label, std::isfinite(xb - xa) && xb - xa > 28
                                                       ? static_cast<size_t>(std::min((xb - xa) / 7, 1000.0))
                                                       : 4)));
  }
  return svg;
}

// The value grid, the time ticks and the time axis.
std::string time_axes_svg(const LineChart& c, const TimePlot& plot) {
  std::string svg;
  for (int i = 0; i <= 4; ++i) {
    const double v = c.y_max * i / 4;
    svg += fmt::format("<line class=\"grid\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"/>", num(kLineLeft),
                       num(plot.py(v)), num(kWidth - kLineRight), num(plot.py(v)));
    svg += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>", num(kLineLeft - 4), num(plot.py(v) + 4),
                       escape(fmt::format("{:g}{}", v, c.y_unit)));
  }
  for (int i = 0; i <= 5; ++i) {
    const double t = plot.x_start + (plot.x_end - plot.x_start) * i / 5;
    svg += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"{}\">{}</text>", num(plot.px(t)),
                       num(kLineTop + kPlotH + 16),
                       i == 5   ? "end"
                       : i == 0 ? "start"
                                : "middle",
                       escape(fmt::format("{:.3g} s", t)));
  }
  svg += fmt::format("<line class=\"axis\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"/>", num(kLineLeft),
                     num(kLineTop + kPlotH), num(kWidth - kLineRight), num(kLineTop + kPlotH));
  return svg;
}

// Line `l`'s polylines, broken where a sample was not measured (every
// `step`th sample drawn).
std::string line_svg(const LineChart& c, size_t l, const TimePlot& plot, size_t step) {
  const auto& line = c.lines[l];
  std::string svg;
  std::string points;
  auto flush = [&] {
    if (points.empty()) return;
    svg += fmt::format("<polyline fill=\"none\" stroke=\"{}\" stroke-width=\"2\"{} points=\"{}\"/>",
                       kPalette[l % kPaletteSize],
                       kDashes[l % 6][0] ? fmt::format(" stroke-dasharray=\"{}\"", kDashes[l % 6]) : "", points);
    points.clear();
  };
  for (size_t i = 0; i < c.x.size() && i < line.values.size(); i += step) {
    if (!std::isfinite(line.values[i])) {
      flush();
      continue;
    }
    points += fmt::format("{},{} ", num(plot.px(c.x[i])), num(plot.py(line.values[i])));
  }
  flush();
  return svg;
}

// The lines and their legend under the plot.
std::string lines_svg(const LineChart& c, const TimePlot& plot, double legend_y) {
  // At most ~600 points per line: a day of samples still draws small.
  const size_t step = std::max<size_t>(1, c.x.size() / 600);
  std::string svg;
  double lx = kLineLeft;
  for (size_t l = 0; l < c.lines.size(); ++l) {
    svg += line_svg(c, l, plot, step);
    svg += fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{}\" stroke-width=\"2\"{}/>", num(lx),
                       num(legend_y - 4), num(lx + 22), num(legend_y - 4), kPalette[l % kPaletteSize],
                       kDashes[l % 6][0] ? fmt::format(" stroke-dasharray=\"{}\"", kDashes[l % 6]) : "");
    svg += fmt::format("<text x=\"{}\" y=\"{}\">{}</text>", num(lx + 26), num(legend_y), escape(c.lines[l].name));
    lx += 40 + label_pixels(c.lines[l].name);
  }
  return svg;
}

// The numbers: every sample up to 120 rows, else evenly spread ones, folded.
std::string line_table(const LineChart& c) {
  // TRANSLATORS: the time column of a chart's numbers, in seconds.
  std::vector<std::string> header{_("t (s)")};
  for (const auto& l : c.lines) header.push_back(l.name);
  std::vector<std::vector<std::string>> rows;
  const size_t table_step = std::max<size_t>(1, (c.x.size() + 119) / 120);
  for (size_t i = 0; i < c.x.size(); i += table_step) {
    std::vector<std::string> row{escape(seconds_text(c.x[i]))};
    for (const auto& l : c.lines) {
      row.push_back(i < l.values.size() && std::isfinite(l.values[i]) ? escape(fmt::format("{:.1f}", l.values[i]))
                                                                      : escape(_("unknown")));
    }
    rows.push_back(std::move(row));
  }
  const std::string caption = table_step == 1
                                  ? _("The numbers (every sample)")
                                  // TRANSLATORS: {} is how many samples apart the table's rows are ("every 5th").
                                  : trf("The numbers (every {}th sample)", table_step);
  return "<details><summary>" + escape(caption) + "</summary>" + table("", header, rows) + "</details>";
}

}  // namespace

std::string line_chart(const LineChart& c) {
  const std::string id = next_id();
  const double legend_y = kLineTop + kPlotH + 38;
  const double height = legend_y + 8;
  const TimePlot plot = time_plot(c);
  std::string desc = title_sentence(c.title);
  // TRANSLATORS: one phase in the timeline's text alternative: start and end in seconds, then its verdict.
  for (const auto& b : c.bands) desc += trf("{}-{} s: {}; ", seconds_text(b.start), seconds_text(b.end), b.label);
  std::string svg = svg_open(height, id, c.title, desc);
  svg += bands_svg(c, plot);
  svg += time_axes_svg(c, plot);
  svg += lines_svg(c, plot, legend_y);
  svg += "</svg>";
  return figure(c.title, svg, line_table(c));
}

}  // namespace tfrig::report::html

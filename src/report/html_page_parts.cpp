#include "report/html_page_parts.h"

#include <cmath>

#include <fmt/format.h>

#include "core/i18n.h"
#include "plan/cost_report.h"
#include "plan/prices.h"

namespace tfrig::report::html::detail {

using nlohmann::json;

std::string str(const json& j, std::string_view key) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_string()) return "";
  return it->get<std::string>();
}

double dbl(const json& j, std::string_view key) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_number()) return NAN;
  return it->get<double>();
}

int integer(const json& j, std::string_view key, int fallback) {
  const double v = dbl(j, key);
  if (!std::isfinite(v) || v < -1e9 || v > 1e9) return fallback;
  return static_cast<int>(v);
}

const json& member(const json& j, std::string_view key) {
  static const json kNull;
  if (!j.is_object()) return kNull;
  auto it = j.find(key);
  return it == j.end() ? kNull : *it;
}

const json& array(const json& j, std::string_view key) {
  static const json kEmpty = json::array();
  const json& m = member(j, key);
  return m.is_array() ? m : kEmpty;
}

std::string with_code(const std::string& text) {
  std::string out;
  bool in_code = false;
  size_t start = 0;
  for (size_t i = 0; i <= text.size(); ++i) {
    if (i == text.size() || text[i] == '`') {
      const std::string piece = escape(text.substr(start, i - start));
      out += in_code ? "<code>" + piece + "</code>" : piece;
      if (i < text.size()) in_code = !in_code;
      start = i + 1;
    }
  }
  return out;
}

std::string kv(const std::vector<std::pair<std::string, std::string>>& rows) {
  std::vector<std::vector<std::string>> cells;
  for (const auto& [k, v] : rows) cells.push_back({"<strong>" + escape(k) + "</strong>", v});
  return table("", {}, cells, "kv");
}

std::string raw_data_details(const std::string& summary, const std::string& html) {
  return "<details class=\"raw\"><summary>" + escape(summary) + "</summary>" + html + "</details>\n";
}

std::string all_data(const json& doc, std::string_view command) {
  return raw_data_details(trf("Every value of the {} JSON output", command), json_html(doc));
}

std::string all_data_summary(const json& doc, const std::string& summary) {
  return raw_data_details(summary, json_html(doc));
}

std::string source_line(const std::string& html) {
  // TRANSLATORS: before the sources of a finding or an advice (links or names).
  // {} is HTML: the catalog's words go into the page as they are.
  return "<p class=\"meta\">" + trf("Source: {}", html) + "</p>";
}

std::string none_paragraph() { return "<p>" + escape(_("None.")) + "</p>"; }

std::string verdict_box(std::string_view severity_class, const std::string& html_text) {
  return "<p class=\"verdict " + escape(severity_class) + "\">" + html_text + "</p>\n";
}

std::string money_cell(const json& j, std::string_view key, const std::string& currency) {
  const double v = dbl(j, key);
  return escape(std::isfinite(v) ? plan::format_money(v, currency) : std::string("-"));
}

std::string hours_cell(const json& j, std::string_view key) {
  const double v = dbl(j, key);
  return escape(std::isfinite(v) && v > 0 ? plan::format_hours(v) : std::string("-"));
}

std::string busy_cell(const json& j) {
  const double v = dbl(j, "gpu_utilization");
  return escape(std::isfinite(v) ? fmt::format("{:.0f}%", v * 100) : std::string("-"));
}

std::string prices_paragraphs(const json& rc, const std::string& currency) {
  std::string body;
  const std::string source = str(rc, "prices_source");
  if (source.empty())
    body +=
        "<p class=\"meta\">" +
        escape(_(
            "no prices given: --prices FILE, --rent \"GPU=PRICE\", --buy \"GPU=PRICE\" (data/prices.example.yaml shows the fields)")) +
        "</p>";
  else
    // TRANSLATORS: {0} where the prices come from, {1} their currency.
    body += "<p class=\"meta\">" + escape(trf("prices: {0}, {1}", source, currency)) + "</p>";
  const json& x = member(rc, "exchange_rate");
  if (x.is_object() && std::isfinite(dbl(x, "rate")))
    body += "<p class=\"meta\">" +
            escape(plan::exchange_rate_text(
                plan::ExchangeRate{str(x, "from"), str(x, "to"), dbl(x, "rate"), core::Message("{}", str(x, "source"))},
                core::i18n::language())) +
            "</p>";
  return body;
}

}  // namespace tfrig::report::html::detail

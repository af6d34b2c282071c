// The parts the HTML pages share (report/html_pages.h is their interface):
// reading a command's JSON output as a page may find it (any shape: a file
// given to tfrig report can hold anything), and the blocks every page uses.
// Each command's page is in its own file (report/html_<command>_page.cpp).
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "report/html.h"

namespace tfrig::report::html::detail {

// A member's string, "" when absent or not a string.
std::string str(const nlohmann::json& j, std::string_view key);
// A member's number, NaN when absent or not a number.
double dbl(const nlohmann::json& j, std::string_view key);
// An integer field, or `fallback` when absent, not a number, or outside int
// (1e300 must not reach a cast).
int integer(const nlohmann::json& j, std::string_view key, int fallback);
// A member, null when `j` is not an object or has no `key`.
const nlohmann::json& member(const nlohmann::json& j, std::string_view key);
// A member that is an array, else an empty array.
const nlohmann::json& array(const nlohmann::json& j, std::string_view key);

// Backtick spans in a fix or message as <code>; everything escaped.
std::string with_code(const std::string& text);
// A two-column table of names (plain text) and values (HTML).
std::string kv(const std::vector<std::pair<std::string, std::string>>& rows);
// A folded view of machine data (JSON field names and values as programs
// read them, English by contract): class "raw" marks it for readers and tests.
std::string raw_data_details(const std::string& summary, const std::string& html);
// The whole document folded; `command`: the tfrig command that wrote the JSON ("plan").
std::string all_data(const nlohmann::json& doc, std::string_view command);
std::string all_data_summary(const nlohmann::json& doc, const std::string& summary);
// "Source: " before a list of links or a name (HTML).
std::string source_line(const std::string& html);
std::string none_paragraph();
// The verdict at the top of a page, coloured by `severity_class`.
std::string verdict_box(std::string_view severity_class, const std::string& html_text);

// The time and money of a run (plan's and pipeline's run_cost):
// an amount with its currency ("¥1,825.00") or "-",
std::string money_cell(const nlohmann::json& j, std::string_view key, const std::string& currency);
// hours as "3.2 h" or "-",
std::string hours_cell(const nlohmann::json& j, std::string_view key);
// a GPU's busy share as the terminal writes it ("100%"),
std::string busy_cell(const nlohmann::json& j);
// where the prices come from, in the currency of every amount, and the rate
// that converted them (the lines the terminal prints above its table).
std::string prices_paragraphs(const nlohmann::json& rc, const std::string& currency);

// Each command's sections; anchors start with `p`.
std::vector<Section> doctor_sections(const nlohmann::json& d, std::string_view p);
std::vector<Section> plan_sections(const nlohmann::json& d, std::string_view p);
std::vector<Section> pipeline_sections(const nlohmann::json& d, std::string_view p);
std::vector<Section> bench_sections(const nlohmann::json& d, std::string_view p);
std::vector<Section> watch_sections(const nlohmann::json& d, std::string_view p);
std::vector<Section> fleet_sections(const nlohmann::json& d, std::string_view p);

// A watch verdict ("io_bound") for people: the terminal's phrase in Chinese
// (watch::verdict_label), the JSON name with spaces in English ("io bound").
std::string verdict_words(const std::string& v);

}  // namespace tfrig::report::html::detail

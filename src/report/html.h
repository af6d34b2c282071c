// The HTML report's building blocks (docs/report.md): escaping, the page
// skeleton with its inline style sheet and Content-Security-Policy, tables,
// severity marks, and a generic rendering of any JSON value so that every
// fact of a command's JSON output is also on its page. Pure functions from
// values to text; the pages themselves are in html_pages.h, charts in
// html_chart.h.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace tfrig::report::html {

// Text from the input (a GPU name, a path, a log line) for element content
// or a quoted attribute value: & < > " ' become entities; invalid UTF-8 and
// control characters (C0, C1, bidi overrides) first become "\xNN"
// (core::terminal_text, without colour), so the page is
// always valid UTF-8 and a hostile value can never open a tag or attribute.
std::string escape(std::string_view s);

// One part of a page: a heading (h2) with an anchor, and HTML already built.
struct Section {
  std::string id;     // the anchor: [a-z0-9-] only (made by the caller)
  std::string title;  // plain text, escaped here
  std::string body;   // HTML
};

struct Page {
  std::string title;     // plain text: <title> and the h1
  std::string subtitle;  // plain text under the h1: where the data came from, when
  std::vector<Section> sections;
  std::string notice;  // plain text: a caveat about the whole page, shown above the contents
};

// A whole document: doctype, charset, CSP that forbids every fetch, inline
// CSS (screen, phone width, print), a table of contents, the sections.
std::string render_page(const Page& page);

// An anchor id from any text: lower case letters and digits, '-' between.
std::string anchor(std::string_view text);

// "error" / "warning" / "info" / "ok" (any other word as it is) as a badge that
// carries the word itself, not only its colour; the word in the interface's
// language ("ERROR", "错误"), the class stays the JSON's word.
std::string severity_badge(std::string_view severity);
std::string severity_word(std::string_view severity);

// The page's lang attribute: the interface language as a BCP 47 tag ("en", "zh-CN").
std::string page_language();

// A table: header cells are plain text (escaped here), row cells are HTML
// (escape them with escape()). caption: plain text, may be empty.
std::string table(std::string_view caption, const std::vector<std::string>& header,
                  const std::vector<std::vector<std::string>>& rows, std::string_view css_class = "");

// A scalar JSON value as page text, escaped: strings as they are, numbers as
// in the JSON (so a reader can find them), with a readable form next to
// *_bytes and *_s values, true/false as yes/no, null as "unknown".
std::string json_value_html(const nlohmann::json& value, std::string_view key = "");

// Any JSON value as nested tables: objects as key/value tables, arrays of
// objects as one table with a column per key, other arrays as lists. Every
// scalar of the input is in the output.
std::string json_html(const nlohmann::json& value);

// A number for people: 3 significant digits, thousands kept ("711", "0.893",
// "598,022"). Not for the data tables (those keep the JSON's digits).
std::string human_number(double v);
// Bytes as "11.8 GiB".
std::string human_bytes(double bytes);

// Turns a link from the input into an <a> only when it is http(s); any other
// text is shown escaped (a javascript: URL never becomes a link).
std::string link_or_text(std::string_view url);

}  // namespace tfrig::report::html

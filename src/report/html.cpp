#include "report/html.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <set>

#include <fmt/format.h>

#include "core/escape.h"
#include "core/i18n.h"
#include "core/terminal_text.h"
#include "core/units.h"

namespace tfrig::report::html {

namespace {

// The page's only style sheet. Chinese: the fonts after DejaVu Sans hold the
// CJK characters it lacks (Noto Sans CJK SC, WenQuanYi on Linux, Microsoft
// YaHei on Windows, PingFang SC on macOS); a Chinese page (lang zh-CN) puts
// them first, so a heading's Latin and CJK come from one font of one weight
// rather than bold DejaVu beside a CJK face without bold; table cells break Chinese at
// spaces and punctuation only (word-break:keep-all), so a two-character
// word in a narrow column is not stacked one character a line. Colours: text and every severity colour on
// its background have a contrast ratio of at least 4.5:1 (WCAG 2.1 SC 1.4.3,
// https://www.w3.org/TR/WCAG21/#contrast-minimum); checked in docs/report.md.
constexpr std::string_view kStyle = R"css(
:root{--fg:#1b1f24;--muted:#4d5660;--line:#d0d7de;--bg:#fff;--band:#f6f8fa;--err:#a4001d;--errbg:#fde8ec;--warn:#7a4a00;--warnbg:#fff4d6;--info:#0b4f9c;--infobg:#e6f0fb;--ok:#1a6b2f;--okbg:#e5f5e9}
*{box-sizing:border-box}
body{margin:0;font:15px/1.5 "DejaVu Sans","Noto Sans CJK SC","WenQuanYi Micro Hei","WenQuanYi Zen Hei","Microsoft YaHei","PingFang SC",system-ui,sans-serif;color:var(--fg);background:var(--bg)}
header.top{background:#24292f;color:#fff;padding:16px 24px}
header.top h1{margin:0;font-size:22px}
header.top p{margin:4px 0 0;color:#d8dee4;font-size:13px;overflow-wrap:anywhere}
nav.toc{padding:8px 24px;border-bottom:1px solid var(--line);background:var(--band);font-size:13px}
nav.toc a{margin-right:14px;color:var(--info);white-space:nowrap}
main{max-width:1200px;margin:0 auto;padding:8px 24px 40px}
h2{font-size:19px;border-bottom:2px solid var(--line);padding-bottom:4px;margin:28px 0 12px}
h3{font-size:16px;margin:18px 0 6px}
h4{font-size:14px;margin:12px 0 4px;color:var(--muted)}
p{margin:6px 0;overflow-wrap:anywhere}
a{color:var(--info)}
.verdict{font-size:18px;font-weight:600;margin:12px 0;padding:10px 14px;border-left:6px solid var(--muted);background:var(--band)}
.verdict.error{border-color:var(--err);background:var(--errbg)}
.verdict.warning{border-color:var(--warn);background:var(--warnbg)}
.verdict.ok{border-color:var(--ok);background:var(--okbg)}
.verdict.info{border-color:var(--info);background:var(--infobg)}
.sev{display:inline-block;min-width:5.6em;text-align:center;font-size:12px;font-weight:700;letter-spacing:.04em;padding:1px 6px;border-radius:3px;border:1px solid currentColor;vertical-align:1px;text-transform:uppercase}
.sev.error{color:var(--err);background:var(--errbg)}
.sev.warning{color:var(--warn);background:var(--warnbg)}
.sev.info{color:var(--info);background:var(--infobg)}
.sev.ok{color:var(--ok);background:var(--okbg)}
.counts span{margin-right:10px}
article.finding{border:1px solid var(--line);border-left:6px solid var(--muted);border-radius:4px;padding:8px 14px;margin:12px 0;break-inside:avoid}
article.finding.error{border-left-color:var(--err)}
article.finding.warning{border-left-color:var(--warn)}
article.finding.info{border-left-color:var(--info)}
article.finding h3{margin:4px 0}
.meta{color:var(--muted);font-size:13px}
html:lang(zh) body{font-family:"PingFang SC","Microsoft YaHei","Noto Sans CJK SC","WenQuanYi Micro Hei","WenQuanYi Zen Hei","DejaVu Sans",system-ui,sans-serif}
p.notice{margin:0;padding:8px 24px;background:var(--warnbg);color:var(--warn);border-bottom:1px solid var(--line)}
pre.inventory{background:var(--band);border:1px solid var(--line);border-radius:4px;padding:8px 10px;overflow-x:auto;line-height:1.4}
code,pre{font-family:"DejaVu Sans Mono","Noto Sans Mono CJK SC","WenQuanYi Zen Hei Mono","Microsoft YaHei",ui-monospace,monospace;font-size:13px}
pre.fix{background:#f0f3f6;border:1px solid var(--line);border-radius:4px;padding:8px 10px;white-space:pre-wrap;overflow-wrap:anywhere;user-select:all;margin:6px 0}
table{border-collapse:collapse;margin:8px 0 14px;font-size:13px;max-width:100%}
caption{text-align:left;font-weight:600;padding:4px 0;color:var(--muted)}
th,td{border:1px solid var(--line);padding:3px 8px;text-align:left;vertical-align:top;overflow-wrap:break-word;word-break:keep-all}
th{background:var(--band)}
td.num{text-align:right;font-variant-numeric:tabular-nums}
.scroll{overflow-x:auto;max-width:100%}
tr.drift td.drift,td.drift{background:var(--warnbg);font-weight:600}
tr.short td,td.short{font-weight:700}
ul.plain{list-style:none;padding-left:0}
figure{margin:12px 0 18px;break-inside:avoid}
figure{overflow-x:auto}
figure svg{width:100%;max-width:900px;height:auto;display:block}
figure svg.natural{width:auto;max-width:100%;min-width:0}
figcaption{font-size:13px;color:var(--muted)}
svg text{font-family:"DejaVu Sans","Noto Sans CJK SC","WenQuanYi Micro Hei","WenQuanYi Zen Hei","Microsoft YaHei","PingFang SC",sans-serif;font-size:12px;fill:#1b1f24}
svg .axis{stroke:#8c959f;stroke-width:1}
svg .grid{stroke:#d8dee4;stroke-width:1}
svg .ref{stroke:#1b1f24;stroke-width:2;stroke-dasharray:6 4}
details{margin:8px 0}
details.more{margin:-4px 0 14px 18px}
summary{cursor:pointer;color:var(--info)}
.kv th{width:32%}
.footer{color:var(--muted);font-size:12px;margin-top:32px;border-top:1px solid var(--line);padding-top:8px}
@media (max-width:600px){
body{font-size:14px}
.verdict{font-size:16px}
td{max-width:70vw}
figure svg{min-width:620px}
figure svg.natural{min-width:0}
header.top,main,nav.toc{padding-left:10px;padding-right:10px}
.kv th{width:auto}
table{display:block;overflow-x:auto}
th,td{padding:2px 5px}
}
@media print{
figure svg{min-width:0;max-width:100%}
@page{margin:14mm}
header.top{background:none;color:#000;border-bottom:2px solid #000;padding:0 0 6px}
header.top p{color:#333}
nav.toc,summary{display:none}
details>*{display:block}
main{max-width:none;padding:0}
a{color:#000}
a[href^="http"]::after{content:" (" attr(href) ")";font-size:10px;color:#333}
h2{break-after:avoid}
article.finding,tr,figure{break-inside:avoid}
.scroll{overflow:visible}
table{display:table}
}
)css";

// Every fetch forbidden (https://www.w3.org/TR/CSP3/#directive-default-src);
// only the inline style sheet and data: images may apply. No script at all.
constexpr std::string_view kCsp =
    "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'";

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

bool is_table_of_objects(const nlohmann::json& a) {
  if (!a.is_array() || a.empty()) return false;
  for (const auto& e : a) {
    if (!e.is_object()) return false;
  }
  return true;
}

bool all_scalars(const nlohmann::json& a) {
  for (const auto& e : a) {
    if (e.is_structured()) return false;
  }
  return true;
}

}  // namespace

std::string escape(std::string_view raw) {
  const std::string s = core::terminal_text(raw, false);  // also C1 controls and bidi overrides
  std::string out;
  out.reserve(s.size() + s.size() / 8);
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string anchor(std::string_view text) {
  std::string out;
  bool dash = false;
  for (char c : text) {
    const unsigned char u = static_cast<unsigned char>(c);
    if ((u >= 'a' && u <= 'z') || (u >= '0' && u <= '9')) {
      if (dash && !out.empty()) out += '-';
      out += c;
      dash = false;
    } else if (u >= 'A' && u <= 'Z') {
      if (dash && !out.empty()) out += '-';
      out += static_cast<char>(u - 'A' + 'a');
      dash = false;
    } else {
      dash = true;
    }
  }
  return out.empty() ? "s" : out;
}

std::string render_page(const Page& page) {
  std::string out;
  out.reserve(64 * 1024);
  out += fmt::format("<!DOCTYPE html>\n<html lang=\"{}\">\n<head>\n<meta charset=\"utf-8\">\n", page_language());
  out += fmt::format("<meta http-equiv=\"Content-Security-Policy\" content=\"{}\">\n", kCsp);
  out += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  out += "<meta name=\"referrer\" content=\"no-referrer\">\n";
  out += fmt::format("<meta name=\"generator\" content=\"tfrig {}\">\n", escape(TFRIG_VERSION));
  out += "<title>" + escape(page.title) + "</title>\n<style>" + std::string(kStyle) + "</style>\n</head>\n<body>\n";
  out += "<header class=\"top\"><h1>" + escape(page.title) + "</h1>";
  if (!page.subtitle.empty()) out += "<p>" + escape(page.subtitle) + "</p>";
  out += "</header>\n";
  if (!page.notice.empty()) out += "<p class=\"notice\" role=\"note\">" + escape(page.notice) + "</p>\n";
  if (page.sections.size() > 1) {
    // TRANSLATORS: the accessible name of the page's table of contents (aria-label).
    out += "<nav class=\"toc\" aria-label=\"" + escape(_("Contents")) + "\">";
    for (const auto& s : page.sections) out += "<a href=\"#" + escape(s.id) + "\">" + escape(s.title) + "</a> ";
    out += "</nav>\n";
  }
  out += "<main>\n";
  for (const auto& s : page.sections) {
    out += "<section id=\"" + escape(s.id) + "\" aria-labelledby=\"" + escape(s.id) + "-h\">\n<h2 id=\"" +
           escape(s.id) + "-h\">" + escape(s.title) + "</h2>\n" + s.body + "\n</section>\n";
  }
  out +=
      "<p class=\"footer\">" +
      escape(trf("Written by tfrig {}. One file: no scripts, nothing fetched; it opens offline and prints as it shows.",
                 TFRIG_VERSION)) +
      "</p>\n";
  out += "</main>\n</body>\n</html>\n";
  return out;
}

std::string severity_word(std::string_view severity) {
  // TRANSLATORS: the severity badges of the HTML report, in capitals in English.
  if (severity == "error") return C_("severity badge", "ERROR");
  if (severity == "warning") return C_("severity badge", "WARNING");
  if (severity == "info") return C_("severity badge", "INFO");
  if (severity == "ok") return C_("severity badge", "OK");
  std::string upper;
  for (char c : severity) upper += (c >= 'a' && c <= 'z') ? static_cast<char>(c - 'a' + 'A') : c;
  return upper;
}

std::string page_language() {
  // BCP 47 (https://www.rfc-editor.org/rfc/rfc5646): "zh-CN", not gettext's "zh_CN".
  std::string tag(core::i18n::language());
  std::replace(tag.begin(), tag.end(), '_', '-');
  return tag.empty() ? "en" : tag;
}

std::string severity_badge(std::string_view severity) {
  std::string cls = anchor(severity);
  return "<span class=\"sev " + escape(cls) + "\">" + escape(severity_word(severity)) + "</span>";
}

std::string table(std::string_view caption, const std::vector<std::string>& header,
                  const std::vector<std::vector<std::string>>& rows, std::string_view css_class) {
  std::string out = "<div class=\"scroll\"><table";
  if (!css_class.empty()) out += " class=\"" + escape(css_class) + "\"";
  out += ">";
  if (!caption.empty()) out += "<caption>" + escape(caption) + "</caption>";
  if (!header.empty()) {
    out += "<thead><tr>";
    for (const auto& h : header) out += "<th scope=\"col\">" + escape(h) + "</th>";
    out += "</tr></thead>";
  }
  out += "<tbody>";
  for (const auto& row : rows) {
    out += "<tr>";
    for (const auto& cell : row) out += "<td>" + cell + "</td>";
    out += "</tr>";
  }
  out += "</tbody></table></div>\n";
  return out;
}

std::string human_number(double v) {
  if (!std::isfinite(v)) return _("unknown");
  const double a = std::fabs(v);
  if (a >= 1e15) return fmt::format("{:.3g}", v);
  if (a >= 1000) {
    // Thousands separated by commas, no decimals.
    const auto n = static_cast<long long>(std::llround(v));
    std::string digits = fmt::format("{}", n < 0 ? -n : n);
    std::string out;
    for (size_t i = 0; i < digits.size(); ++i) {
      if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
      out += digits[i];
    }
    return n < 0 ? "-" + out : out;
  }
  if (a >= 100) return fmt::format("{:.0f}", v);
  if (a >= 10) return fmt::format("{:.1f}", v);
  if (a == 0) return "0";
  return fmt::format("{:.3g}", v);
}

std::string human_bytes(double bytes) {
  if (!std::isfinite(bytes) || bytes < 0 || bytes >= 1.8e19) return _("unknown");  // beyond uint64: a broken input
  return core::format_bytes_binary(static_cast<uint64_t>(bytes));
}

std::string link_or_text(std::string_view url) {
  if (url.rfind("https://", 0) == 0 || url.rfind("http://", 0) == 0) {
    return "<a href=\"" + escape(url) + "\" rel=\"noreferrer\">" + escape(url) + "</a>";
  }
  return escape(url);
}

std::string json_value_html(const nlohmann::json& value, std::string_view key) {
  if (value.is_null()) return "<span class=\"meta\">" + escape(_("unknown")) + "</span>";
  if (value.is_boolean()) return escape(value.get<bool>() ? _("yes") : _("no"));
  if (value.is_string()) return link_or_text(value.get_ref<const std::string&>());
  if (value.is_number()) {
    std::string out = escape(value.dump());
    const double v = value.get<double>();
    if (ends_with(key, "_bytes") && v >= 1024) {
      out += " <span class=\"meta\">(" + escape(human_bytes(v)) + ")</span>";
    } else if (value.is_number_float() && std::fabs(v) >= 0.001) {
      const std::string h = human_number(v);
      if (h != value.dump()) out += " <span class=\"meta\">(" + escape(h) + ")</span>";
    }
    return out;
  }
  return escape(value.dump());
}

std::string json_html(const nlohmann::json& value) {
  if (!value.is_structured()) return json_value_html(value);
  if (value.is_object()) {
    if (value.empty()) return "<span class=\"meta\">" + escape(_("none")) + "</span>";
    std::vector<std::vector<std::string>> rows;
    for (auto it = value.begin(); it != value.end(); ++it) {
      rows.push_back({"<code>" + escape(it.key()) + "</code>",
                      it.value().is_structured() ? json_html(it.value()) : json_value_html(it.value(), it.key())});
    }
    return table("", {}, rows, "kv");
  }
  if (value.empty()) return "<span class=\"meta\">" + escape(_("none")) + "</span>";
  if (is_table_of_objects(value)) {
    // One column per key, in the order they first appear.
    std::vector<std::string> keys;
    std::set<std::string> seen;
    for (const auto& e : value) {
      for (auto it = e.begin(); it != e.end(); ++it) {
        if (seen.insert(it.key()).second) keys.push_back(it.key());
      }
    }
    std::vector<std::vector<std::string>> rows;
    for (const auto& e : value) {
      std::vector<std::string> row;
      for (const auto& k : keys) {
        auto f = e.find(k);
        if (f == e.end()) {
          row.emplace_back();
        } else {
          row.push_back(f->is_structured() ? json_html(*f) : json_value_html(*f, k));
        }
      }
      rows.push_back(std::move(row));
    }
    return table("", keys, rows);
  }
  if (all_scalars(value)) {
    std::string out;
    for (size_t i = 0; i < value.size(); ++i) {
      if (i > 0) out += ", ";
      out += json_value_html(value[i]);
    }
    return out;
  }
  std::string out = "<ul class=\"plain\">";
  for (const auto& e : value) out += "<li>" + json_html(e) + "</li>";
  return out + "</ul>";
}

}  // namespace tfrig::report::html

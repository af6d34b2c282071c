#include "importer/bug_report.h"

#include "core/i18n.h"
#include "core/text.h"

namespace tfrig::importer {

namespace {

constexpr std::string_view kSeparator = "____________________________________________";  // 44 '_'
constexpr std::string_view kStart = "Start of NVIDIA bug report log file";

std::string fold_path(std::string_view p) {
  std::string out(p);
  for (size_t at = out.find("/./"); at != std::string::npos; at = out.find("/./")) out.erase(at, 2);
  return out;
}

// The lines of the text with their offsets.
struct LineRef {
  size_t begin;
  size_t end;  // without the newline
};

}  // namespace

bool looks_like_bug_report(std::string_view text) {
  return text.substr(0, 4096).find(kStart) != std::string_view::npos;
}

core::Result<BugReport> split_bug_report(std::string_view text) {
  if (!looks_like_bug_report(text)) {
    return core::fail(
        core::ErrorCode::kParse, core::Message(N_("line {}"), 1),
        core::Message(N_("not an nvidia-bug-report log (no 'Start of NVIDIA bug report log file' near the start)")));
  }
  std::vector<LineRef> lines;
  for (size_t pos = 0; pos < text.size();) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    size_t end = nl;
    if (end > pos && text[end - 1] == '\r') --end;
    lines.push_back({pos, end});
    pos = nl + 1;
  }
  auto line_text = [&](size_t i) { return text.substr(lines[i].begin, lines[i].end - lines[i].begin); };

  BugReport r;
  // Indices of separator lines; a section runs from after one to the next.
  std::vector<std::pair<size_t, size_t>> ranges;  // [first line, stop)
  size_t first = 0;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (line_text(i) != kSeparator) continue;
    if (i > first) ranges.emplace_back(first, i);
    first = i + 1;
  }
  if (first < lines.size()) ranges.emplace_back(first, lines.size());
  for (const auto& [range_first, stop] : ranges) {
    size_t i = range_first;
    while (i < stop && core::trim(line_text(i)).empty()) ++i;
    if (i >= stop) continue;
    BugReportSection sec;
    sec.header = std::string(line_text(i));
    sec.line = static_cast<int>(i + 1);
    size_t body_first = i + 1;
    std::string_view h = core::trim(line_text(i));
    if (core::starts_with(h, "*** /")) {
      std::string_view p = h.substr(4);
      constexpr std::string_view kMissing = " does not exist";
      if (core::ends_with(p, kMissing)) {
        sec.missing = true;
        p.remove_suffix(kMissing.size());
      }
      sec.path = fold_path(core::trim(p));
      if (body_first < stop && core::starts_with(line_text(body_first), "*** ls:")) ++body_first;
    }
    if (body_first < stop) {
      const size_t b = lines[body_first].begin;
      const size_t e = lines[stop - 1].end;
      sec.body = e >= b ? text.substr(b, e - b) : std::string_view();
    }
    if (core::starts_with(h, kStart)) {
      for (size_t k = body_first; k < stop; ++k) {
        const std::string_view l = core::trim(line_text(k));
        if (core::starts_with(l, "nvidia-bug-report.sh Version:"))
          r.script_version = std::string(core::trim(l.substr(29)));
        if (core::starts_with(l, "Date:")) r.date = std::string(core::trim(l.substr(5)));
        if (core::starts_with(l, "uname:")) r.uname = std::string(core::trim(l.substr(6)));
      }
    }
    r.sections.push_back(std::move(sec));
  }
  return r;
}

std::vector<const BugReportSection*> sections_for_path(const BugReport& r, std::string_view path) {
  std::vector<const BugReportSection*> out;
  for (const auto& s : r.sections) {
    if (s.path && *s.path == path) out.push_back(&s);
  }
  return out;
}

std::vector<const BugReportSection*> sections_for_command(const BugReport& r, std::string_view command_prefix) {
  std::vector<const BugReportSection*> out;
  for (const auto& s : r.sections) {
    if (!s.path && core::starts_with(core::trim(s.header), command_prefix)) out.push_back(&s);
  }
  return out;
}

}  // namespace tfrig::importer

#include "setup/templates.h"

#include <vector>

#include "core/i18n.h"

#include "setup_templates.h"

namespace tfrig::setup {

const std::string& Template::section(std::string_view section_name) const {
  static const std::string kEmpty;
  auto it = sections.find(section_name);
  return it == sections.end() ? kEmpty : it->second;
}

Template parse_template(std::string name, std::string_view text) {
  constexpr std::string_view kSection = "#@section ";
  constexpr std::string_view kNote = "#@#";
  Template t;
  t.name = std::move(name);
  std::string current = "head";
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    end = end == std::string_view::npos ? text.size() : end + 1;
    const std::string_view line = text.substr(pos, end - pos);
    pos = end;
    if (line.substr(0, kSection.size()) == kSection) {
      std::string_view id = line.substr(kSection.size());
      while (!id.empty() && (id.back() == '\n' || id.back() == '\r' || id.back() == ' ')) id.remove_suffix(1);
      current = std::string(id);
      t.sections[current];  // an empty section exists too
      continue;
    }
    if (line.substr(0, kNote.size()) == kNote) continue;
    t.sections[current] += line;
  }
  return t;
}

namespace {
constexpr std::string_view kOpen = "@{";
constexpr std::string_view kClose = "}@";
}  // namespace

std::string localize(std::string_view text) {
  std::string out;
  size_t pos = 0;
  while (true) {
    const size_t open = text.find(kOpen, pos);
    const size_t close = open == std::string_view::npos ? open : text.find(kClose, open + kOpen.size());
    if (close == std::string_view::npos) break;
    out += text.substr(pos, open - pos);
    out += core::i18n::translate(text.substr(open + kOpen.size(), close - open - kOpen.size()));
    pos = close + kClose.size();
  }
  out += text.substr(pos);
  return out;
}

std::vector<std::string> marked_messages(std::string_view text) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (true) {
    const size_t open = text.find(kOpen, pos);
    const size_t close = open == std::string_view::npos ? open : text.find(kClose, open + kOpen.size());
    if (close == std::string_view::npos) break;
    out.emplace_back(text.substr(open + kOpen.size(), close - open - kOpen.size()));
    pos = close + kClose.size();
  }
  return out;
}

const Template& setup_template(std::string_view file) {
  static const std::vector<Template> kParsed = [] {
    std::vector<Template> out;
    for (const auto& e : embedded::kTemplates) out.push_back(parse_template(std::string(e.name), e.text));
    return out;
  }();
  for (const auto& t : kParsed) {
    if (t.name == file) return t;
  }
  static const Template kNone;
  return kNone;
}

}  // namespace tfrig::setup

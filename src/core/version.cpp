#include "core/version.h"

#include <cctype>
#include <tuple>

#include "core/text.h"

namespace tfrig::core {

std::optional<Version> Version::parse(std::string_view text) {
  text = trim(text);
  if (!text.empty() && (text.front() == 'v' || text.front() == 'V')) text.remove_prefix(1);
  Version v;
  v.text_ = std::string(text);
  size_t plus = text.find('+');
  std::string_view main = plus == std::string_view::npos ? text : text.substr(0, plus);
  size_t i = 0;
  while (true) {
    size_t start = i;
    while (i < main.size() && std::isdigit(static_cast<unsigned char>(main[i]))) ++i;
    if (i == start || i - start > 18) return std::nullopt;
    auto value = parse_u64(main.substr(start, i - start));
    if (!value) return std::nullopt;
    v.parts_.push_back(*value);
    if (i < main.size() && main[i] == '.' && i + 1 < main.size() &&
        std::isdigit(static_cast<unsigned char>(main[i + 1]))) {
      ++i;
      continue;
    }
    break;
  }
  std::string_view rest = main.substr(i);
  if (!rest.empty() && (rest.front() == '.' || rest.front() == '-' || rest.front() == '_')) rest.remove_prefix(1);
  // A pre-release starts with a letter ("rc1", "dev2024"); "1..2" is malformed.
  if (!rest.empty() && !std::isalpha(static_cast<unsigned char>(rest.front()))) return std::nullopt;
  for (char c : rest) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.') return std::nullopt;
  }
  v.prerelease_ = std::string(rest);
  return v;
}

bool Version::has_prefix(const Version& prefix) const {
  if (prefix.parts_.size() > parts_.size()) return false;
  for (size_t i = 0; i < prefix.parts_.size(); ++i) {
    if (parts_[i] != prefix.parts_[i]) return false;
  }
  return true;
}

std::string Version::truncated(size_t n) const {
  std::string out;
  for (size_t i = 0; i < n; ++i) {
    if (i) out += '.';
    out += std::to_string(part(i));
  }
  return out;
}

std::strong_ordering Version::operator<=>(const Version& other) const {
  size_t n = std::max(parts_.size(), other.parts_.size());
  for (size_t i = 0; i < n; ++i) {
    if (auto c = part(i) <=> other.part(i); c != 0) return c;
  }
  // A release sorts after its pre-releases: 2.16.0rc0 < 2.16.0.
  if (prerelease_.empty() != other.prerelease_.empty()) {
    return prerelease_.empty() ? std::strong_ordering::greater : std::strong_ordering::less;
  }
  // PEP 440 order of pre-releases: dev < a < b < rc, each numbered as a number.
  auto split = [](const std::string& pre) {
    size_t digits = pre.find_first_of("0123456789");
    std::string label = pre.substr(0, digits);
    uint64_t number = 0;
    if (digits != std::string::npos)
      number = parse_u64(pre.substr(digits, pre.find_first_not_of("0123456789", digits) - digits)).value_or(0);
    int rank = 4;  // unknown labels sort after rc, by text
    if (label == "dev")
      rank = 0;
    else if (label == "a" || label == "alpha")
      rank = 1;
    else if (label == "b" || label == "beta")
      rank = 2;
    else if (label == "rc" || label == "c")
      rank = 3;
    return std::tuple<int, std::string, uint64_t>(rank, rank == 4 ? label : std::string(), number);
  };
  if (auto c = split(prerelease_) <=> split(other.prerelease_); c != 0) return c;
  return prerelease_ <=> other.prerelease_;
}

}  // namespace tfrig::core

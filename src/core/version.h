// Version numbers as the NVIDIA and Python worlds write them:
// "2.15.1", "535.104.05", "12.2", "9.1.0.70", "2.16.0rc0", "2.15.0+nv23.11".
// Numeric parts compare as numbers; missing trailing parts count as 0
// ("12.2" == "12.2.0"); a pre-release suffix (rc, a, b, dev) sorts before the
// release; a "+local" part is kept but ignored when comparing (PEP 440).
#pragma once

#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tfrig::core {

class Version {
 public:
  static std::optional<Version> parse(std::string_view text);

  const std::vector<uint64_t>& parts() const { return parts_; }
  uint64_t part(size_t i) const { return i < parts_.size() ? parts_[i] : 0; }
  uint64_t major() const { return part(0); }
  uint64_t minor() const { return part(1); }
  const std::string& prerelease() const { return prerelease_; }
  const std::string& text() const { return text_; }

  // "2.15" has the prefix "2" and "2.15"; "2.15.1" has "2.15".
  bool has_prefix(const Version& prefix) const;
  // The first n parts as text: truncated(2) of "12.2.140" is "12.2".
  std::string truncated(size_t n) const;

  std::strong_ordering operator<=>(const Version& other) const;
  bool operator==(const Version& other) const { return (*this <=> other) == std::strong_ordering::equal; }

 private:
  std::vector<uint64_t> parts_;
  std::string prerelease_;  // "rc0", "dev20240101"; empty for a release
  std::string text_;        // as written
};

}  // namespace tfrig::core

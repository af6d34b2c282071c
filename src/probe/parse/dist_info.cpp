#include "probe/parse/dist_info.h"

#include <cctype>

#include "core/i18n.h"
#include "core/text.h"

namespace tfrig::probe::parse {

core::Result<DistMetadata> parse_dist_metadata(std::string_view text) {
  DistMetadata out;
  std::string key;
  std::string value;
  bool have_name = false;
  bool have_version = false;
  auto flush = [&] {
    if (key.empty()) return;
    const std::string v(core::trim(value));
    // Header names are case-insensitive (RFC 822).
    const std::string k = core::to_lower(key);
    if (k == "name") {
      out.name = v;
      have_name = !v.empty();
    } else if (k == "version") {
      out.version = v;
      have_version = !v.empty();
    } else if (k == "requires-python") {
      out.requires_python = v;
    } else if (k == "metadata-version") {
      out.metadata_version = v;
    } else if (k == "requires-dist") {
      out.requires_dist.push_back(v);
    }
    key.clear();
    value.clear();
  };
  for (auto line : core::split_lines(text)) {
    if (line.empty()) break;  // end of the headers; the description follows
    if (line.front() == ' ' || line.front() == '\t') {
      if (!key.empty()) {
        value += ' ';
        value += core::trim(line);
      }
      continue;
    }
    flush();
    const size_t colon = line.find(':');
    if (colon == std::string_view::npos || colon == 0) continue;  // not a header: tolerated
    key = std::string(line.substr(0, colon));
    value = std::string(line.substr(colon + 1));
  }
  flush();
  if (!have_name || !have_version) {
    return core::fail(core::ErrorCode::kParse, have_name ? "Version" : "Name",
                      core::Message(N_("METADATA lacks the required 'Name:' and 'Version:' headers")));
  }
  return out;
}

std::string normalize_dist_name(std::string_view name) {
  std::string out;
  bool sep = false;
  for (char c : name) {
    if (c == '-' || c == '_' || c == '.') {
      sep = true;
      continue;
    }
    if (sep && !out.empty()) out += '-';
    sep = false;
    out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

std::optional<std::pair<std::string, std::string>> split_dist_info_dir(std::string_view dir) {
  constexpr std::string_view kSuffix = ".dist-info";
  if (!core::ends_with(dir, kSuffix)) return std::nullopt;
  dir.remove_suffix(kSuffix.size());
  // Wheel names escape "-" in the name to "_", so the first "-" splits.
  const size_t dash = dir.find('-');
  if (dash == std::string_view::npos || dash == 0 || dash + 1 >= dir.size()) return std::nullopt;
  return std::make_pair(normalize_dist_name(dir.substr(0, dash)), std::string(dir.substr(dash + 1)));
}

namespace {

// A tiny reader for the Python literals build_info.py holds: strings, True,
// False, None, numbers and lists of those. Anything else ends the value.
class Literal {
 public:
  explicit Literal(std::string_view s) : s_(s) {}

  void skip_ws() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }
  bool eat(char c) {
    skip_ws();
    if (pos_ < s_.size() && s_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  std::optional<std::string> string() {
    skip_ws();
    if (pos_ >= s_.size() || (s_[pos_] != '\'' && s_[pos_] != '"')) return std::nullopt;
    const char q = s_[pos_++];
    std::string out;
    while (pos_ < s_.size() && s_[pos_] != q) {
      if (s_[pos_] == '\\' && pos_ + 1 < s_.size()) ++pos_;
      out += s_[pos_++];
    }
    if (pos_ >= s_.size()) return std::nullopt;
    ++pos_;
    return out;
  }
  std::optional<bool> boolean() {
    skip_ws();
    if (s_.substr(pos_, 4) == "True") {
      pos_ += 4;
      return true;
    }
    if (s_.substr(pos_, 5) == "False") {
      pos_ += 5;
      return false;
    }
    return std::nullopt;
  }
  std::optional<std::vector<std::string>> string_list() {
    if (!eat('[')) return std::nullopt;
    std::vector<std::string> out;
    while (true) {
      if (eat(']')) return out;
      auto v = string();
      if (!v) return std::nullopt;
      out.push_back(std::move(*v));
      if (eat(']')) return out;
      if (!eat(',')) return std::nullopt;
    }
  }
  void seek(size_t p) { pos_ = p; }

 private:
  std::string_view s_;
  size_t pos_ = 0;
};

// Position just after the key literal 'name' followed by ':' (dict) or ','
// (OrderedDict pair), or npos.
size_t value_position(std::string_view text, std::string_view name) {
  for (const char q : {'\'', '"'}) {
    const std::string key = std::string(1, q) + std::string(name) + std::string(1, q);
    size_t at = 0;
    while ((at = text.find(key, at)) != std::string_view::npos) {
      size_t p = at + key.size();
      while (p < text.size() && std::isspace(static_cast<unsigned char>(text[p]))) ++p;
      if (p < text.size() && (text[p] == ':' || text[p] == ',')) return p + 1;
      at += key.size();
    }
  }
  return std::string_view::npos;
}

}  // namespace

core::Result<TfBuildInfo> parse_tf_build_info(std::string_view text) {
  if (text.find("build_info") == std::string_view::npos) {
    return core::fail(core::ErrorCode::kParse, "build_info", core::Message(N_("no 'build_info' literal in the file")));
  }
  TfBuildInfo out;
  Literal lit(text);
  auto string_of = [&](std::string_view key) -> std::optional<std::string> {
    const size_t p = value_position(text, key);
    if (p == std::string_view::npos) return std::nullopt;
    lit.seek(p);
    return lit.string();
  };
  auto bool_of = [&](std::string_view key) -> std::optional<bool> {
    const size_t p = value_position(text, key);
    if (p == std::string_view::npos) return std::nullopt;
    lit.seek(p);
    return lit.boolean();
  };
  out.cuda_version = string_of("cuda_version");
  out.cudnn_version = string_of("cudnn_version");
  out.is_cuda_build = bool_of("is_cuda_build");
  out.is_rocm_build = bool_of("is_rocm_build");
  out.is_tensorrt_build = bool_of("is_tensorrt_build");
  if (const size_t p = value_position(text, "cuda_compute_capabilities"); p != std::string_view::npos) {
    lit.seek(p);
    if (auto list = lit.string_list()) out.compute_capabilities = std::move(*list);
  }
  return out;
}

}  // namespace tfrig::probe::parse

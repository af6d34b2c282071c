#include "core/access_log.h"

namespace tfrig::core {

std::string normalize_rel(std::string_view rel) {
  std::string out;
  out.reserve(rel.size());
  for (char c : rel) {
    if (c == '/' && (out.empty() || out.back() == '/')) continue;
    out.push_back(c);
  }
  while (!out.empty() && out.back() == '/') out.pop_back();
  return out;
}

void AccessLog::read(std::string_view rel, const std::string& bytes) {
  std::lock_guard lock(mutex_);
  s_.reads[normalize_rel(rel)] = bytes;
}

void AccessLog::listed(std::string_view rel) {
  std::lock_guard lock(mutex_);
  s_.listed.insert(normalize_rel(rel));
}

void AccessLog::looked_up(std::string_view rel) {
  std::lock_guard lock(mutex_);
  s_.looked_up.insert(normalize_rel(rel));
}

void AccessLog::env(std::string_view name, const std::optional<std::string>& value) {
  std::lock_guard lock(mutex_);
  s_.env[std::string(name)] = value;
}

AccessLog::Snapshot AccessLog::snapshot() const {
  std::lock_guard lock(mutex_);
  return s_;
}

}  // namespace tfrig::core

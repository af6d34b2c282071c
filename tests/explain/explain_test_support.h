// What the explain tests share: the embedded signature table and the ids an analysis found.
#pragma once

#include <set>
#include <string>

#include <gtest/gtest.h>

#include "explain/explain.h"

namespace tfrig::explain::test {

inline const SignatureTable& table() {
  static const auto t = load_signature_table();
  EXPECT_TRUE(t.has_value()) << (t ? "" : t.error().to_string());
  return *t;
}

// The signature rows (ids) and the rules (rule ids) an analysis hit.
inline std::set<std::string> ids(const LogAnalysis& a) {
  std::set<std::string> out;
  for (const auto& h : a.hits) out.insert(h.signature->id);
  return out;
}
inline std::set<std::string> rule_ids(const LogAnalysis& a) {
  std::set<std::string> out;
  for (const auto& h : a.hits) out.insert(h.signature->rule_id);
  return out;
}

}  // namespace tfrig::explain::test

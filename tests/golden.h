// Golden files: every expected output a test compares whole lives under
// tests/data/golden/<area>/ (the generated docs, docs/rules.md and friends,
// are checked the same way where they are). A run with TFRIG_UPDATE_GOLDEN=1
// in the environment rewrites the files instead of comparing; review
// `git diff` before committing, every changed line is a change users see.
#pragma once

#include <string>

#include <gtest/gtest.h>

namespace tfrig::test {

// TFRIG_UPDATE_GOLDEN=1: rewrite the golden files instead of comparing.
bool updating_golden();

// data_dir()/golden/<rel>.
std::string golden_path(const std::string& rel);

// Compares `actual` with the file at `path` (a golden_path() or a generated
// doc). When updating, writes `actual` there (creating the folder) and
// passes. Else a missing file or a difference fails, naming the file and
// showing the first lines that differ:
//   EXPECT_TRUE(test::matches_golden(test::golden_path("plan/x.txt"), text));
::testing::AssertionResult matches_golden(const std::string& path, const std::string& actual);

// The first (up to 20) differing lines of two texts, with their numbers.
std::string line_diff(const std::string& expected, const std::string& actual);

}  // namespace tfrig::test

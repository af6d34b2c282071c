#include "golden.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <vector>

#include "test_support.h"

namespace tfrig::test {

bool updating_golden() {
  const char* v = std::getenv("TFRIG_UPDATE_GOLDEN");
  return v != nullptr && std::string(v) == "1";
}

std::string golden_path(const std::string& rel) { return data_dir() + "/golden/" + rel; }

std::string line_diff(const std::string& expected, const std::string& actual) {
  auto split = [](const std::string& s) {
    std::vector<std::string> out;
    size_t start = 0;
    while (start <= s.size()) {
      size_t nl = s.find('\n', start);
      if (nl == std::string::npos) nl = s.size();
      out.push_back(s.substr(start, nl - start));
      start = nl + 1;
    }
    return out;
  };
  const auto a = split(expected);
  const auto b = split(actual);
  std::string out;
  int shown = 0;
  for (size_t i = 0; i < std::max(a.size(), b.size()) && shown < 20; ++i) {
    const std::string* x = i < a.size() ? &a[i] : nullptr;
    const std::string* y = i < b.size() ? &b[i] : nullptr;
    if (x && y && *x == *y) continue;
    out += "line " + std::to_string(i + 1) + ":\n";
    out += "  golden: " + (x ? *x : std::string("<missing>")) + "\n";
    out += "  actual: " + (y ? *y : std::string("<missing>")) + "\n";
    ++shown;
  }
  return out;
}

::testing::AssertionResult matches_golden(const std::string& path, const std::string& actual) {
  if (updating_golden()) {
    std::error_code ec;
    std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
    write_file(path, actual);
    std::cout << "[ golden   ] rewrote " << path << "\n";
    return ::testing::AssertionSuccess();
  }
  if (!path_exists(path)) {
    return ::testing::AssertionFailure() << path << " is missing; run the tests with TFRIG_UPDATE_GOLDEN=1 to create it";
  }
  const std::string expected = read_file(path);
  if (expected == actual) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << path << " differs from the output; review, then rerun the tests with "
                                       << "TFRIG_UPDATE_GOLDEN=1 to accept it:\n"
                                       << line_diff(expected, actual);
}

}  // namespace tfrig::test

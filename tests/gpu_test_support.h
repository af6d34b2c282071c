// Helpers for the GPU-stack tests: test data paths and file reading.
#pragma once

#include <fstream>
#include <sstream>
#include <string>

#include "test_paths.h"

namespace tfrig::test {

inline std::string data_path(const std::string& rel) { return std::string(TFRIG_TEST_DATA) + "/" + rel; }

inline std::string read_data(const std::string& rel) {
  std::ifstream in(data_path(rel), std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace tfrig::test

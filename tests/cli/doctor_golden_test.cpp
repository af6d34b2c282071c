// Golden doctor output on the snapshots in tests/data/snapshots:
// the whole text report, and the findings part of the JSON. Review the diff,
// then rerun with TFRIG_UPDATE_GOLDEN=1 to accept a change.
#include <array>
#include <cstdio>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "golden.h"
#include "test_paths.h"

namespace tfrig {
namespace {

std::string run_in_data(const std::string& args) {
  // Relative snapshot paths keep the header the same on every checkout.
  const std::string cmd = "cd '" + std::string(TFRIG_TEST_DATA) + "' && '" + TFRIG_BINARY + "' " + args + " 2>/dev/null";
  std::string out;
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) return out;
  std::array<char, 4096> buf{};
  size_t n = 0;
  while ((n = std::fread(buf.data(), 1, buf.size(), p)) > 0) out.append(buf.data(), n);
  ::pclose(p);
  return out;
}

void check_golden(const std::string& name, const std::string& have) {
  EXPECT_TRUE(test::matches_golden(test::golden_path("doctor/" + name), have));
}

class DoctorGolden : public ::testing::TestWithParam<const char*> {};

TEST_P(DoctorGolden, Text) {
  check_golden(std::string(GetParam()) + ".txt",
               run_in_data(std::string("doctor --color never --snapshot snapshots/") + GetParam() + ".json"));
}

TEST_P(DoctorGolden, JsonFindings) {
  auto j = nlohmann::json::parse(run_in_data(std::string("doctor --format json --snapshot snapshots/") + GetParam() + ".json"));
  nlohmann::json part;
  for (const char* key : {"target", "verdict", "summary", "findings", "skipped"}) part[key] = j[key];
  check_golden(std::string(GetParam()) + ".findings.json", part.dump(1) + "\n");
}

INSTANTIATE_TEST_SUITE_P(Snapshots, DoctorGolden, ::testing::Values("cpu_box_cuda13", "gpu_box_two_a100_old_driver"));

}  // namespace
}  // namespace tfrig

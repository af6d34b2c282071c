// Sample streams for the classifier tests, built from real captures: GPU
// rows of `nvidia-smi --query-gpu --format=csv` (tests/data/watch/nvidia-smi-csv)
// and the CPU/I/O side of streams recorded here with tfrig watch --record.
#pragma once

#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "core/text.h"
#include "test_support.h"
#include "watch/recording.h"

namespace tfrig::watch::test_util {

inline std::string data(const std::string& rel) { return tfrig::test::data_dir() + "/watch/" + rel; }

// nvidia-smi query-gpu captures under tests/data/watch/nvidia-smi-csv.
inline constexpr const char* kH100Load = "linux-x86_64__nvidia-h100-80gb-hbm3__590.48.01.query-gpu.load.csv";
inline constexpr const char* kH100Idle = "linux-x86_64__nvidia-h100-80gb-hbm3__590.48.01.query-gpu.idle.csv";
inline constexpr const char* k4080Load = "linux-x86_64__nvidia-geforce-rtx-4080-super__595.71.05.query-gpu.load.csv";
inline constexpr const char* k4080Idle = "linux-x86_64__nvidia-geforce-rtx-4080-super__595.71.05.query-gpu.idle.csv";
inline constexpr const char* k2080Load = "linux-x86_64__nvidia-geforce-rtx-2080-super__610.57.04.query-gpu.load.csv";
inline constexpr const char* kMigLoad = "linux-x86_64__nvidia-h100-mig__590.48.01.query-gpu.load.csv";

// "100 %", "19818 MiB", "631.95 W", "[N/A]" -> the number, or nullopt.
inline std::optional<double> csv_number(std::string_view v) {
  v = core::trim(v);
  if (v.empty() || v.front() == '[') return std::nullopt;
  const size_t space = v.find(' ');
  return core::parse_double(v.substr(0, space));
}

// The first data row of a query-gpu CSV as a GPU sample. nvidia-smi's CSV has
// no PCIe throughput column, so those fields stay unknown.
inline GpuSample gpu_from_csv(const std::string& file, std::string* name = nullptr) {
  const std::string text = tfrig::test::read_file(data("nvidia-smi-csv/" + file));
  auto lines = core::split_lines(text);
  EXPECT_GE(lines.size(), 2u) << file;
  GpuSample g;
  if (lines.size() < 2) return g;
  auto header = core::split(lines[0], ',');
  auto row = core::split(lines[1], ',');
  for (size_t i = 0; i < header.size() && i < row.size(); ++i) {
    const std::string_view h = core::trim(header[i]);
    if (h == "utilization.gpu [%]") g.util_percent = csv_number(row[i]);
    if (h == "utilization.memory [%]") g.memory_util_percent = csv_number(row[i]);
    if (h == "memory.used [MiB]") {
      if (auto v = csv_number(row[i])) g.memory_used_bytes = static_cast<uint64_t>(*v * 1024 * 1024);
    }
    if (h == "clocks.current.sm [MHz]" || h == "clocks.sm [MHz]") g.sm_clock_mhz = csv_number(row[i]);
    if (h == "power.draw [W]") g.power_watts = csv_number(row[i]);
    if (h == "name" && name != nullptr) *name = std::string(core::trim(row[i]));
  }
  return g;
}

inline Recording load_recording(const std::string& file) {
  auto rec = parse_recording(tfrig::test::read_file(data(file)), file);
  EXPECT_TRUE(rec.has_value()) << (rec ? "" : rec.error().to_string());
  return rec ? *rec : Recording{};
}

// The recorded CPU/I/O stream with the GPU row added to every sample: what
// watch would have seen had that GPU been training next to that host side.
inline Recording with_gpu(Recording rec, const std::string& csv_file) {
  std::string name;
  const GpuSample g = gpu_from_csv(csv_file, &name);
  rec.info.gpus = {GpuInfo{0, name, std::nullopt}};
  rec.info.gpu_status.clear();
  for (auto& s : rec.samples) s.gpus = {g};
  return rec;
}

}  // namespace tfrig::watch::test_util

// The record/replay format: round trip, and clear errors on bad input.
#include <gtest/gtest.h>

#include "watch/classify.h"
#include "watch/recording.h"
#include "watch_test_util.h"

namespace tfrig::watch {
namespace {

TEST(WatchRecording, RoundTrip) {
  RunInfo info;
  info.interval_s = 0.5;
  info.cpus = 2;
  info.command = "python train.py";
  info.pid = 1234;
  info.gpus = {GpuInfo{0, "NVIDIA H100 80GB HBM3", 63e9}};
  Sample s;
  s.t = 0.5;
  s.cpu = CpuSample{2, 1.25, 0.5, {1.0, 0.25}, {0.0, 0.5}};
  s.process = ProcessSample{3, 40, 1.2, 1.3, 0.98, 1, 1.5e6};
  s.disks = {DiskSample{"nvme0n1", 2e8, 0.75, 4}};
  GpuSample g = test_util::gpu_from_csv("linux-x86_64__nvidia-h100-80gb-hbm3__590.48.01.query-gpu.load.csv");
  g.pcie_rx_bytes_per_s = 1.5e9;
  s.gpus = {g};
  const std::string text = info_line(info) + sample_line(s);
  auto rec = parse_recording(text, "r.jsonl");
  ASSERT_TRUE(rec) << rec.error().to_string();
  EXPECT_EQ(rec->info.command, "python train.py");
  EXPECT_EQ(rec->info.pid, 1234);
  ASSERT_EQ(rec->info.gpus.size(), 1u);
  EXPECT_EQ(rec->info.gpus[0].pcie_link_bytes_per_s, 63e9);
  ASSERT_EQ(rec->samples.size(), 1u);
  const Sample& b = rec->samples[0];
  EXPECT_EQ(b.cpu->core_busy, (std::vector<double>{1.0, 0.25}));
  EXPECT_EQ(b.process->threads, 40u);
  EXPECT_EQ(b.process->read_bytes_per_s, 1.5e6);
  EXPECT_EQ(b.disks[0].name, "nvme0n1");
  EXPECT_EQ(b.gpus[0].util_percent, 100.0);
  EXPECT_EQ(b.gpus[0].memory_used_bytes, g.memory_used_bytes);
  EXPECT_EQ(b.gpus[0].pcie_tx_bytes_per_s, std::nullopt);
  EXPECT_NEAR(*b.gpus[0].power_watts, 631.95, 1e-9);
  // Re-serialised, the same text.
  EXPECT_EQ(info_line(rec->info) + sample_line(b), text);
}

void expect_error(const std::string& text, const std::string& where, const std::string& what) {
  auto rec = parse_recording(text, "f.jsonl");
  ASSERT_FALSE(rec) << text;
  const std::string e = rec.error().to_string();
  EXPECT_NE(e.find(where), std::string::npos) << e;
  EXPECT_NE(e.find(what), std::string::npos) << e;
}

TEST(WatchRecording, ErrorsNameLineAndField) {
  const std::string head = "{\"tfrig_watch\":1,\"interval_s\":1}\n";
  expect_error("", "f.jsonl", "no run header");
  expect_error("{\"t\":1}\n", "f.jsonl:1", "not a tfrig watch recording");
  expect_error("{\"tfrig_watch\":2,\"interval_s\":1}\n", "f.jsonl:1", "newer");
  expect_error(head + "{\"t\":1,\"gpus\":[{\"index\":0,\"util_percent\":150}]}\n", "f.jsonl:2", "gpus[0].util_percent");
  expect_error(head + "{\"t\":1,\"cpu\":{\"cores\":2,\"busy_cores\":\"x\"}}\n", "f.jsonl:2", "cpu.busy_cores");
  expect_error(head + "{\"t\":2}\n{\"t\":1}\n", "f.jsonl:3", "back in time");
  expect_error(head + "{\"t\":1e400}\n", "f.jsonl:2", "t");
  expect_error(head + "[1,2]\n", "f.jsonl:2", "JSON object");
  expect_error(head + "{\"t\":1,\"process\":{\"cpu_cores\":-1}}\n", "f.jsonl:2", "process.cpu_cores");
  expect_error(head + "{\"t\":1,\"disks\":{}}\n", "f.jsonl:2", "disks");
  expect_error(head + "{\"t\":1,\"cpu\":{\"cores\":1,\"busy_cores\":1,\"core_busy\":[2]}}\n", "f.jsonl:2", "cpu.core_busy[0]");
}

TEST(WatchRecording, RecordedStreamsParse) {
  for (const char* f : {"io-heavy.jsonl", "cpu-heavy.jsonl"}) {
    const Recording rec = test_util::load_recording(f);
    EXPECT_GE(rec.samples.size(), 3u) << f;
    EXPECT_FALSE(rec.info.command.empty()) << f;
  }
}

// What libFuzzer does at scale, in miniature and deterministic: every
// truncation and a sweep of byte flips of a real recording must parse or
// fail cleanly, and whatever parses must analyse.
TEST(WatchRecording, SurvivesTruncationAndByteFlips) {
  const std::string seed = tfrig::test::read_file(test_util::data("cpu-heavy.jsonl"));
  ASSERT_FALSE(seed.empty());
  size_t parsed = 0;
  auto exercise = [&](const std::string& text) {
    auto rec = parse_recording(text, "m");
    if (rec) {
      ++parsed;
      (void)analyse(*rec);
    } else {
      EXPECT_FALSE(rec.error().to_string().empty());
    }
  };
  for (size_t n = 0; n <= seed.size(); n += 7) exercise(seed.substr(0, n));
  for (size_t i = 0; i < seed.size(); i += 3) {
    std::string m = seed;
    m[i] = static_cast<char>(m[i] ^ 0x25);
    exercise(m);
  }
  EXPECT_GT(parsed, 0u);
}

}  // namespace
}  // namespace tfrig::watch

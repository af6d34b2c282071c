// tfrig explain: the signature table, the log reader, the analyzer on real
// logs from public issues (tests/data/logs, provenance in tests/data/README.md),
// the judgement against a snapshot, the command runner, and docs/explain.md.

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "explain/explain.h"
#include "explain_test_support.h"
#include "explain/log_reader.h"
#include "golden.h"
#include "rules/rule.h"
#include "test_support.h"

namespace tfrig {
namespace {

using explain::test::rule_ids;
using explain::test::table;

std::string log_path(const std::string& name) { return test::data_dir() + "/logs/" + name; }

TEST(ExplainTable, EveryRowIsComplete) {
  ASSERT_GE(table().signatures.size(), 20u);
  for (const auto& s : table().signatures) {
    SCOPED_TRACE(s.id);
    EXPECT_EQ(s.source.rfind("https://", 0), 0u) << "source must be a public URL";
    if (const auto* rule = rules::find_rule(s.rule_id)) {
      EXPECT_EQ(s.area, rule->area) << "a doctor rule id keeps doctor's area";
    } else {
      EXPECT_EQ(s.rule_id.rfind("log.", 0), 0u) << "an id doctor does not have must be log.*";
      EXPECT_EQ(s.area, "log");
    }
    for (const auto& m : s.machine_rules) EXPECT_NE(rules::find_rule(m), nullptr) << m;
  }
}

TEST(ExplainTable, BadTablesNameTheRow) {
  auto bad = explain::parse_signature_table(R"({"signatures": [{"id": "x", "rule_id": "log.x", "area": "log", "severity": "error",
    "match": [""], "what": "w", "cause": "c", "fix": "f", "source": "https://example.org"}]})", "t.json");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().where, "t.json: signatures[x].match");
  auto no_group = explain::parse_signature_table(R"({"signatures": [{"id": "x", "rule_id": "log.x", "area": "log", "severity": "error",
    "match": ["a"], "extract": {"pattern": "a+", "fields": []}, "what": "w", "cause": "c", "fix": "f", "source": "s"}]})", "t.json");
  ASSERT_FALSE(no_group);
  EXPECT_EQ(no_group.error().where, "t.json: signatures[x].extract");
  EXPECT_FALSE(explain::parse_signature_table("{", "t.json"));
  EXPECT_FALSE(explain::parse_signature_table(R"({"signatures": [{"id": "x", "severity": "loud"}]})", "t.json"));
}

// One real log per line: the file and the rule ids its thread's confirmed cause gives.
struct RealLog {
  const char* file;
  std::set<std::string> expected;
};

const RealLog kRealLogs[] = {
    {"tf-nvidia-110-cusolver-nvjitlink.log", {"cuda.library_missing"}},
    {"behaviormetrics-385-cusolver-cudnn.log", {"cuda.library_missing"}},
    {"jax-3746-tf-libcudart.log", {"cuda.library_missing"}},
    {"colab-3013-dnn-not-found.log", {"cuda.library_missing"}},
    {"deeplab2-66-cudnn-8.0.4-vs-8.1.0.log", {"cuda.cudnn_version_conflict"}},
    {"kohya-2787-cudnn-8.7-vs-8.9.log", {"cuda.cudnn_version_conflict"}},
    {"tf-40646-cudnn-handle.log", {"log.gpu_memory_taken"}},
    {"tf-24496-cudnn-handle-rtx2070.log", {"log.gpu_memory_taken"}},
    {"tf-models-848-oom-inception.log", {"log.oom"}},
    {"tf-47820-oom-bfc.log", {"log.oom"}},
    {"nvidia-docker-1352-no-gpu-driver.log", {"container.nvidia_runtime_missing"}},
    {"xagent-273-docker-toolkit-missing.log", {"container.nvidia_runtime_missing"}},
    {"tf-60790-libdevice.log", {"log.libdevice_missing"}},
    {"gpu-jupyter-129-libdevice-dir.log", {"log.libdevice_missing"}},
    {"tf-44869-no-device-container.log", {"container.no_gpu_given", "driver.not_loaded", "log.harmless_noise"}},
    {"tf-255-no-device-ec2.log", {"container.no_gpu_given", "driver.not_loaded", "log.harmless_noise"}},
    {"pytorch-35710-bandwidthtest-802.log", {"log.fabricmanager_missing"}},
    {"lisa-2823-nd96asr-802.log", {"log.fabricmanager_missing"}},
    {"tf-8526-driver-insufficient.log", {"driver.too_old_for_cuda"}},
    {"jade-81-driver-insufficient-p100.log", {"driver.too_old_for_cuda", "log.harmless_noise"}},  // and the old CPU-feature notice
    {"shine-cluster-30-nvml-mismatch.log", {"driver.library_mismatch"}},
    {"mozilla-translations-1167-nvml-mismatch.log", {"driver.library_mismatch"}},
    {"nvidia-docker-1256-error-803.log", {"driver.library_mismatch"}},
    {"easydiffusion-379-error-803.log", {"driver.library_mismatch"}},
    {"self-hosted-runners-40-nvidia-smi.log", {"driver.not_loaded"}},
    {"bigdata-133-nvidia-smi-nouveau.log", {"driver.not_loaded", "driver.nouveau_bound"}},  // lspci's "Kernel driver in use: nouveau"
    {"mammography-24-apt-no-pubkey.log", {"log.apt_key_rotated"}},
    {"morphoclass-63-apt-no-pubkey.log", {"log.apt_key_rotated"}},
    {"nccl-290-shm-fallocate.log", {"log.shm_too_small"}},
    {"nccl-525-shm-kubeflow.log", {"log.shm_too_small"}},
    {"tf-62320-ptx-h100.log", {"gpu.ptx_jit_only"}},
    {"tf-97387-ptx-rtx5080.log", {"gpu.ptx_jit_only", "log.harmless_noise"}},
    {"tf-47058-no-binary-a100.log", {"gpu.compute_capability_unsupported"}},
    {"tf-41976-kernel-image-invalid.log", {"gpu.compute_capability_unsupported"}},
    {"tfds-1441-too-many-open-files.log", {"os.nofile_low"}},
    {"meta-dataset-24-too-many-open-files.log", {"os.nofile_low"}},
    {"tensorrt-llm-1806-error-804.log", {"log.cuda_forward_compat"}},
    {"sim2real-5-error-804.log", {"log.cuda_forward_compat"}},
    {"nccl-tests-206-ibv-reg-mr.log", {"os.memlock_low"}},
    {"relernn-63-noise.log", {"log.harmless_noise"}},
    {"kohya-3320-noise-absl.log", {"log.harmless_noise"}},
};

class EveryRealLog : public ::testing::TestWithParam<RealLog> {};

TEST_P(EveryRealLog, NamesTheConfirmedCause) {
  const auto& param = GetParam();
  const auto a = explain::analyze_text(table(), test::read_file(log_path(param.file)));
  EXPECT_EQ(rule_ids(a), param.expected);
  for (const auto& e : explain::findings_from(a)) {
    EXPECT_FALSE(e.finding.fix.empty());
    EXPECT_NE(e.finding.message.find("Seen on line"), std::string::npos) << e.finding.message;
  }
}

INSTANTIATE_TEST_SUITE_P(Explain, EveryRealLog, ::testing::ValuesIn(kRealLogs), [](const auto& param_info) {
  std::string name = param_info.param.file;
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return name;
});

TEST(ExplainRealLogs, EverySignatureHasARealLog) {
  std::set<std::string> hit;
  for (const auto& l : kRealLogs) {
    for (const auto& h : explain::analyze_text(table(), test::read_file(log_path(l.file))).hits) hit.insert(h.signature->id);
  }
  // A row without a log here quotes the lines of its source (`examples`, checked by ExplainTable.EveryExampleIsRecognisedByItsRow).
  for (const auto& s : table().signatures) {
    EXPECT_TRUE(hit.count(s.id) || !s.examples.empty()) << s.id << " has no real log in tests/data/logs and no quoted example";
  }
  // And every log in the folder is in the list above.
  size_t logs = 0;
  for (const auto& name : test::list_dir(test::data_dir() + "/logs")) logs += name.size() > 4 && name.substr(name.size() - 4) == ".log";
  EXPECT_EQ(logs, std::size(kRealLogs));
}

TEST(ExplainRealLogs, PureNoiseGivesOnlyHarmlessNoise) {
  const auto a = explain::analyze_text(table(), test::read_file(log_path("relernn-63-noise.log")));
  EXPECT_EQ(rule_ids(a), std::set<std::string>{"log.harmless_noise"});
  EXPECT_TRUE(a.unrecognised.empty()) << a.unrecognised.front().sample;
  auto findings = explain::findings_from(a);
  ASSERT_EQ(findings.size(), 4u);  // factories, oneDNN/CPU notice, TF-TRT, NUMA -1
  for (const auto& f : findings) EXPECT_EQ(f.finding.severity, rules::Severity::kInfo);
}

TEST(ExplainRealLogs, OomShowsShapeAllocatorAndRequest) {
  auto a = explain::analyze_text(table(), test::read_file(log_path("tf-47820-oom-bfc.log")));
  ASSERT_EQ(a.hits.size(), 1u);
  const auto& values = a.hits[0].group.values;
  ASSERT_EQ(values.size(), 2u);
  EXPECT_EQ(values[0], (std::pair<std::string, std::string>{"shape", "[3,3,512,1024]"}));
  EXPECT_EQ(values[1], (std::pair<std::string, std::string>{"allocator", "GPU_0_bfc"}));
  a = explain::analyze_text(table(), test::read_file(log_path("tf-models-848-oom-inception.log")));
  auto f = explain::findings_from(a);
  ASSERT_EQ(f.size(), 2u);  // two shapes
  bool has_request = false;
  for (const auto& e : f[0].finding.evidence) has_request |= e.fact == "allocation requested" && e.value == "24.38MiB";
  EXPECT_TRUE(has_request);
  EXPECT_NE(f[0].finding.fix.find("tfrig plan"), std::string::npos);
}

TEST(ExplainRealLogs, UnknownErrorLinesAreListed) {
  const auto a = explain::analyze_text(table(), test::read_file(log_path("tf-97387-ptx-rtx5080.log")));
  ASSERT_EQ(a.unrecognised.size(), 1u);
  EXPECT_EQ(a.unrecognised[0].sample, "CUDA_ERROR_INVALID_HANDLE");
  EXPECT_EQ(a.unrecognised[0].lines, std::vector<uint64_t>{4});
  EXPECT_NE(explain::unrecognised_text(a, core::kDefaultTextWidth).find("line 4: CUDA_ERROR_INVALID_HANDLE"), std::string::npos);
}

TEST(ExplainRealLogs, VersionsInTheLogFeedCompat) {
  auto a = explain::analyze_text(table(), test::read_file(log_path("deeplab2-66-cudnn-8.0.4-vs-8.1.0.log")));
  EXPECT_EQ(a.facts.at("cudnn_loaded").value, "8.0.4");
  EXPECT_EQ(a.facts.at("cudnn_compiled").value, "8.1.0");
  a = explain::analyze_text(table(), test::read_file(log_path("jade-81-driver-insufficient-p100.log")));
  EXPECT_EQ(a.facts.at("compute_capability").value, "6.0");
  EXPECT_EQ(a.facts.at("gpu_name").value, "Tesla P100-SXM2-16GB");
  const auto q = explain::compat_query_from_log(a);
  EXPECT_EQ(q.gpu, std::optional<std::string>("cc:6.0"));
}

TEST(ExplainGrouping, RepeatedLinesAreCountedWithTheirNumbers) {
  std::string text = "header\n";
  const std::string line = ": E tensorflow/stream_executor/cuda/cuda_dnn.cc:329] Could not create cudnn handle: CUDNN_STATUS_INTERNAL_ERROR\n";
  for (int i = 0; i < 1204; ++i) text += "2020-06-21 14:35:28." + std::to_string(100000 + i) + line;
  const auto a = explain::analyze_text(table(), text);
  ASSERT_EQ(a.hits.size(), 1u);
  EXPECT_EQ(a.hits[0].group.count, 1204u);
  EXPECT_EQ(a.hits[0].group.describe(), "lines 2, 3, 4, 5, 6, 7, 8, 9, ... (x1,204)");
}

TEST(ExplainReader, CrlfAndInvalidUtf8ReadLikeTheOriginal) {
  const std::string original = test::read_file(log_path("tf-44869-no-device-container.log"));
  std::string mangled;
  for (char c : original) {
    if (c == '\n') mangled += "\xff\xfe\r";  // invalid UTF-8 at every line end, then CRLF
    mangled += c;
  }
  const auto a = explain::analyze_text(table(), original);
  const auto b = explain::analyze_text(table(), mangled);
  EXPECT_EQ(rule_ids(a), rule_ids(b));
  EXPECT_EQ(a.lines, b.lines);
  EXPECT_NO_THROW((void)explain::analysis_json(b).dump());  // strict UTF-8 dump: every kept text is clean
  for (const auto& h : b.hits) EXPECT_EQ(h.group.sample.find('\r'), std::string::npos);
}

TEST(ExplainReader, ChunkBoundariesDoNotMatter) {
  const std::string text = test::read_file(log_path("tf-nvidia-110-cusolver-nvjitlink.log"));
  std::vector<std::string> whole, bytewise;
  explain::LineSplitter a([&](std::string_view l) { whole.emplace_back(l); });
  a.feed(text);
  a.finish();
  explain::LineSplitter b([&](std::string_view l) { bytewise.emplace_back(l); });
  for (char c : text) b.feed(std::string_view(&c, 1));
  b.finish();
  EXPECT_EQ(whole, bytewise);
  EXPECT_EQ(whole.size(), 8u);
}

TEST(ExplainReader, LongLinesAreCutAndCounted) {
  std::vector<size_t> sizes;
  explain::LineSplitter s([&](std::string_view l) { sizes.push_back(l.size()); });
  s.feed(std::string(explain::kMaxLineBytes * 3, 'x'));
  s.feed("\nlast");
  s.finish();
  EXPECT_EQ(sizes, (std::vector<size_t>{explain::kMaxLineBytes, 4}));
  EXPECT_EQ(s.truncated_lines(), 1u);
}

TEST(ExplainReader, AHugeLineDoesNotOverflowTheRegex) {
  // std::regex recurses per character: a 64 KiB value once blew the stack (found by the fuzz target).
  const std::string line = "W dso_loader.cc:60] Could not load dynamic library '" + std::string(60000, 'a') + "'; dlerror\n" +
                           "name: " + std::string(60000, 'b') + " major: 8 minor: 0\n";
  const auto a = explain::analyze_text(table(), line);
  ASSERT_EQ(a.hits.size(), 1u);
  EXPECT_EQ(a.hits[0].signature->rule_id, "cuda.library_missing");
  EXPECT_EQ(a.facts.at("compute_capability").value, "8.0");
}

TEST(ExplainReader, CleanTextReplacesBadBytes) {
  EXPECT_EQ(explain::clean_text("a\xc3\xa9z"), "a\xc3\xa9z");
  EXPECT_EQ(explain::clean_text("a\xff" "b"), "a\xef\xbf\xbd" "b");
  EXPECT_EQ(explain::clean_text("a\xed\xa0\x80"), "a\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");  // a surrogate is not UTF-8
  EXPECT_EQ(explain::clean_text("a\x01\x1b[31m"), "a  [31m");
  EXPECT_EQ(explain::clean_text("abcdef", 3), "abc...");
}

TEST(ExplainMachine, JudgedAgainstASnapshot) {
  // An A100 box with driver 470 and TensorFlow 2.17: doctor's rule of the
  // same id fails there, so the finding carries that machine's fix.
  auto r = test::run_tfrig({"explain", "--format", "json", "--snapshot", test::data_dir() + "/snapshots/gpu_box_two_a100_old_driver.json",
                            log_path("jade-81-driver-insufficient-p100.log")});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["findings"].size(), 2u);  // and the CPU-feature notice (info)
  const auto& f = j["findings"][0];  // worst first
  EXPECT_EQ(f["rule_id"], "driver.too_old_for_cuda");
  bool machine = false, compat = false, general = false;
  for (const auto& e : f["evidence"]) {
    const std::string fact = e["fact"];
    machine |= fact.rfind("driver.too_old_for_cuda on snapshot:", 0) == 0;
    compat |= fact.rfind("compat (the log's versions + snapshot:", 0) == 0 && e["value"].get<std::string>().find("2.17") != std::string::npos;
    general |= fact == "fix from the log alone";
  }
  EXPECT_TRUE(machine) << f.dump(2);
  EXPECT_TRUE(compat) << f.dump(2);
  EXPECT_TRUE(general) << f.dump(2);
  EXPECT_NE(f["fix"].get<std::string>().find("470"), std::string::npos) << "the fix names this machine's driver: " << f["fix"];
}

TEST(ExplainCli, ListExitCodesAndStdin) {
  auto list = test::run_tfrig({"explain", "--list"});
  EXPECT_EQ(list.exit_code, 0);
  EXPECT_NE(list.out.find("log.fabricmanager_missing"), std::string::npos);
  EXPECT_EQ(test::run_tfrig({"explain", "/nonexistent/log.txt"}).exit_code, 66);
  EXPECT_EQ(test::run_tfrig({"explain", test::data_dir()}).exit_code, 66);
  EXPECT_EQ(test::run_tfrig({"explain", "a.log", "b.log"}).exit_code, 64);
  auto noise = test::run_tfrig({"explain", log_path("relernn-63-noise.log")});
  EXPECT_EQ(noise.exit_code, 0) << "only infos: exit 0 under --fail-on warning";
  EXPECT_NE(noise.out.find("log.harmless_noise"), std::string::npos);
  auto sh = test::run_tfrig({"explain", "--format", "json", "--", "sh", "-c", "cat \"$0\" >&2; exit 3", log_path("tf-62320-ptx-h100.log")});
  EXPECT_EQ(sh.exit_code, 3) << "the command's status wins when it failed";
  EXPECT_NE(sh.err.find("TensorFlow was not built with CUDA kernel binaries"), std::string::npos) << "passed through";
  auto j = nlohmann::json::parse(sh.err.substr(sh.err.find("{\n")));
  EXPECT_EQ(j["findings"][0]["rule_id"], "gpu.ptx_jit_only");
  EXPECT_EQ(j["command_exit_code"], 3);
  auto ok = test::run_tfrig({"explain", "--no-machine", "--", "sh", "-c", "echo fine; cat \"$0\"", log_path("sim2real-5-error-804.log")});
  EXPECT_EQ(ok.exit_code, 2) << "the command succeeded: the findings decide";
  EXPECT_EQ(ok.out.substr(0, 5), "fine\n");
  EXPECT_NE(ok.err.find("log.cuda_forward_compat"), std::string::npos);
  EXPECT_EQ(test::run_tfrig({"explain", "--no-machine", "--", "/nonexistent/cmd"}).exit_code, 127);
  // stdin, through a shell redirection.
  auto in = test::run_tfrig({"explain", "--no-machine", "--", "sh", "-c", "\"$1\" explain - < \"$0\"", log_path("nccl-525-shm-kubeflow.log"),
                             test::binary_path()});
  EXPECT_EQ(in.exit_code, 2);
  EXPECT_NE(in.out.find("stdin: 3 lines read: 1 error"), std::string::npos) << in.out;
}

// A 100 MB log of repeated real lines is streamed: memory stays flat and the
// rate is printed (bench/RESULTS.md records it).
TEST(ExplainBigLog, HundredMegabytesInBoundedMemory) {
  test::TempDir dir;
  const std::string path = dir.file("big.log");
  const std::string block = test::read_file(log_path("deeplab2-66-cudnn-8.0.4-vs-8.1.0.log")) + test::read_file(log_path("relernn-63-noise.log"));
  {
    std::ofstream out(path, std::ios::binary);
    for (size_t written = 0; written < 100u * 1000 * 1000; written += block.size()) out << block;
  }
  const auto size = std::filesystem::file_size(path);
  const auto start = std::chrono::steady_clock::now();
  auto r = test::run_tfrig({"explain", "--format", "json", path});
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(r.exit_code, 2) << r.err;
  auto j = nlohmann::json::parse(r.out);
  const uint64_t blocks = size / block.size();
  EXPECT_EQ(j["log"]["bytes"], size);
  EXPECT_EQ(j["log"]["lines"], blocks * 9);
  EXPECT_EQ(j["findings"].size(), 5u);
  EXPECT_EQ(j["log"]["signatures"][0]["count"], blocks * 2);
  // This run's own peak (wait4): RUSAGE_CHILDREN would report the largest of
  // every child this test process has waited for, earlier tests' included.
  // AddressSanitizer keeps freed memory in quarantine (256 MB by default), so
  // its builds get that much more room.
#if defined(__SANITIZE_ADDRESS__)
  constexpr long kMaxRssKiB = 1024 * 1024;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
  constexpr long kMaxRssKiB = 1024 * 1024;
#else
  constexpr long kMaxRssKiB = 200 * 1024;
#endif
#else
  constexpr long kMaxRssKiB = 200 * 1024;
#endif
  EXPECT_LT(r.max_rss_kib, kMaxRssKiB) << "KiB";
  std::printf("[ explain  ] %.0f MB in %.2f s (%.0f MB/s), max RSS of tfrig children %ld KiB\n", size / 1e6, seconds, size / 1e6 / seconds,
              r.max_rss_kib);
}

// docs/explain.md (the table and the corpus figures): ExplainDocs.DocsExplainMdCarriesTheCorpusFigures in explain_tail_test.cpp.

}  // namespace
}  // namespace tfrig

namespace tfrig {
namespace {

// doctor --from: a bug report and a TensorFlow log of one machine judged together.
TEST(ExplainDoctorFrom, ALogNextToABugReport) {
  auto r = test::run_tfrig({"doctor", "--format", "json", "--from", test::data_dir() + "/nvidia-bug-report/Young768__profiling.log.gz",
                            "--from", log_path("tf-44869-no-device-container.log")});
  ASSERT_EQ(r.exit_code, 2) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_NE(j["verdict"].get<std::string>().find("adds 2 errors, 1 info (tfrig explain)"), std::string::npos) << j["verdict"];
  std::set<std::string> from_log;
  for (const auto& f : j["findings"]) {
    for (const auto& e : f["evidence"]) {
      if (e["source"].get<std::string>().find("tf-44869-no-device-container.log: line") != std::string::npos) from_log.insert(f["rule_id"]);
    }
  }
  EXPECT_EQ(from_log, (std::set<std::string>{"container.no_gpu_given", "driver.not_loaded", "log.harmless_noise"}));
  // Worst first across both sources.
  for (size_t i = 1; i < j["findings"].size(); ++i) {
    auto rank = [](const std::string& s) { return s == "error" ? 2 : s == "warning" ? 1 : 0; };
    EXPECT_GE(rank(j["findings"][i - 1]["severity"]), rank(j["findings"][i]["severity"]));
  }
  // A log alone is not a machine.
  EXPECT_EQ(test::run_tfrig({"doctor", "--from", log_path("tf-8526-driver-insufficient.log")}).exit_code, 64);
}

}  // namespace
}  // namespace tfrig

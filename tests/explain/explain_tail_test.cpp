// tfrig explain on the errors users paste (issue 28): the TensorRT noise and
// TF-TRT, the RE2 engine against hostile patterns, the way a paste is read
// (prefixes, wrapped lines, UTF-16, tracebacks), the unknown lines, the Xid
// reader, every row's quoted examples, and the corpus figures in docs/explain.md.
#include <chrono>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "explain/corpus.h"
#include "explain/explain.h"
#include "explain_test_support.h"
#include "golden.h"
#include "rules/rule.h"
#include "test_support.h"

namespace tfrig {
namespace {

using explain::test::ids;
using explain::test::rule_ids;
using explain::test::table;

// The lines TensorFlow 2.11 printed at import without TensorRT
// (https://github.com/googlecolab/colabtools/issues/3408).
const std::string kTensorRtAbsent =
    "2023-02-13 19:39:03.670024: W tensorflow/compiler/xla/stream_executor/platform/default/dso_loader.cc:64] Could not load dynamic "
    "library 'libnvinfer.so.7'; dlerror: libnvinfer.so.7: cannot open shared object file: No such file or directory; LD_LIBRARY_PATH: "
    "/usr/lib64-nvidia\n"
    "2023-02-13 19:39:03.670126: W tensorflow/compiler/xla/stream_executor/platform/default/dso_loader.cc:64] Could not load dynamic "
    "library 'libnvinfer_plugin.so.7'; dlerror: libnvinfer_plugin.so.7: cannot open shared object file: No such file or directory\n"
    "2023-02-13 19:39:03.670144: W tensorflow/compiler/tf2tensorrt/utils/py_utils.cc:38] TF-TRT Warning: Cannot dlopen some TensorRT "
    "libraries. If you would like to use Nvidia GPU with TensorRT, please make sure the missing libraries mentioned above are installed "
    "properly.\n";

TEST(ExplainTensorRt, AbsentTensorRtIsNoiseWithoutTfTrt) {
  const auto a = explain::analyze_text(table(), kTensorRtAbsent);
  EXPECT_EQ(rule_ids(a), std::set<std::string>{"log.harmless_noise"});
  for (const auto& e : explain::findings_from(a)) {
    EXPECT_EQ(e.finding.severity, rules::Severity::kInfo);
    EXPECT_EQ(e.finding.title.find("could not open a CUDA library"), std::string::npos) << e.finding.title;
  }
  test::TempDir dir;
  { std::ofstream(dir.file("trt.log"), std::ios::binary) << kTensorRtAbsent; }
  const auto r = test::run_tfrig({"explain", dir.file("trt.log")});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.out.find("could not open a CUDA library"), std::string::npos) << r.out;
}

TEST(ExplainTensorRt, AbsentTensorRtIsAnErrorWhenTfTrtIsUsed) {
  // trt_convert.py logs the linked TensorRT version when a converter starts.
  const std::string log = kTensorRtAbsent + "I0101 00:00:00.000000 1 trt_convert.py:1234] Linked TensorRT version: (7, 2, 2)\n";
  const auto a = explain::analyze_text(table(), log);
  EXPECT_EQ(rule_ids(a), std::set<std::string>{"log.tensorrt_missing"});
  EXPECT_EQ(a.hits.front().group.count, 3u) << "every TensorRT line joins the finding";
  // A CUDA library that is really missing is still an error next to TensorRT noise.
  const auto b = explain::analyze_text(table(), kTensorRtAbsent +
                                                     "W dso_loader.cc:64] Could not load dynamic library 'libcudart.so.11.0'; dlerror: "
                                                     "libcudart.so.11.0: cannot open shared object file\n");
  EXPECT_EQ(rule_ids(b), (std::set<std::string>{"log.harmless_noise", "cuda.library_missing"}));
}

// A table of one row, as a user's --knowledge file could bring it.
std::string one_row(const std::string& regex) {
  return nlohmann::json{{"signatures",
                         {{{"id", "hostile"},
                           {"rule_id", "log.hostile"},
                           {"area", "log"},
                           {"severity", "error"},
                           {"regex", {regex}},
                           {"what", "w"},
                           {"cause", "c"},
                           {"fix", "f"},
                           {"source", "https://example.org"}}}}}
      .dump();
}

TEST(ExplainEngine, BacktrackingPatternsRunInLinearTime) {
  // Each of these takes exponential time in a backtracking engine on the line below.
  for (const std::string p : {"(a+)+$", "(a|a)*b", "(a*)*c", "^(([a-z])+.)+[A-Z]([a-z])+$"}) {
    SCOPED_TRACE(p);
    auto t = explain::parse_signature_table(one_row(p), "k.json");
    ASSERT_TRUE(t) << t.error().to_string();
    const std::string line = std::string(60000, 'a') + "!\n";
    const auto start = std::chrono::steady_clock::now();
    const auto a = explain::analyze_text(*t, line + line);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_LT(s, 2.0);
    EXPECT_EQ(a.lines, 2u);
  }
}

TEST(ExplainEngine, BadPatternsNameTheRowAndFile) {
  struct Case {
    std::string pattern, says;
  };
  for (const auto& c : {Case{"(", "invalid pattern"}, Case{"((a{1000}){1000}){1000}", "invalid pattern"},
                        Case{std::string(5000, 'x'), "at most 4096"}, Case{"x*", "empty text"}}) {
    SCOPED_TRACE(c.pattern.substr(0, 40));
    auto t = explain::parse_signature_table(one_row(c.pattern), "k.json");
    ASSERT_FALSE(t);
    EXPECT_EQ(t.error().where, "k.json: signatures[hostile].regex");
    EXPECT_NE(t.error().to_string().find(c.says), std::string::npos) << t.error().to_string();
  }
  // Through the command line: exit 65, the file and the row named.
  test::TempDir dir;
  { std::ofstream(dir.file("log_signatures.json"), std::ios::binary) << one_row("(a{1000}){1000}(b{1000}){1000}"); }
  const auto r = test::run_tfrig({"--knowledge", dir.path(), "explain", test::data_dir() + "/logs/relernn-63-noise.log"});
  EXPECT_EQ(r.exit_code, 65) << r.err;
  EXPECT_NE(r.err.find("signatures[hostile].regex"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(dir.file("log_signatures.json")), std::string::npos) << r.err;
}

TEST(ExplainEngine, OnePassFindsRowsFactsContextsAndMarkers) {
  explain::LineMatches m;
  table().matcher->match("2020-01-01 10:00:00.1: E x.cc:1] Could not create cudnn handle: CUDNN_STATUS_INTERNAL_ERROR Error", m);
  ASSERT_FALSE(m.signatures.empty());
  EXPECT_EQ(table().signatures[m.signatures.front()].id, "cudnn-handle-failed");
  EXPECT_TRUE(m.marker);
  table().matcher->match("Linked TensorRT version: (8, 6, 1)", m);
  EXPECT_EQ(m.contexts.size(), 1u);
  EXPECT_TRUE(m.signatures.empty());
}

// The literal prefilter only decides when the patterns run: whatever the
// stride of its scan and the texts it takes from a pattern (a run of plain
// text, or a required group's alternatives), each row is found exactly where
// a plain search of its texts and patterns finds it.
TEST(ExplainEngine, ThePrefilterFindsWhatAPlainSearchFinds) {
  const std::vector<std::string> patterns = {
      "(Call to connect|Connect to).*(Connection refused|No route to host)",
      "Could not load dynamic library '(lib)?cudart",
      "(abc|xyz)?tail",
      "x(foo|bar)+y",
      "(a\\.bc|c\\|de) end",
      "GPUs? Available:? *(0\\b|\\[\\])",
      "(opt){0,1}ional text"};
  const std::vector<std::string> literals = {"Error", "short", "a longer literal text", "Segmentation fault"};
  nlohmann::json rows = nlohmann::json::array();
  for (size_t i = 0; i < patterns.size(); ++i) {
    rows.push_back({{"id", "p" + std::to_string(i)}, {"rule_id", "log.p"}, {"area", "log"}, {"severity", "error"},
                    {"regex", {patterns[i]}}, {"what", "w"}, {"cause", "c"}, {"fix", "f"}, {"source", "https://example.org"}});
  }
  for (size_t i = 0; i < literals.size(); ++i) {
    rows.push_back({{"id", "l" + std::to_string(i)}, {"rule_id", "log.l"}, {"area", "log"}, {"severity", "error"},
                    {"match", {literals[i]}}, {"what", "w"}, {"cause", "c"}, {"fix", "f"}, {"source", "https://example.org"}});
  }
  auto t = explain::parse_signature_table(nlohmann::json{{"signatures", rows}}.dump(), "k.json");
  ASSERT_TRUE(t) << t.error().to_string();
  std::vector<std::string> bodies = {"Call to connect failed: Connection refused", "Connect to 10.0.0.1 No route to host",
                                     "Connect to x: Connection timed out", "Could not load dynamic library 'cudart64_110.dll'",
                                     "Could not load dynamic library 'libcudart.so.11.0'", "tail", "xyztail", "xfoobarfooy", "xy",
                                     "a.bc end", "c|de end", "abc end", "GPUs Available: 0", "GPU Available []", "GPUs Available: 01",
                                     "optional text", "ional text", "Error", "Erro", "shor", "short", "a longer literal tex",
                                     "a longer literal text", "Segmentation fault (core dumped)", "Segmentation faul"};
  explain::LineMatches m;
  for (const auto& body : bodies) {
    for (size_t pad = 0; pad < 12; ++pad) {  // every offset against the scan's stride
      const std::string line = std::string(pad, '.') + body + std::string(pad % 3, ' ');
      std::set<std::string> want;
      for (size_t i = 0; i < patterns.size(); ++i) {
        if (std::regex_search(line, std::regex(patterns[i]))) want.insert("p" + std::to_string(i));
      }
      for (size_t i = 0; i < literals.size(); ++i) {
        if (line.find(literals[i]) != std::string::npos) want.insert("l" + std::to_string(i));
      }
      t->matcher->match(line, m);
      std::set<std::string> got;
      for (size_t r : m.signatures) got.insert(t->signatures[r].id);
      EXPECT_EQ(got, want) << "line: " << line;
    }
  }
}

TEST(ExplainPaste, PrefixesAreSetAside) {
  EXPECT_EQ(explain::message_of("E0000 00:00:1738697930.202924    7665 cuda_dnn.cc:522] Loaded runtime"), "Loaded runtime");
  EXPECT_EQ(explain::glog_level("E0000 00:00:1738697930.202924    7665 cuda_dnn.cc:522] x"), 'E');
  EXPECT_EQ(explain::message_of("[ 1843.308145] NVRM: GPU at PCI:0000:04:00: GPU has fallen off the bus."),
            "NVRM: GPU at PCI:0000:04:00: GPU has fallen off the bus.");
  EXPECT_EQ(explain::message_of("May 27 16:50:10 fedora kernel: NVRM: GPU 0000:09:00.0: RmInitAdapter failed!"),
            "NVRM: GPU 0000:09:00.0: RmInitAdapter failed!");
  EXPECT_EQ(explain::message_of("[Fri Aug 30 11:43:09 2024] NVRM: Xid (PCI:0000:cb:00): 13"), "NVRM: Xid (PCI:0000:cb:00): 13");
  EXPECT_EQ(explain::message_of("2024-01-01T10:00:00.123456789Z 2024-01-01 10:00:00.1: W x.cc:1] hello"), "hello");
  EXPECT_EQ(explain::glog_level("(ActorGroup(rank=6) pid=4084493) I0000 00:00:1781703174.081799 4087100 port.cc:153] oneDNN"), 'I');
  EXPECT_EQ(explain::glog_level("Dec 06 04:25:43 host python[12]: E1201 10:00:00.1 12 x.cc:1] boom"), 'E');
}

TEST(ExplainPaste, WrappedLinesAreJoined) {
  // nvidia-container-cli's message cut by the terminal in the middle of a word.
  const std::string log =
      "container_linux.go:265: starting container process caused \"process_linux.go:368: container init caused \\\"process_linux.go:351: "
      "running p\n"
      "restart hook 1 caused \\\"error running hook: exit status 1, stdout: , stderr: nvidia-container-cli: requirement error: unsatisfied "
      "condi\n"
      "tion: cuda >= 9.0\\n\\\"\"\n";
  const auto a = explain::analyze_text(table(), log);
  EXPECT_EQ(ids(a), std::set<std::string>{"container-driver-too-old"});
  EXPECT_EQ(a.hits.front().group.lines, std::vector<uint64_t>{1}) << "named at the first piece";
  // A short line before is not a wrapped piece; a line of its own record is not a continuation.
  EXPECT_TRUE(explain::analyze_text(table(), "unsatisfied condi\ntion: cuda >= 9.0\n").hits.empty());
}

uint64_t lines_counted(const explain::LogAnalysis& a) {
  uint64_t n = a.unrecognised_not_kept;
  for (const auto& h : a.hits) n += h.group.count;
  for (const auto& g : a.unrecognised) n += g.count;
  return n;
}

TEST(ExplainPaste, AWrappedErrorLineIsCountedOnceUnderItsJoinedRow) {
  // An error line cut by the terminal inside the words its row needs: alone,
  // the first piece is an unrecognised error; joined, the pieces name the row.
  // The line then belongs to the row only, not to the unknown lines as well.
  const std::string log =
      "2021-10-13 17:19:29.385716: E tensorflow/stream_executor/cuda/cuda_dnn.cc:362] Loaded runtime CuDNN li\n"
      "brary: 8.0.4 but source was compiled with: 8.1.0.  CuDNN library needs to have matching major version\n";
  const auto a = explain::analyze_text(table(), log);
  ASSERT_EQ(a.hits.size(), 1u) << a.unrecognised.size();
  EXPECT_EQ(a.hits.front().group.lines, std::vector<uint64_t>{1});
  EXPECT_TRUE(a.unrecognised.empty()) << a.unrecognised.front().sample;
  EXPECT_EQ(lines_counted(a), 1u);
}

TEST(ExplainPaste, NoLineIsCountedTwice) {
  // The input libFuzzer made in CI that counted lines under two groups.
  const auto bytes = test::read_file(test::data_dir() + "/fuzz-corpus/explain_log/ci-crash-wrapped-join-counted-twice.bin");
  ASSERT_FALSE(bytes.empty());
  const auto a = explain::analyze_text(table(), bytes);
  EXPECT_LE(lines_counted(a), a.lines);
  for (const auto& g : a.unrecognised) EXPECT_GT(g.count, 0u) << g.sample;
  // Every corpus log too.
  for (const auto& entry : std::filesystem::directory_iterator(test::data_dir() + "/logs/corpus")) {
    const auto b = explain::analyze_text(table(), test::read_file(entry.path().string()));
    EXPECT_LE(lines_counted(b), b.lines) << entry.path();
  }
}

std::string utf16(const std::string& ascii, bool big_endian, bool bom) {
  std::string out;
  if (bom) out += big_endian ? "\xfe\xff" : "\xff\xfe";
  for (char c : ascii) {
    if (c == '\n') {
      out += big_endian ? std::string("\0\r\0\n", 4) : std::string("\r\0\n\0", 4);
      continue;
    }
    out += big_endian ? std::string{'\0', c} : std::string{c, '\0'};
  }
  return out;
}

TEST(ExplainPaste, Utf16LogsReadLikeUtf8) {
  const std::string original = test::read_file(test::data_dir() + "/logs/tf-44869-no-device-container.log");
  const auto want = ids(explain::analyze_text(table(), original));
  ASSERT_FALSE(want.empty());
  for (const bool be : {false, true}) {
    for (const bool bom : {true, false}) {
      if (be && !bom) continue;  // without a BOM only the little-endian form is detectable (ASCII with every other byte zero)
      SCOPED_TRACE(std::string(be ? "BE" : "LE") + (bom ? " with BOM" : " without BOM"));
      const std::string bytes = utf16(original, be, bom);
      EXPECT_EQ(ids(explain::analyze_text(table(), bytes)), want);
      test::TempDir dir;
      { std::ofstream(dir.file("ps.log"), std::ios::binary) << bytes; }
      const auto r = test::run_tfrig({"explain", "--format", "json", dir.file("ps.log")});
      ASSERT_EQ(r.exit_code, 2) << r.err;
      std::set<std::string> got;
      const auto j = nlohmann::json::parse(r.out);  // kept: a range-for over a temporary's member would dangle
      for (const auto& s : j["log"]["signatures"]) got.insert(s["signature"].get<std::string>());
      EXPECT_EQ(got, want);
    }
  }
}

TEST(ExplainPaste, TheExceptionEndsATraceback) {
  const std::string log =
      "Traceback (most recent call last):\n"
      "  File \"train.py\", line 3, in <module>\n"
      "    model.fit(x)\n"
      "ValueError: frobnication level 7 out of range\n"
      "Traceback (most recent call last):\n"
      "  File \"train.py\", line 9, in <module>\n"
      "    model.fit(y)\n"
      "ValueError: frobnication level 12 out of range\n";
  const auto a = explain::analyze_text(table(), log);
  EXPECT_TRUE(a.hits.empty()) << "no cause is invented";
  ASSERT_EQ(a.unrecognised.size(), 1u) << "the two exceptions differ only in a number: one group";
  EXPECT_EQ(a.unrecognised[0].sample, "ValueError: frobnication level 7 out of range");
  EXPECT_EQ(a.unrecognised[0].lines, (std::vector<uint64_t>{4, 8}));
  // A recognised exception names its cause.
  const auto b = explain::analyze_text(table(), "Traceback (most recent call last):\n  File \"x.py\", line 1\n"
                                                "RuntimeError: Tensorflow has not been built with TensorRT support.\n");
  EXPECT_EQ(ids(b), std::set<std::string>{"tensorrt-missing-for-tf-trt"});
  EXPECT_TRUE(b.unrecognised.empty());
}

TEST(ExplainKernelLog, AnXidIsExplainedFromTheCatalogue) {
  const auto a = explain::analyze_text(
      table(), "[Fri Aug 30 11:43:09 2024] NVRM: Xid (PCI:0000:cb:00): 13, pid='<unknown>', name=<unknown>, Graphics SM Warp Exception\n"
               "Mar 13 10:58:49 host kernel: NVRM: Xid (PCI:0000:3b:00): 79, pid=0, GPU has fallen off the bus.\n"
               "[ 7.1] NVRM: Xid (PCI:0000:cb:00): 48, pid=1, name=python, An uncorrectable double bit error\n");
  const auto f = explain::findings_from(a);
  ASSERT_EQ(f.size(), 3u);
  std::map<std::string, const explain::Explained*> by_xid;
  for (const auto& e : f) {
    for (const auto& ev : e.finding.evidence) {
      if (ev.fact == "Xid") by_xid[ev.value.substr(0, ev.value.find(' '))] = &e;
    }
  }
  ASSERT_TRUE(by_xid.count("13") && by_xid.count("48")) << f.size();
  EXPECT_EQ(by_xid["13"]->finding.severity, rules::Severity::kWarning) << "an application fault";
  EXPECT_EQ(by_xid["48"]->finding.severity, rules::Severity::kError) << "a double-bit ECC error";
  bool lost = false;
  for (const auto& e : f) lost |= e.finding.rule_id == "gpu.lost";
  EXPECT_TRUE(lost) << "Xid 79 is a GPU fallen off the bus";
}

TEST(ExplainTable, EveryExampleIsRecognisedByItsRow) {
  size_t examples = 0;
  for (const auto& s : table().signatures) {
    for (const auto& line : s.examples) {
      SCOPED_TRACE(s.id + ": " + line);
      ++examples;
      const auto a = explain::analyze_text(table(), line + "\n");
      ASSERT_FALSE(a.hits.empty());
      EXPECT_EQ(a.hits.front().signature->id, s.id);
    }
  }
  EXPECT_GE(examples, 30u);
}

TEST(ExplainTable, EveryCauseSaysHowTheMachineConfirmsIt) {
  for (const auto& s : table().signatures) {
    if (s.harmless()) continue;
    SCOPED_TRACE(s.id);
    const bool doctor = rules::find_rule(s.rule_id) != nullptr || !s.machine_rules.empty();
    EXPECT_TRUE(doctor || !s.confirm.empty()) << "needs a doctor rule or a `confirm` text";
  }
}

TEST(ExplainMachine, TheConfirmingFactJoinsAJudgedFinding) {
  auto r = test::run_tfrig({"explain", "--format", "json", "--snapshot", test::data_dir() + "/snapshots/gpu_box_two_a100_old_driver.json",
                            test::data_dir() + "/logs/nccl-525-shm-kubeflow.log"});
  ASSERT_EQ(r.exit_code, 2) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  bool confirm = false;
  for (const auto& f : j["findings"]) {
    for (const auto& e : f["evidence"]) confirm |= e["fact"] == "to confirm on the machine";
  }
  EXPECT_TRUE(confirm) << j.dump(2);
}

// The corpus of real logs (tests/data/logs/corpus): its figures are in
// docs/explain.md and may not fall below the recorded thresholds.
std::string corpus_dir() { return test::data_dir() + "/logs/corpus"; }

TEST(ExplainCorpus, FiguresMeetTheThresholds) {
  auto f = explain::measure_corpus(table(), corpus_dir());
  ASSERT_TRUE(f) << f.error().to_string();
  if (!f->present) GTEST_SKIP() << "no corpus in this checkout (" << corpus_dir() << "/labels.json)";
  const auto t = nlohmann::json::parse(test::read_file(test::data_dir() + "/../explain/corpus_thresholds.json"));
  std::printf("[ corpus   ] held-out %zu/%zu (%.1f%%), train %zu/%zu (%.1f%%), alarms on harmless logs %zu/%zu\n", f->heldout.named,
              f->heldout.logs, 100 * f->heldout.recall(), f->train.named, f->train.logs, 100 * f->train.recall(), f->harmless_alarms,
              f->harmless_logs);
  EXPECT_GE(f->heldout.recall(), t["heldout_recall_min"].get<double>());
  EXPECT_GE(f->train.recall(), t["train_recall_min"].get<double>());
  EXPECT_LE(f->harmless_alarms, t["harmless_alarms_max"].get<size_t>());
  EXPECT_GE(f->train.logs + f->heldout.logs, t["logs_min"].get<size_t>());
}

TEST(ExplainCorpus, LabelsMustNameFilesOfTheFolder) {
  test::TempDir dir;
  { std::ofstream(dir.file("labels.json")) << R"({"../../etc/passwd": {"cause": "x", "split": "train"}})"; }
  auto f = explain::measure_corpus(table(), dir.path());
  ASSERT_FALSE(f);
  EXPECT_NE(f.error().where.find("../../etc/passwd"), std::string::npos);
  { std::ofstream(dir.file("labels.json")) << R"({"a.log": {"cause": "x", "split": "both"}})"; }
  EXPECT_FALSE(explain::measure_corpus(table(), dir.path()));
  { std::ofstream(dir.file("labels.json")) << R"({"a.log": {"cause": "docker-no-gpu-driver", "split": "heldout"}})"; }
  { std::ofstream(dir.file("a.log")) << "docker: Error response from daemon: could not select device driver \"\" with capabilities: [[gpu]].\n"; }
  f = explain::measure_corpus(table(), dir.path());
  ASSERT_TRUE(f) << f.error().to_string();
  EXPECT_EQ(f->heldout.named, 1u);
  EXPECT_TRUE(f->train_missed.empty());
}

TEST(ExplainDocs, DocsExplainMdCarriesTheCorpusFigures) {
  const auto path = std::filesystem::path(test::data_dir()).parent_path().parent_path() / "docs" / "explain.md";
  auto f = explain::measure_corpus(table(), corpus_dir());
  ASSERT_TRUE(f) << f.error().to_string();
  const std::string want = explain::signatures_markdown(table(), explain::corpus_markdown(*f));
  EXPECT_TRUE(test::matches_golden(path.string(), want));
  EXPECT_EQ(test::run_tfrig({"explain", "--markdown", "--corpus", corpus_dir()}).out, want);
}

}  // namespace
}  // namespace tfrig

// doctor --format prometheus: the renderer on hand-made and fixture reports
// (unknown values left out, label escaping, every sample a row of the
// table), docs/metrics.md generated from the table, promtool check metrics on
// every output, promtool test rules on deploy/prometheus, and -o written
// atomically.
#include "report/prometheus.h"

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include <gtest/gtest.h>

#include "golden.h"
#include "report/command.h"
#include "test_support.h"

namespace tfrig {
namespace {

using report::escape_label_value;
using report::render_prometheus;
using report::to_valid_utf8;

// One sample line: name, label pairs in order, value text.
struct ParsedSample {
  std::string name;
  std::vector<std::pair<std::string, std::string>> labels;
  std::string value;
};

// A small parser of the sample lines this renderer writes (escaped values
// decoded), enough to check names, label sets and duplicates.
std::vector<ParsedSample> parse_samples(const std::string& text) {
  std::vector<ParsedSample> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    ParsedSample s;
    size_t i = 0;
    while (i < line.size() && line[i] != '{' && line[i] != ' ') s.name += line[i++];
    if (i < line.size() && line[i] == '{') {
      ++i;
      while (i < line.size() && line[i] != '}') {
        std::string key;
        while (line[i] != '=') key += line[i++];
        i += 2;  // ="
        std::string value;
        while (line[i] != '"') {
          if (line[i] == '\\') {
            ++i;
            value += line[i] == 'n' ? '\n' : line[i];
          } else {
            value += line[i];
          }
          ++i;
        }
        ++i;  // closing quote
        if (line[i] == ',') ++i;
        s.labels.emplace_back(key, value);
      }
      ++i;
    }
    s.value = line.substr(i + 1);
    out.push_back(std::move(s));
  }
  return out;
}

report::Report hand_report() {
  report::Report r;
  r.tool_version = "0.1.0";
  inventory::Gpu g;
  g.index = 0;
  g.name = "NVIDIA A100-SXM4-80GB";
  r.inventory.gpus.push_back(g);
  return r;
}

const report::MetricSpec* spec_of(const std::string& name) {
  for (const auto& m : report::prometheus_metrics()) {
    if (m.name == name) return &m;
  }
  return nullptr;
}

// Every sample is a row of the table with labels the row lists, and no
// series (name + labels) appears twice.
void expect_samples_follow_table(const std::string& text, const std::string& what) {
  std::set<std::string> series;
  for (const auto& s : parse_samples(text)) {
    const auto* spec = spec_of(s.name);
    ASSERT_NE(spec, nullptr) << what << ": " << s.name << " is not in the metric table";
    std::string key = s.name;
    for (const auto& [k, v] : s.labels) {
      EXPECT_NE(std::find(spec->labels.begin(), spec->labels.end(), k), spec->labels.end())
          << what << ": " << s.name << " has label " << k << " that the table does not list";
      EXPECT_FALSE(v.empty()) << what << ": " << s.name << " has an empty label " << k;
      key += "|" + k + "=" + v;
    }
    EXPECT_TRUE(series.insert(key).second) << what << ": duplicate series " << key;
  }
}

TEST(PrometheusEscape, QuotesBackslashesNewlines) {
  EXPECT_EQ(escape_label_value(R"(say "hi")"), R"(say \"hi\")");
  EXPECT_EQ(escape_label_value(R"(C:\cuda\bin)"), R"(C:\\cuda\\bin)");
  EXPECT_EQ(escape_label_value("line one\nline two"), R"(line one\nline two)");
  EXPECT_EQ(escape_label_value("\\\"\n"), R"(\\\"\n)");
  EXPECT_EQ(escape_label_value("tab\tstays"), "tab\tstays");
}

TEST(PrometheusEscape, InvalidUtf8BecomesReplacementCharacter) {
  const std::string fffd = "\xEF\xBF\xBD";
  EXPECT_EQ(to_valid_utf8("caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80"), "caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80");
  EXPECT_EQ(to_valid_utf8("a\xFF" "b"), "a" + fffd + "b");
  EXPECT_EQ(to_valid_utf8("cut \xC3"), "cut " + fffd);                           // truncated at the end
  EXPECT_EQ(to_valid_utf8("\xC0\xAF"), fffd + fffd);                             // overlong '/'
  EXPECT_EQ(to_valid_utf8("\xED\xA0\x80"), fffd + fffd + fffd);                  // a UTF-16 surrogate
  EXPECT_EQ(to_valid_utf8("\xF4\x90\x80\x80"), fffd + fffd + fffd + fffd);       // past U+10FFFF
  EXPECT_EQ(escape_label_value("\"\xFE\\"), "\\\"" + fffd + "\\\\");
}

TEST(PrometheusRender, UnknownValuesAreLeftOutNeverZero) {
  const std::string text = render_prometheus(hand_report(), 1700000000, -1);
  // What is known is there; the GPU's unknown facts are neither 0 nor empty labels.
  EXPECT_NE(text.find("tfrig_gpu_info{gpu=\"0\",name=\"NVIDIA A100-SXM4-80GB\"} 1\n"), std::string::npos) << text;
  EXPECT_NE(text.find("tfrig_last_run_timestamp_seconds 1700000000\n"), std::string::npos) << text;
  EXPECT_NE(text.find("tfrig_gpus 1\n"), std::string::npos) << text;
  for (const char* absent : {"tfrig_gpu_memory_total_bytes", "tfrig_gpu_lost", "tfrig_gpu_pcie_link_width_lanes",
                             "tfrig_gpu_nvlink_links_active", "tfrig_gpu_ecc_errors", "tfrig_verdict", "tfrig_findings",
                             "tfrig_run_duration_seconds", "tfrig_driver_info", "tfrig_stack_info", "tfrig_xid_events",
                             "tfrig_probe_success", "uuid=", "=\"\""}) {
    EXPECT_EQ(text.find(absent), std::string::npos) << absent << " in\n" << text;
  }
  // No GPU list and no GPU probe: the number of GPUs is unknown too.
  EXPECT_EQ(render_prometheus(report::Report{}, 1, -1).find("tfrig_gpus"), std::string::npos);
}

TEST(PrometheusRender, KnownValuesWithTheirLabels) {
  report::Report r = hand_report();
  auto& g = r.inventory.gpus[0];
  g.uuid = "GPU-1";
  g.pci_bus_id = "0000:3b:00.0";
  g.memory_total_bytes = 85899345920ull;
  g.pcie_link_width_current = 8;
  g.pcie_link_width_max = 16;
  g.lost = false;
  g.ecc_errors_uncorrected_volatile = 0;  // a known 0 is written
  g.nvlinks = {inventory::NvLink{0, true, {}, {}, {}}, inventory::NvLink{1, false, {}, {}, {}}};
  r.inventory.driver.version = "550.54.15";
  r.inventory.driver.xid_events = {{79, "0000:3b:00.0", 2, {}, {}, "GPU has fallen off the bus.", "dmesg"},
                                   {79, "0000:3b:00.0", 1, {}, {}, "GPU has fallen off the bus.", "kernel log"},
                                   {13, "0000:3b:00.0", 5, {}, {}, "Graphics Exception", "dmesg"}};
  r.probes = {{"nvml", probe::State::kOk, "", 0.25, {}}, {"python", probe::State::kError, "", 5.0, {}},
              {"storage", probe::State::kSkipped, "", 0, {}}};
  r.evaluated = true;
  rules::Finding f{"gpu.pcie_link_downgraded", rules::Severity::kWarning, "gpu", "gpu0", "", "", {}, "", {}};
  r.findings = {f, f};  // the same rule on the same entity twice: one series
  r.summary = rules::summarize(r.findings);
  const std::string text = render_prometheus(r, 1700000000.5, 0.125);
  for (const char* want : {
           "tfrig_gpu_info{gpu=\"0\",uuid=\"GPU-1\",name=\"NVIDIA A100-SXM4-80GB\",pci_bus_id=\"0000:3b:00.0\","
           "driver=\"550.54.15\"} 1\n",
           "tfrig_gpu_memory_total_bytes{gpu=\"0\"} 85899345920\n", "tfrig_gpu_pcie_link_width_lanes{gpu=\"0\"} 8\n",
           "tfrig_gpu_pcie_link_max_width_lanes{gpu=\"0\"} 16\n", "tfrig_gpu_lost{gpu=\"0\",pci_bus_id=\"0000:3b:00.0\"} 0\n",
           "tfrig_gpu_ecc_errors{gpu=\"0\",type=\"uncorrected\",scope=\"volatile\"} 0\n",
           "tfrig_gpu_nvlink_links_active{gpu=\"0\"} 1\n",
           "tfrig_xid_events{pci_bus_id=\"0000:3b:00.0\",xid=\"79\",class=\"bus\",severe=\"true\"} 3\n",
           "tfrig_xid_events{pci_bus_id=\"0000:3b:00.0\",xid=\"13\",class=\"application\",severe=\"false\"} 5\n",
           "tfrig_probe_success{probe=\"nvml\"} 1\n", "tfrig_probe_success{probe=\"python\"} 0\n",
           "tfrig_probe_duration_seconds{probe=\"nvml\"} 0.25\n", "tfrig_verdict 1\n",
           "tfrig_findings{severity=\"warning\"} 2\n", "tfrig_findings{severity=\"error\"} 0\n",
           "tfrig_last_run_timestamp_seconds 1700000000.5\n", "tfrig_run_duration_seconds 0.125\n",
           "tfrig_stack_info{driver=\"550.54.15\"} 1\n", "# TYPE tfrig_verdict gauge\n"}) {
    EXPECT_NE(text.find(want), std::string::npos) << want << " missing from\n" << text;
  }
  EXPECT_EQ(text.find("probe=\"storage\""), std::string::npos) << "a skipped probe writes nothing";
  expect_samples_follow_table(text, "hand report");
}

TEST(PrometheusRender, AwkwardLabelValuesStayOneValidLine) {
  report::Report r = hand_report();
  r.inventory.gpus[0].name = "A \"quoted\" C:\\ name\nsecond line \xFF end";
  const std::string text = render_prometheus(r, 1, -1);
  auto samples = parse_samples(text);
  auto it = std::find_if(samples.begin(), samples.end(), [](const auto& s) { return s.name == "tfrig_gpu_info"; });
  ASSERT_NE(it, samples.end()) << text;
  EXPECT_EQ(it->labels[1].second, "A \"quoted\" C:\\ name\nsecond line \xEF\xBF\xBD end");
  const std::string promtool = test::find_program("promtool");
  if (promtool.empty()) GTEST_SKIP() << "promtool not installed (Debian package prometheus, scripts/deps-monitoring.txt)";
  const auto check = test::run_command({promtool, "check", "metrics"}, text);
  EXPECT_EQ(check.exit_code, 0) << check.output << "\n" << text;
}

TEST(PrometheusRender, EveryMetricHasOneRowAndAConventionalName) {
  std::set<std::string_view> names;
  const std::regex name_re("tfrig_[a-z0-9_]+");
  for (const auto& m : report::prometheus_metrics()) {
    EXPECT_TRUE(names.insert(m.name).second) << m.name << " twice";
    EXPECT_TRUE(std::regex_match(std::string(m.name), name_re)) << m.name;
    const bool total = m.name.ends_with("_total");
    EXPECT_EQ(total, m.type == report::MetricType::kCounter) << m.name << ": _total only and always on counters";
    EXPECT_FALSE(m.help.empty()) << m.name;
    if (m.name.ends_with("_info")) {
      EXPECT_FALSE(m.labels.empty()) << m.name;
    }
  }
}

TEST(PrometheusDoc, DocsMetricsMdIsGeneratedFromTheTable) {
  const std::string path = test::repo_root() + "/docs/metrics.md";
  const std::string want = report::prometheus_metrics_markdown();
  EXPECT_TRUE(test::matches_golden(path, want));
  for (const auto& m : report::prometheus_metrics()) {
    EXPECT_NE(want.find("| `" + std::string(m.name) + "` |"), std::string::npos) << m.name;
  }
  auto r = test::run_tfrig({"metrics", "--markdown"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out, want);
}

// The machines of the fixtures: the two snapshots and every imported
// nvidia-bug-report, as `doctor --snapshot --format prometheus` renders them.
std::map<std::string, std::string> fixture_outputs(const test::TempDir& dir) {
  std::map<std::string, std::string> out;
  std::vector<std::pair<std::string, std::string>> snapshots;
  for (const char* s : {"cpu_box_cuda13", "gpu_box_two_a100_old_driver"}) {
    snapshots.emplace_back(s, test::data_dir() + "/snapshots/" + s + ".json");
  }
  for (const auto& name : test::list_dir(test::data_dir() + "/nvidia-bug-report")) {
    if (!name.ends_with(".log.gz")) continue;
    const std::string snap = dir.file(name + ".json");
    auto imported = test::run_tfrig({"import", test::data_dir() + "/nvidia-bug-report/" + name, "-o", snap});
    EXPECT_EQ(imported.exit_code, 0) << name << ": " << imported.err;
    snapshots.emplace_back(name, snap);
  }
  for (const auto& [name, snap] : snapshots) {
    auto r = test::run_tfrig({"doctor", "--snapshot", snap, "--format", "prometheus"});
    EXPECT_TRUE(r.exit_code >= 0 && r.exit_code <= 2) << name << ": " << r.err;
    out[name] = r.out;
  }
  return out;
}

TEST(PrometheusRender, FixtureMachinesFollowTheTableAndPassPromtool) {
  test::TempDir dir;
  const auto outputs = fixture_outputs(dir);
  ASSERT_GE(outputs.size(), 10u);
  for (const auto& [name, text] : outputs) {
    EXPECT_NE(text.find("tfrig_verdict "), std::string::npos) << name;
    expect_samples_follow_table(text, name);
  }
  const std::string promtool = test::find_program("promtool");
  if (promtool.empty()) GTEST_SKIP() << "promtool not installed (Debian package prometheus, scripts/deps-monitoring.txt)";
  for (const auto& [name, text] : outputs) {
    const auto check = test::run_command({promtool, "check", "metrics"}, text);
    EXPECT_EQ(check.exit_code, 0) << name << ": promtool check metrics:\n" << check.output;
  }
}

TEST(PrometheusDoctor, OutputFileIsWrittenAtomically) {
  test::TempDir dir;
  const std::string snap = test::data_dir() + "/snapshots/gpu_box_two_a100_old_driver.json";
  const std::string prom = dir.file("tfrig.prom");
  test::write_file(prom, "old content\n");
  auto r = test::run_tfrig({"doctor", "--snapshot", snap, "--format", "prometheus", "-o", prom});
  EXPECT_EQ(r.exit_code, 2) << r.err;  // the snapshot has an error finding
  EXPECT_TRUE(r.out.empty()) << "-o FILE writes nothing on stdout";
  const std::string text = test::read_file(prom);
  EXPECT_NE(text.find("tfrig_gpu_info{gpu=\"1\""), std::string::npos) << text;
  EXPECT_EQ(test::list_dir(dir.path()), std::vector<std::string>{"tfrig.prom"}) << "no temporary file left behind";
  struct stat st {};
  ASSERT_EQ(::stat(prom.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0644u) << "node_exporter (another user) must read it";
  // An output that cannot be created: exit 73, and nothing else written.
  auto bad = test::run_tfrig({"doctor", "--snapshot", snap, "--format", "prometheus", "-o", dir.file("no/such/dir.prom")});
  EXPECT_EQ(bad.exit_code, 73) << bad.err;
  EXPECT_NE(bad.err.find("no/such/dir.prom"), std::string::npos) << bad.err;
  // Text and JSON go to -o the same way.
  auto json = test::run_tfrig({"doctor", "--snapshot", snap, "--format", "json", "-o", dir.file("r.json")});
  EXPECT_EQ(json.exit_code, 2);
  EXPECT_NE(test::read_file(dir.file("r.json")).find("\"findings\""), std::string::npos);
}

TEST(PrometheusRules, PromtoolTestRulesPasses) {
  const std::string promtool = test::find_program("promtool");
  if (promtool.empty()) GTEST_SKIP() << "promtool not installed (Debian package prometheus, scripts/deps-monitoring.txt)";
  const std::string dir = test::repo_root() + "/deploy/prometheus";
  const auto check = test::run_command({promtool, "check", "rules", dir + "/tfrig-rules.yml"});
  EXPECT_EQ(check.exit_code, 0) << check.output;
  const auto unit = test::run_command({promtool, "test", "rules", dir + "/tfrig-rules.test.yml"});
  EXPECT_EQ(unit.exit_code, 0) << unit.output;
  EXPECT_NE(unit.output.find("SUCCESS"), std::string::npos) << unit.output;
}

// Every metric the alert rules and their unit tests use is one tfrig writes
// (or node_exporter's own): a misspelt name in either fails here.
TEST(PrometheusRules, RulesUseOnlyKnownMetrics) {
  for (const char* file : {"tfrig-rules.yml", "tfrig-rules.test.yml"}) {
    const std::string rules = test::read_file(test::repo_root() + "/deploy/prometheus/" + file);
    const std::regex metric_re("\\b(tfrig_[a-z0-9_]+)");
    int used = 0;
    for (auto it = std::sregex_iterator(rules.begin(), rules.end(), metric_re); it != std::sregex_iterator(); ++it) {
      const std::string name = (*it)[1];
      EXPECT_NE(spec_of(name), nullptr) << file << ": " << name << " is used but tfrig writes no such metric";
      ++used;
    }
    EXPECT_GE(used, 8) << file;
  }
}

// The renderer names metrics by report::Metric; each enumerator has exactly
// its own row, in order, so the name it stands for is the table's.
TEST(PrometheusRender, OneTableRowPerMetricEnumeratorInOrder) {
  const auto& table = report::prometheus_metrics();
  ASSERT_EQ(table.size(), static_cast<size_t>(report::Metric::kXidEvents) + 1);
  for (size_t i = 0; i < table.size(); ++i) {
    EXPECT_EQ(static_cast<size_t>(table[i].id), i) << table[i].name;
  }
}

}  // namespace
}  // namespace tfrig

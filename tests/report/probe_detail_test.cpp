// The probes' and the importer's summaries and problems, the parsers'
// errors, the inventory texts tfrig writes and the rules' evidence sources
// render from their messages, also after a snapshot round trip; a text
// without one (an older snapshot's) prints as stored.
#include "report/probe_detail.h"

#include <optional>
#include <string_view>

#include <gtest/gtest.h>

#include "core/i18n.h"
#include "core/message.h"
#include "inventory/json.h"
#include "probe/probe.h"
#include "rules/util.h"
#include "verdict/report.h"
#include "test_support.h"
#include "probe/parse/daemon_json.h"
#include "probe/parse/dist_info.h"
#include "probe/parse/ld_so_cache.h"
#include "probe/parse/nvidia_smi_xml.h"
#include "probe/parse/proc_driver_nvidia.h"
#include "probe/parse/proc_text.h"

namespace tfrig::report {
namespace {

// Switches to a language for one test and back to English after.
class InLanguage {
 public:
  explicit InLanguage(std::string_view lang) { core::i18n::set_language(lang); }
  ~InLanguage() { core::i18n::set_language("en"); }
  InLanguage(const InLanguage&) = delete;
  InLanguage& operator=(const InLanguage&) = delete;
};

TEST(ProbeDetail, EnglishPrintsAsStored) {
  InLanguage en("en");
  EXPECT_EQ(stored_text("AMD EPYC: 2 threads, 2 cores, 1 NUMA nodes", std::nullopt),
            "AMD EPYC: 2 threads, 2 cores, 1 NUMA nodes");
  const rules::Text source = rules::util::knowledge_source("tf_builds.json", "tf-docs");
  EXPECT_EQ(source.english, "knowledge tf_builds.json [tf-docs]");
  EXPECT_EQ(stored_text(source.english, source.message), "knowledge tf_builds.json [tf-docs]");
  EXPECT_EQ(nvml_state("not_tried"), "not_tried");
}

// The probes on a real tree (tests/data/roots/debian12-vm, see its README),
// written to a snapshot's JSON and read back: each summary keeps its message,
// and the report renders it in the reader's language without a stored
// Chinese text and without matching the English.
TEST(ProbeDetail, TheProbesSummariesKeepTheirMessagesThroughASnapshot) {
  const auto run = probe::run_probes(
      probe::Context{core::SysRoot(test::root_dir("debian12-vm"), {}), {}, std::chrono::milliseconds(60000), {}}, probe::all_probes());
  Report written;
  written.probes = run.statuses;
  auto back = report_from_json(nlohmann::json::parse(to_json(written).dump()));
  ASSERT_TRUE(back.has_value());
  ASSERT_EQ(back->probes.size(), run.statuses.size());
  size_t translated = 0;
  for (size_t i = 0; i < run.statuses.size(); ++i) {
    const auto& s = back->probes[i];
    ASSERT_TRUE(run.statuses[i].detail_message.has_value()) << s.id << ": " << s.detail;
    ASSERT_TRUE(s.detail_message.has_value()) << s.id << ": " << s.detail;
    EXPECT_EQ(*s.detail_message, *run.statuses[i].detail_message) << s.id;
    EXPECT_EQ(s.detail, run.statuses[i].detail) << s.id;
    {
      InLanguage en("en");
      EXPECT_EQ(status_detail(s), s.detail) << s.id;
    }
    InLanguage zh("zh_CN");
    EXPECT_EQ(status_detail(s), core::render(*s.detail_message, "zh_CN")) << s.id;
    translated += status_detail(s) != s.detail ? 1 : 0;
  }
  EXPECT_EQ(translated, run.statuses.size());
}

// A message that does not say the English text beside it (an edited file),
// or is not one of tfrig's, is dropped: the English text is the fact.
TEST(ProbeDetail, AMessageThatDisagreesWithItsTextIsDropped) {
  probe::ProbeStatus s;
  s.id = "memory";
  s.set_detail(core::Message(N_("{} RAM"), "23.5 GiB"));
  Report written;
  written.probes = {s};
  auto j = to_json(written);
  j["probes"][0]["detail"] = "64.0 GiB RAM";
  auto back = report_from_json(j);
  ASSERT_TRUE(back.has_value());
  EXPECT_FALSE(back->probes[0].detail_message.has_value());
  j["probes"][0]["detail"] = "x";
  j["probes"][0]["detail_message"] = {{"id", "x"}, {"args", nlohmann::json::array()}};
  back = report_from_json(j);
  ASSERT_TRUE(back.has_value());
  EXPECT_FALSE(back->probes[0].detail_message.has_value());
  InLanguage zh("zh_CN");
  EXPECT_EQ(status_detail(back->probes[0]), "x");
}

// A snapshot of a tfrig older than the messages: its probe summaries and
// its inventory texts print as stored (English), whatever their words.
TEST(ProbeDetail, AnOlderSnapshotsTextsPrintAsStored) {
  InLanguage zh("zh_CN");
  probe::ProbeStatus s;
  s.detail = "23.5 GiB RAM, 0 B swap";
  EXPECT_EQ(status_detail(s), s.detail);
  EXPECT_EQ(stored_text("6 PCI devices, 0 NVIDIA GPUs (r.log:3)", std::nullopt), "6 PCI devices, 0 NVIDIA GPUs (r.log:3)");
  EXPECT_EQ(stored_text("no mount point contains /data", std::nullopt), "no mount point contains /data");
  EXPECT_EQ(nvml_state("driver_mismatch"), "驱动与库版本不匹配");
  EXPECT_EQ(core::render(inventory::nvml_state_message("driver_mismatch"), "zh_CN"), "驱动与库版本不匹配");
  EXPECT_EQ(core::english(inventory::nvml_state_message("a_new_state")), "a_new_state");
}

// The texts tfrig writes into the inventory (NVML's detail, a GPU's driver
// problem and lost evidence, a data path's error) keep their messages through
// a snapshot: the JSON's English is unchanged, the message beside it as
// "<field>_message"; the report renders it in the reader's language, the
// importer's "(file:line (section))" kept as it is.
TEST(ProbeDetail, InventoryTextsKeepTheirMessagesThroughASnapshot) {
  inventory::Inventory inv;
  inventory::set_text(inv.driver.nvml.detail, inv.driver.nvml.detail_message,
                      core::Message(N_("imported from {}"), "r.log:6106"));
  inventory::Gpu g;
  inventory::set_text(
      g.driver_problem, g.driver_problem_message,
      core::Message(N_("{0} ({1})"),
                    core::Message(N_("the driver could not initialise it: {}"), "NVRM RmInitAdapter failed"),
                    "r.log.gz:1701 (dmesg:)"));
  inventory::set_text(
      g.lost_evidence, g.lost_evidence_message,
      core::Message(N_("{0} ({1})"), core::Message(N_("lspci: the device's config space reads all 1s (rev ff)")),
                    "r.log:3"));
  inv.gpus.push_back(g);
  inventory::DataPath dp;
  dp.path = "/data";
  inventory::set_text(dp.error, dp.error_message, core::Message(N_("no mount point contains {}"), "/data"));
  inv.storage.data_paths.push_back(dp);

  nlohmann::json j = inv;
  EXPECT_EQ(j["driver"]["nvml"]["detail"], "imported from r.log:6106");
  EXPECT_EQ(j["gpus"][0]["driver_problem"],
            "the driver could not initialise it: NVRM RmInitAdapter failed (r.log.gz:1701 (dmesg:))");
  EXPECT_EQ(j["gpus"][0]["lost_evidence"], "lspci: the device's config space reads all 1s (rev ff) (r.log:3)");
  EXPECT_EQ(j["storage"]["data_paths"][0]["error"], "no mount point contains /data");
  EXPECT_TRUE(j["gpus"][0].contains("driver_problem_message"));

  const auto back = nlohmann::json::parse(j.dump()).get<inventory::Inventory>();
  ASSERT_TRUE(back.driver.nvml.detail_message.has_value());
  EXPECT_EQ(*back.driver.nvml.detail_message, *inv.driver.nvml.detail_message);
  ASSERT_EQ(back.gpus.size(), 1u);
  ASSERT_TRUE(back.gpus[0].driver_problem_message.has_value());
  ASSERT_TRUE(back.gpus[0].lost_evidence_message.has_value());
  ASSERT_EQ(back.storage.data_paths.size(), 1u);
  ASSERT_TRUE(back.storage.data_paths[0].error_message.has_value());
  {
    InLanguage en("en");
    EXPECT_EQ(stored_text(*back.gpus[0].driver_problem, back.gpus[0].driver_problem_message), *g.driver_problem);
  }
  InLanguage zh("zh_CN");
  EXPECT_EQ(stored_text(*back.gpus[0].driver_problem, back.gpus[0].driver_problem_message),
            trf("the driver could not initialise it: {}", "NVRM RmInitAdapter failed") + "（r.log.gz:1701 (dmesg:)）");
  EXPECT_EQ(stored_text(*back.storage.data_paths[0].error, back.storage.data_paths[0].error_message),
            "没有挂载点包含 /data");
  EXPECT_NE(stored_text(back.driver.nvml.detail, back.driver.nvml.detail_message), back.driver.nvml.detail);
  EXPECT_NE(stored_text(*back.gpus[0].lost_evidence, back.gpus[0].lost_evidence_message), *g.lost_evidence);

  // A message that does not say its text (an edited file), or is not one of tfrig's, is dropped.
  j["gpus"][0]["driver_problem"] = "something else";
  j["storage"]["data_paths"][0]["error_message"] = {{"id", "no mount {}"}, {"args", {"/data"}}};
  const auto edited = j.get<inventory::Inventory>();
  EXPECT_FALSE(edited.gpus[0].driver_problem_message.has_value());
  EXPECT_TRUE(edited.gpus[0].lost_evidence_message.has_value());
  EXPECT_FALSE(edited.storage.data_paths[0].error_message.has_value());
  EXPECT_EQ(stored_text(*edited.gpus[0].driver_problem, edited.gpus[0].driver_problem_message), "something else");
}

// The rules' evidence sources are messages: English in JSON, the reader's words in the report.
TEST(ProbeDetail, EvidenceSourcesReadInChinese) {
  const rules::Text source = rules::util::knowledge_source("tf_builds.json", "tf-docs");
  ASSERT_TRUE(source.message.has_value());
  EXPECT_EQ(core::render(*source.message, "zh_CN"), "知识库 tf_builds.json [tf-docs]");
  // An Xid from an earlier boot's log: the mark in Chinese, the importer's location as it is.
  EXPECT_EQ(core::render(core::Message(N_("{} (an earlier boot)"), core::Message(N_("kernel log"))), "zh_CN"),
            "内核日志（之前某次启动）");
}

// A parse error as a probe stores it: the file's path, then the error; its
// English is Error::to_string() after the path, its message renders it.
template <class T>
core::Message stored(const std::string& path, const core::Result<T>& r) {
  EXPECT_FALSE(r);
  if (r) return core::Message();
  auto m = core::error_message(path, r.error());
  EXPECT_TRUE(m) << r.error().to_string();
  if (!m) return core::Message();
  EXPECT_EQ(core::english(*m), path + ": " + r.error().to_string());
  EXPECT_TRUE(core::known_message(*m)) << core::english(*m);
  return *m;
}

TEST(ProbeDetail, ParseErrorsReadInChineseWithTheirFileAndLine) {
  const core::Message meminfo = stored("/proc/meminfo", probe::parse::parse_meminfo("MemTotal: lots kB\n"));
  const core::Message cache = stored("/etc/ld.so.cache", probe::parse::parse_ld_so_cache("not a cache at all, really"));
  const auto conf = probe::parse::parse_limits_conf("* maybe nofile 1024\n", "/etc/security/limits.conf");
  ASSERT_EQ(conf.problems.size(), 1u);
  ASSERT_EQ(conf.problem_messages.size(), 1u);
  // The stored English is the fact; it prints unchanged in English.
  EXPECT_EQ(core::english(meminfo), "/proc/meminfo: line 1: expected a number for MemTotal");
  EXPECT_EQ(core::render(meminfo, "en"), core::english(meminfo));
  EXPECT_EQ(conf.problems[0], "/etc/security/limits.conf:1: type must be soft, hard or -, got 'maybe'");
  EXPECT_EQ(core::english(conf.problem_messages[0]), conf.problems[0]);
  EXPECT_EQ(core::render(meminfo, "zh_CN"), "/proc/meminfo：第 1 行：MemTotal 的值应为数字");
  EXPECT_EQ(core::render(cache, "zh_CN"),
            "/etc/ld.so.cache：偏移 0：应以魔数 'glibc-ld.so.cache1.1' 或 'ld.so-1.7.0' 开头，实际为 'not a cache at all, '");
  EXPECT_EQ(core::render(conf.problem_messages[0], "zh_CN"), "/etc/security/limits.conf:1：type 必须是 soft、hard 或 -，实际为 'maybe'");
}

TEST(ProbeDetail, EveryParsersErrorIsAMessageWithAChineseText) {
  const std::vector<core::Message> texts = {
      stored("/proc/cpuinfo", probe::parse::parse_cpuinfo(std::string("\0\1\2", 3))),
      stored("/proc/cpuinfo", probe::parse::parse_cpuinfo("flags : fpu\n")),
      stored("/proc/meminfo", probe::parse::parse_meminfo("MemTotal 1024\n")),
      stored("/proc/meminfo", probe::parse::parse_meminfo("")),
      stored("/sys/devices/system/cpu/online", probe::parse::parse_cpulist("0-x")),
      stored("/sys/devices/system/node/node0/cpumap", probe::parse::parse_cpumask("zz")),
      stored("/proc/self/limits", probe::parse::parse_proc_limits("Max open files 1 2\n")),
      stored("/proc/self/limits", probe::parse::parse_proc_limits("Limit                     Soft Limit           Hard Limit           Units\nMax\n")),
      stored("/etc/ld.so.cache", probe::parse::parse_ld_so_cache(std::string("ld.so-1.7.0\0", 12))),
      stored("q.xml", probe::parse::parse_nvidia_smi_xml("<nvidia_smi_log>")),
      stored("q.xml", probe::parse::parse_nvidia_smi_xml("<other/>")),
      stored("/etc/docker/daemon.json", probe::parse::parse_daemon_json("{")),
      stored("/etc/docker/daemon.json", probe::parse::parse_daemon_json("[]")),
      stored("/etc/docker/daemon.json", probe::parse::parse_daemon_json("{\"runtimes\": 1}")),
      stored("/etc/docker/daemon.json", probe::parse::parse_daemon_json("{\"default-runtime\": 1}")),
      stored("/venv/tf.dist-info/METADATA", probe::parse::parse_dist_metadata("Summary: x\n")),
      stored("/venv/tensorflow/python/platform/build_info.py", probe::parse::parse_tf_build_info("x = 1\n")),
      stored("/proc/driver/nvidia/version", probe::parse::parse_nvidia_version("hello\n")),
      stored("/proc/driver/nvidia/gpus/0000:01:00.0/information", probe::parse::parse_nvidia_gpu_information("IRQ: 5\n")),
  };
  for (const auto& m : texts) {
    const std::string en = core::english(m);
    const std::string zh_text = core::render(m, "zh_CN");
    EXPECT_NE(zh_text, en) << "not translated: " << en;
    // The path stays as it is.
    EXPECT_EQ(zh_text.substr(0, en.find(": ")), en.substr(0, en.find(": "))) << zh_text;
  }
}

TEST(ProbeDetail, NvmlFailuresReadInChineseAndTheCallStays) {
  // As the nvml probe stores a GPU it could not use (nvml_probe.cpp) from gpulib's error.
  const core::Message why(
      N_("NVML unavailable ({0}): {1}"), inventory::nvml_state_arg("driver_mismatch"),
      core::Message(N_("{0}: {1}"),
                    core::Message(N_("{0} returned {1} ({2})"), "nvmlInit_v2", "NVML_ERROR_LIB_RM_VERSION_MISMATCH",
                                  "Driver/library version mismatch"),
                    core::Message(N_("the user-space driver library and the loaded kernel module are different "
                                     "versions (driver upgraded without a reboot, or two drivers installed)"))));
  EXPECT_EQ(core::english(why),
            "NVML unavailable (driver_mismatch): nvmlInit_v2 returned NVML_ERROR_LIB_RM_VERSION_MISMATCH (Driver/library version "
            "mismatch): the user-space driver library and the loaded kernel module are different versions (driver upgraded "
            "without a reboot, or two drivers installed)");
  EXPECT_TRUE(core::known_message(why));
  EXPECT_EQ(core::render(why, "zh_CN"),
            "NVML 不可用（驱动与库版本不匹配）：nvmlInit_v2 返回 NVML_ERROR_LIB_RM_VERSION_MISMATCH（Driver/library version "
            "mismatch）：驱动的用户态库与已加载的内核模块版本不同（升级驱动后未重启，或装了两套驱动）");
}

}  // namespace
}  // namespace tfrig::report

// The probes' summaries and problems render from their messages, also after
// a snapshot round trip; the other stored English texts (importer, parsers,
// evidence sources) read in Chinese through the shapes; English and unknown
// texts print as stored.
#include "report/probe_detail.h"

#include <string_view>

#include <gtest/gtest.h>

#include "core/i18n.h"
#include "core/message.h"
#include "probe/probe.h"
#include "report/report.h"
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
  EXPECT_EQ(probe_detail("AMD EPYC: 2 threads, 2 cores, 1 NUMA nodes"), "AMD EPYC: 2 threads, 2 cores, 1 NUMA nodes");
  EXPECT_EQ(probe_detail("knowledge tf_builds.json [tf-docs]"), "knowledge tf_builds.json [tf-docs]");
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

// A snapshot of a tfrig older than the messages: its probe summaries print
// as stored (English); the importer's shapes are still known.
TEST(ProbeDetail, AnOlderSnapshotsProbeSummaryPrintsAsStored) {
  InLanguage zh("zh_CN");
  probe::ProbeStatus s;
  s.detail = "23.5 GiB RAM, 0 B swap";
  EXPECT_EQ(status_detail(s), s.detail);
  EXPECT_EQ(probe_detail("6 PCI devices, 0 NVIDIA GPUs"), "6 个 PCI 设备，0 块 NVIDIA GPU");
  EXPECT_EQ(nvml_state("driver_mismatch"), "驱动与库版本不匹配");
}

TEST(ProbeDetail, AnImportsSourceStaysAndTheOSsMessageStaysEnglish) {
  InLanguage zh("zh_CN");
  // The importer's "(file:line (section))" after each summary is kept as it is.
  EXPECT_EQ(probe_detail("14 Xid line(s) (r.log.gz:1701 (dmesg:)); /proc/modules: nvidia loaded (r.log.gz:5850 (*** /proc/modules))"),
            "14 行 Xid (r.log.gz:1701 (dmesg:))；/proc/modules：nvidia 已加载 (r.log.gz:5850 (*** /proc/modules))");
  // dlerror()'s words are the system's: only tfrig's own sentence around them is translated.
  EXPECT_EQ(probe_detail("library_missing: libnvidia-ml.so.1 not found by the dynamic loader (no NVIDIA driver installed?): "
                         "libnvidia-ml.so.1: cannot open shared object file; libnvidia-ml.so: cannot open"),
            "缺少库：动态链接器找不到 libnvidia-ml.so.1（没有安装 NVIDIA 驱动？）：libnvidia-ml.so.1: cannot open shared "
            "object file; libnvidia-ml.so: cannot open");
  EXPECT_EQ(probe_detail("knowledge tf_builds.json [tf-docs]"), "知识库 tf_builds.json [tf-docs]");
  // An Xid from an earlier boot's log: the source's words and the mark, both in Chinese.
  EXPECT_EQ(probe_detail("kernel log (an earlier boot)"), "内核日志（之前某次启动）");
  // A text no shape knows prints as stored.
  EXPECT_EQ(probe_detail("nvidia-smi: No devices were found (r.log:9)"), "nvidia-smi: No devices were found (r.log:9)");
}

// A parse error as a probe stores it: the file's path, then Error::to_string().
template <class T>
std::string stored(const std::string& path, const core::Result<T>& r) {
  EXPECT_FALSE(r);
  return r ? std::string() : path + ": " + r.error().to_string();
}

TEST(ProbeDetail, ParseErrorsReadInChineseWithTheirFileAndLine) {
  const std::string meminfo = stored("/proc/meminfo", probe::parse::parse_meminfo("MemTotal: lots kB\n"));
  const std::string cache = stored("/etc/ld.so.cache", probe::parse::parse_ld_so_cache("not a cache at all, really"));
  const auto conf = probe::parse::parse_limits_conf("* maybe nofile 1024\n", "/etc/security/limits.conf");
  ASSERT_EQ(conf.problems.size(), 1u);
  {
    InLanguage en("en");
    // The stored English is the fact; it prints unchanged in English.
    EXPECT_EQ(meminfo, "/proc/meminfo: line 1: expected a number for MemTotal");
    EXPECT_EQ(probe_detail(meminfo), meminfo);
    EXPECT_EQ(probe_detail(conf.problems[0]), "/etc/security/limits.conf:1: type must be soft, hard or -, got 'maybe'");
  }
  InLanguage zh("zh_CN");
  EXPECT_EQ(probe_detail(meminfo), "/proc/meminfo：第 1 行：MemTotal 的值应为数字");
  EXPECT_EQ(probe_detail(cache),
            "/etc/ld.so.cache：偏移 0：应以魔数 'glibc-ld.so.cache1.1' 或 'ld.so-1.7.0' 开头，实际为 'not a cache at all, '");
  EXPECT_EQ(probe_detail(conf.problems[0]), "/etc/security/limits.conf:1：type 必须是 soft、hard 或 -，实际为 'maybe'");
}

TEST(ProbeDetail, EveryParsersErrorHasAChineseShape) {
  const std::vector<std::string> texts = {
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
  InLanguage zh("zh_CN");
  for (const auto& t : texts) {
    const std::string zh_text = probe_detail(t);
    EXPECT_NE(zh_text, t) << "no shape for: " << t;
    // The path stays as it is.
    EXPECT_EQ(zh_text.substr(0, t.find(": ")), t.substr(0, t.find(": "))) << zh_text;
  }
}

TEST(ProbeDetail, NvmlFailuresReadInChineseAndTheCallStays) {
  const std::string stored_text =
      "NVML unavailable (driver_mismatch): nvmlInit_v2 returned NVML_ERROR_LIB_RM_VERSION_MISMATCH (Driver/library version "
      "mismatch): the user-space driver library and the loaded kernel module are different versions (driver upgraded "
      "without a reboot, or two drivers installed)";
  {
    InLanguage en("en");
    EXPECT_EQ(probe_detail(stored_text), stored_text);
  }
  InLanguage zh("zh_CN");
  EXPECT_EQ(probe_detail(stored_text),
            "NVML 不可用（驱动与库版本不匹配）：nvmlInit_v2 返回 NVML_ERROR_LIB_RM_VERSION_MISMATCH（Driver/library version "
            "mismatch）：驱动的用户态库与已加载的内核模块版本不同（升级驱动后未重启，或装了两套驱动）");
}

TEST(ProbeDetail, ADataPathOutsideTheRootReadsInChinese) {
  InLanguage zh("zh_CN");
  EXPECT_EQ(probe_detail("/r/data resolves to /elsewhere, outside the root /r"), "/r/data 解析为 /elsewhere，在根目录 /r 之外");
  EXPECT_EQ(probe_detail("no mount point contains /data"), "没有挂载点包含 /data");
}

TEST(ProbeDetail, AnUnknownMessageAfterAPathStaysAsStored) {
  InLanguage zh("zh_CN");
  EXPECT_EQ(probe_detail("/proc/x: line 3: something new"), "/proc/x: line 3: something new");
  // Many ": " in a quoted line: the search is bounded and the known message still found.
  std::string many = "/proc/meminfo: line 2: expected 'Key: value [kB]', got '";
  for (int i = 0; i < 40; ++i) many += "a: ";
  many += "'";
  EXPECT_EQ(probe_detail(many).rfind("/proc/meminfo：第 2 行：应为 'Key: value [kB]'，实际为 'a: ", 0), 0u) << probe_detail(many);
}

}  // namespace
}  // namespace tfrig::report

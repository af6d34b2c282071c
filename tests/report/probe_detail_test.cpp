// The stored English probe summaries, problems and evidence sources read in
// Chinese at rendering; English and unknown texts print as stored.
#include "report/probe_detail.h"

#include <string_view>

#include <gtest/gtest.h>

#include "core/i18n.h"

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

TEST(ProbeDetail, TheProbesSummariesReadInChinese) {
  InLanguage zh("zh_CN");
  EXPECT_EQ(probe_detail("AMD EPYC: 2 threads, 2 cores, 1 NUMA nodes"), "AMD EPYC：2 个线程，2 个核心，1 个 NUMA 节点");
  EXPECT_EQ(probe_detail("23.5 GiB RAM, 0 B swap"), "内存 23.5 GiB，交换分区 0 B");
  EXPECT_EQ(probe_detail("6 PCI devices, 0 NVIDIA GPUs"), "6 个 PCI 设备，0 块 NVIDIA GPU");
  // Words stored inside a shape are translated with it.
  EXPECT_EQ(probe_detail("docker yes, podman no, nvidia-container-toolkit no, runtimes [], 0 CDI specs; running inside a container"),
            "docker：是，podman：否，nvidia-container-toolkit：否，运行时 []，0 个 CDI 规范；运行在容器内");
  EXPECT_EQ(probe_detail("kernel module not loaded, 0 GPUs on the bus, 0 /dev/nvidia* nodes"),
            "内核模块 未加载，总线上 0 块 GPU，0 个 /dev/nvidia* 节点");
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
  // A text no shape knows prints as stored.
  EXPECT_EQ(probe_detail("nvidia-smi: No devices were found (r.log:9)"), "nvidia-smi: No devices were found (r.log:9)");
}

}  // namespace
}  // namespace tfrig::report

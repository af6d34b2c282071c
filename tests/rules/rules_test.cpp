// Every rule, three ways: it fires on an inventory with the
// problem, stays silent on the healthy one, and skips (naming the missing
// fact) when the input it needs is unknown.
#include <functional>
#include <set>

#include <gtest/gtest.h>

#include "core/message.h"
#include "knowledge/knowledge.h"
#include "rules/rule.h"
#include "rules/rule_fixtures.h"

namespace tfrig {
namespace {

using inventory::Inventory;
using Probes = std::optional<std::set<std::string>>;
using Mutator = std::function<void(Inventory&, Probes&)>;
using testing::gpu;

struct RuleCase {
  std::string id;
  Mutator fire;
  Mutator silent;  // applied to the healthy inventory
  Mutator skip;
};

rules::RuleResult run(const std::string& id, const Inventory& inv, const Probes& probes) {
  const auto& k = knowledge::builtin();
  const rules::Rule* rule = rules::find_rule(id);
  EXPECT_NE(rule, nullptr) << id;
  rules::Context ctx{inv, k, rules::resolve_target(inv, k, std::nullopt), probes};
  return rules::run_rule(*rule, ctx);
}

const Mutator kNothing = [](Inventory&, Probes&) {};

void two_gpus(Inventory& i) {
  i.gpus.push_back(gpu(1, "NVIDIA A100-SXM4-80GB", "8.0", 80));
  i.pci.devices.push_back(testing::pci_gpu("0000:3b:00.1", "nvidia"));
  i.memory.total_bytes = 512 * core::kGiB;
}

void p100(Inventory& i) {
  i.gpus[0] = gpu(0, "Tesla P100-PCIE-16GB", "6.0", 16);
}

void unknown_cc(Inventory& i) {
  i.gpus[0].compute_capability.reset();
  i.gpus[0].name = "Mystery Accelerator 9000";
  i.gpus[0].pci_device_id.reset();
}

std::vector<RuleCase> cases() {
  return {
      {"gpu.no_gpu", [](Inventory& i, Probes&) { i = testing::cpu_only(); }, kNothing,
       [](Inventory& i, Probes&) {
         i.gpus.clear();
         i.pci.devices.clear();
       }},
      {"gpu.compute_capability_unsupported", [](Inventory& i, Probes&) { i.gpus[0] = gpu(0, "Tesla K80", "3.7", 12); }, kNothing,
       [](Inventory& i, Probes&) { unknown_cc(i); }},
      {"gpu.ptx_jit_only", [](Inventory& i, Probes&) { i.gpus[0] = gpu(0, "NVIDIA GeForce RTX 5090", "12.0", 32); }, kNothing,
       [](Inventory& i, Probes&) { unknown_cc(i); }},
      {"gpu.persistence_off", [](Inventory& i, Probes&) { i.gpus[0].persistence_mode = false; }, kNothing,
       [](Inventory& i, Probes&) { i.gpus[0].persistence_mode.reset(); }},
      {"gpu.ecc_disabled", [](Inventory& i, Probes&) { i.gpus[0].ecc_mode_current = false; }, kNothing,
       [](Inventory& i, Probes&) { i.gpus[0].ecc_mode_current.reset(); }},
      {"gpu.retired_pages_pending", [](Inventory& i, Probes&) { i.gpus[0].remapped_rows_pending = true; }, kNothing,
       [](Inventory& i, Probes&) {
         i.gpus[0].retired_pages_count.reset();
         i.gpus[0].retired_pages_pending.reset();
         i.gpus[0].remapped_rows_pending.reset();
         i.gpus[0].remapped_rows_failure.reset();
       }},
      {"gpu.mig_enabled", [](Inventory& i, Probes&) { i.gpus[0].mig_mode_current = true; }, kNothing,
       [](Inventory& i, Probes&) { i.gpus[0].mig_mode_current.reset(); }},
      {"gpu.memory_in_use",
       [](Inventory& i, Probes&) {
         i.gpus[0].process_count = 1;
         i.gpus[0].process_memory_bytes = 2 * core::kGiB;
       },
       kNothing,
       [](Inventory& i, Probes&) {
         i.gpus[0].process_count.reset();
         i.gpus[0].process_memory_bytes.reset();
       }},
      {"gpu.pcie_link_downgraded", [](Inventory& i, Probes&) { i.gpus[0].pcie_link_width_current = 8; }, kNothing,
       [](Inventory& i, Probes&) {
         i.gpus[0].pcie_link_width_current.reset();
         i.gpus[0].pcie_link_gen_current.reset();
       }},
      {"gpu.xid_event",
       [](Inventory& i, Probes&) {
         inventory::XidEvent e;
         e.xid = 79;
         e.pci_bus_id = i.gpus[0].pci_bus_id;
         e.count = 3;
         e.first_time = "Jun 25 21:09:01";
         e.last_time = "Jun 26 11:17:25";
         e.message = "GPU has fallen off the bus.";
         e.source = "dmesg";
         i.driver.xid_events.push_back(e);
       },
       kNothing, [](Inventory&, Probes& p) { p = std::set<std::string>{"nvml", "pci"}; }},
      {"gpu.lost",
       [](Inventory& i, Probes&) {
         i.gpus[0].lost = true;
         i.gpus[0].lost_evidence = "nvidia-smi: Unable to determine the device handle for GPU 0000:3b:00.0: GPU is lost.";
       },
       kNothing, [](Inventory& i, Probes&) { i.driver.nvml.state = "driver_not_loaded"; }},
      {"gpu.unreachable",
       [](Inventory& i, Probes&) {
         i.gpus[0].driver_problem = "Unable to determine the device handle for GPU 0000:3b:00.0: Unknown Error";
       },
       kNothing, [](Inventory& i, Probes&) { i.driver.nvml.state = "driver_not_loaded"; }},
      {"gpu.init_failed", [](Inventory& i, Probes&) { i.gpus[0].init_error = "RmInitAdapter failed! (0x30:0xffff:1086)"; },
       kNothing, [](Inventory& i, Probes& p) {
         i.driver.nvml.state = "driver_not_loaded";
         p = std::set<std::string>{"pci"};
       }},
      {"gpu.no_p2p_multi_gpu",
       [](Inventory& i, Probes&) {
         two_gpus(i);
         i.gpu_topology.push_back(inventory::GpuPair{0, 1, "host_bridge", false, false});
       },
       kNothing, [](Inventory& i, Probes&) { two_gpus(i); }},
      {"driver.not_loaded",
       [](Inventory& i, Probes&) {
         i.gpus.clear();
         i.driver.loaded = false;
         i.driver.module_nvidia = false;
         i.pci.devices[0].driver.reset();
       },
       kNothing, [](Inventory& i, Probes&) { i = testing::cpu_only(); }},
      {"driver.nouveau_bound",
       [](Inventory& i, Probes&) {
         i.pci.devices[0].driver = "nouveau";
         i.driver.module_nouveau = true;
       },
       kNothing,
       [](Inventory& i, Probes&) {
         i.driver.module_nouveau.reset();
         i.pci.devices[0].driver.reset();
       }},
      {"driver.library_unresolvable", [](Inventory& i, Probes&) { std::erase_if(i.cuda.libraries, [](const auto& l) { return l.family == "libcuda"; }); },
       kNothing, [](Inventory& i, Probes&) { i = testing::cpu_only(); }},
      {"driver.library_mismatch", [](Inventory& i, Probes&) { i.driver.nvml.state = "driver_mismatch"; }, kNothing,
       [](Inventory& i, Probes&) {
         i.driver.kernel_module_version.reset();
         i.driver.nvml.state = "not_tried";
       }},
      {"driver.no_devices",
       [](Inventory& i, Probes&) {
         i.driver.nvml.state = "no_device";
         i.driver.nvidia_smi_error = "No devices were found";
       },
       kNothing, [](Inventory& i, Probes&) { i.driver.nvml.state = "not_tried"; }},
      {"driver.too_old_for_cuda",
       [](Inventory& i, Probes&) {
         i.driver.version = "470.82.01";
         i.driver.kernel_module_version = "470.82.01";
       },
       kNothing,
       [](Inventory& i, Probes&) {
         i.driver.version.reset();
         i.driver.kernel_module_version.reset();
       }},
      {"driver.device_permissions", [](Inventory& i, Probes&) { i.driver.device_nodes[0].readable = false; }, kNothing,
       [](Inventory& i, Probes&) { i.driver.device_nodes.clear(); }},
      {"cuda.library_missing", [](Inventory& i, Probes&) { std::erase_if(i.cuda.libraries, [](const auto& l) { return l.family == "cudnn"; }); },
       kNothing, [](Inventory&, Probes& p) { p = std::set<std::string>{"pci", "nvml"}; }},
      {"cuda.cudnn_version_conflict",
       [](Inventory& i, Probes&) {
         i.cuda.libraries.push_back(testing::lib("cudnn", "libcudnn.so.8", "/opt/old/libcudnn.so.8", "LD_LIBRARY_PATH", "8.6.0"));
       },
       kNothing, [](Inventory& i, Probes&) { std::erase_if(i.cuda.libraries, [](const auto& l) { return l.family == "cudnn"; }); }},
      {"tf.python_unsupported", [](Inventory& i, Probes&) { i.python.environments[0].python_version = "3.13"; }, kNothing,
       [](Inventory& i, Probes&) { i.python.environments[0].python_version.reset(); }},
      {"tf.cpu_package_on_gpu_host",
       [](Inventory& i, Probes&) {
         i.python.environments[0].tensorflow->distribution = "tensorflow-cpu";
         i.python.environments[0].tensorflow->is_cuda_build = false;
       },
       kNothing, [](Inventory& i, Probes&) { i.python.environments[0].tensorflow.reset(); }},
      {"tf.and_cuda_missing",
       [](Inventory& i, Probes&) {
         i.python.environments[0].nvidia_wheels.clear();
         std::erase_if(i.cuda.libraries, [](const auto& l) { return l.found_via.rfind("pip_wheel:", 0) == 0; });
       },
       kNothing, [](Inventory& i, Probes&) { i.python.environments[0].tensorflow.reset(); }},
      {"tf.wsl_advice", [](Inventory& i, Probes&) { i.host.wsl = true; }, kNothing,
       [](Inventory& i, Probes&) { i.host.wsl.reset(); }},
      {"tf.not_installed", [](Inventory& i, Probes&) { i.python.environments[0].tensorflow.reset(); }, kNothing,
       [](Inventory&, Probes& p) { p = std::set<std::string>{"pci"}; }},
      {"cpu.no_avx", [](Inventory& i, Probes&) { i.cpu.flags.avx = false; }, kNothing,
       [](Inventory& i, Probes&) { i.cpu.flags.avx.reset(); }},
      {"cpu.cores_below_multi_gpu",
       [](Inventory& i, Probes&) {
         two_gpus(i);
         i.cpu.physical_cores = 8;
         i.cpu.threads = 16;
       },
       kNothing,
       [](Inventory& i, Probes&) {
         two_gpus(i);
         i.cpu.physical_cores.reset();
         i.cpu.threads.reset();
       }},
      {"cpu.cores_per_gpu_low", [](Inventory& i, Probes&) { i.cpu.physical_cores = 2; }, kNothing,
       [](Inventory& i, Probes&) { i.cpu.physical_cores.reset(); }},
      {"memory.ram_below_2x_vram", [](Inventory& i, Probes&) { i.memory.total_bytes = 64 * core::kGiB; }, kNothing,
       [](Inventory& i, Probes&) { i.memory.total_bytes.reset(); }},
      {"storage.dataset_on_hdd", [](Inventory& i, Probes&) { i.storage.data_paths[0].device_kind = "hdd"; }, kNothing,
       [](Inventory& i, Probes&) { i.storage.data_paths.clear(); }},
      {"storage.dataset_on_network_fs",
       [](Inventory& i, Probes&) {
         i.storage.data_paths[0].network = true;
         i.storage.data_paths[0].fs_type = "nfs4";
       },
       kNothing, [](Inventory& i, Probes&) { i.storage.data_paths.clear(); }},
      {"storage.no_nvme", [](Inventory& i, Probes&) { i.storage.devices[0].kind = "hdd"; }, kNothing,
       [](Inventory& i, Probes&) { i.storage.devices.clear(); }},
      {"hardware.pcie_below_x16",
       [](Inventory& i, Probes&) {
         i.gpus[0].pcie_link_width_max = 8;
         i.gpus[0].pcie_link_width_current = 8;
       },
       kNothing, [](Inventory& i, Probes&) { i.gpus[0].pcie_link_width_max.reset(); }},
      {"hardware.gpu_numa_binding",
       [](Inventory& i, Probes&) { i.cpu.numa_nodes.push_back(inventory::NumaNode{1, {4, 5, 6, 7}, 128 * core::kGiB}); },
       kNothing, [](Inventory& i, Probes&) { i.cpu.numa_nodes.clear(); }},
      {"os.not_ubuntu_lts",
       [](Inventory& i, Probes&) {
         i.host.os_id = "debian";
         i.host.os_version_id = "12";
       },
       kNothing, [](Inventory& i, Probes&) { i.host.os_id.reset(); }},
      {"os.swap_enabled", [](Inventory& i, Probes&) { i.memory.swap_total_bytes = 8 * core::kGiB; }, kNothing,
       [](Inventory& i, Probes&) {
         i.memory.swap_total_bytes.reset();
         i.memory.swappiness.reset();
       }},
      {"os.nofile_low", [](Inventory& i, Probes&) { i.limits.nofile.soft = 1024; }, kNothing,
       [](Inventory& i, Probes&) {
         i.limits.nofile.soft.reset();
         i.limits.nofile.hard.reset();
       }},
      {"os.memlock_low", [](Inventory& i, Probes&) { i.limits.memlock.soft = 8 * core::kMiB; }, kNothing,
       [](Inventory& i, Probes&) { i.limits.memlock.soft.reset(); }},
      {"os.cpu_governor", [](Inventory& i, Probes&) { i.cpu.governor = "powersave"; }, kNothing,
       [](Inventory& i, Probes&) { i.cpu.governor.reset(); }},
      {"os.thp_always", [](Inventory& i, Probes&) { i.memory.thp_enabled = "always"; }, kNothing,
       [](Inventory& i, Probes&) { i.memory.thp_enabled.reset(); }},
      {"os.configured_for_china", [](Inventory& i, Probes&) { i.region.time_zone = "Asia/Shanghai"; },
       [](Inventory& i, Probes&) {
         i.region.locale = "en_US.UTF-8";
         i.region.time_zone = "Etc/UTC";
         i.region.sources.push_back({"/etc/apt/sources.list", "apt", "archive.ubuntu.com"});
       },
       [](Inventory&, Probes& p) { p = std::set<std::string>{"pci"}; }},
      {"container.nvidia_runtime_missing",
       [](Inventory& i, Probes&) {
         i.containers.nvidia_ctk.reset();
         i.containers.nvidia_container_runtime.reset();
       },
       kNothing, [](Inventory&, Probes& p) { p = std::set<std::string>{"pci"}; }},
      {"container.runtime_not_registered", [](Inventory& i, Probes&) { i.containers.docker_runtimes.clear(); }, kNothing,
       [](Inventory& i, Probes&) { i.containers.docker_daemon_json_present.reset(); }},
      {"container.no_gpu_given",
       [](Inventory& i, Probes&) {
         i = testing::cpu_only();
         i.containers.inside_container = true;
         i.host.container = "docker";
       },
       kNothing,
       [](Inventory& i, Probes&) {
         i.containers.inside_container.reset();
         i.host.container.reset();
       }},
      {"tuning.mixed_precision", kNothing, [](Inventory& i, Probes&) { p100(i); },
       [](Inventory& i, Probes&) { i = testing::cpu_only(); }},
      {"tuning.xla_auto_jit", kNothing, [](Inventory& i, Probes&) { p100(i); },
       [](Inventory& i, Probes&) { i = testing::cpu_only(); }},
      {"tuning.gpu_env", kNothing, [](Inventory& i, Probes&) { i.python.environments[0].tensorflow->version = "2.4.0"; },
       [](Inventory& i, Probes&) { i = testing::cpu_only(); }},
  };
}

// A finding's texts are kept in English with the messages they render
// from (translated when shown, docs/i18n.md): title, message and every
// evidence fact are messages of the catalog that say exactly the English,
// and the Chinese catalog translates the title and the message.
void expect_messages(const rules::Finding& f) {
  const auto check = [&f](const std::string& english, const std::optional<core::Message>& m, const char* what) {
    if (!m) return;
    EXPECT_EQ(core::english(*m), english) << f.rule_id << " " << what;
    EXPECT_TRUE(core::known_message(*m)) << f.rule_id << " " << what << ": " << english;
  };
  ASSERT_TRUE(f.title_message.has_value()) << f.rule_id;
  ASSERT_TRUE(f.message_message.has_value()) << f.rule_id << ": " << f.message;
  check(f.title, f.title_message, "title");
  check(f.message, f.message_message, "message");
  check(f.fix, f.fix_message, "fix");
  EXPECT_NE(core::render(*f.title_message, "zh_CN"), f.title) << f.rule_id;
  EXPECT_NE(core::render(*f.message_message, "zh_CN"), f.message) << f.rule_id;
  for (const auto& e : f.evidence) {
    check(e.fact, e.fact_message, "evidence fact");
    check(e.value, e.value_message, "evidence value");
  }
}

class RuleTest : public ::testing::TestWithParam<RuleCase> {};

TEST_P(RuleTest, Fires) {
  auto inv = testing::healthy();
  Probes probes;
  GetParam().fire(inv, probes);
  auto rr = run(GetParam().id, inv, probes);
  ASSERT_NE(rr.outcome, rules::Outcome::kSkip) << rr.skip_reason;
  ASSERT_FALSE(rr.findings.empty());
  for (const auto& f : rr.findings) {
    EXPECT_EQ(f.rule_id, GetParam().id);
    EXPECT_FALSE(f.message.empty());
    EXPECT_FALSE(f.fix.empty());
    EXPECT_FALSE(f.evidence.empty()) << f.message;
    EXPECT_FALSE(f.entity.empty());
    expect_messages(f);
  }
}

TEST_P(RuleTest, StaysSilent) {
  auto inv = testing::healthy();
  Probes probes;
  GetParam().silent(inv, probes);
  auto rr = run(GetParam().id, inv, probes);
  EXPECT_EQ(rr.outcome, rules::Outcome::kPass) << rr.skip_reason;
  EXPECT_TRUE(rr.findings.empty()) << (rr.findings.empty() ? "" : rr.findings[0].message);
}

TEST_P(RuleTest, SkipsNamingTheMissingFact) {
  auto inv = testing::healthy();
  Probes probes;
  GetParam().skip(inv, probes);
  auto rr = run(GetParam().id, inv, probes);
  EXPECT_EQ(rr.outcome, rules::Outcome::kSkip);
  EXPECT_FALSE(rr.skip_reason.empty());
  EXPECT_TRUE(rr.findings.empty());
  // What was missing is a message of the catalog, rendered where it is shown.
  ASSERT_TRUE(rr.skip_message.has_value()) << rr.skip_reason;
  EXPECT_EQ(core::english(*rr.skip_message), rr.skip_reason);
  EXPECT_TRUE(core::known_message(*rr.skip_message)) << rr.skip_reason;
  EXPECT_NE(core::render(*rr.skip_message, "zh_CN"), rr.skip_reason);
}

INSTANTIATE_TEST_SUITE_P(AllRules, RuleTest, ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<RuleCase>& param_info) {
                           std::string name = param_info.param.id;
                           for (char& c : name) {
                             if (c == '.') c = '_';
                           }
                           return name;
                         });

TEST(RuleTable, EveryRuleHasItsThreeTests) {
  std::set<std::string> tested;
  for (const auto& c : cases()) tested.insert(c.id);
  for (const auto& r : rules::all_rules()) EXPECT_TRUE(tested.count(std::string(r.id))) << r.id << " has no test case";
  EXPECT_EQ(tested.size(), rules::all_rules().size());
}

TEST(RuleTable, IdsAreUniqueAndShaped) {
  std::set<std::string> ids;
  for (const auto& r : rules::all_rules()) {
    EXPECT_TRUE(ids.insert(std::string(r.id)).second) << r.id;
    EXPECT_EQ(r.id.substr(0, r.id.find('.')), r.area) << r.id;
    EXPECT_FALSE(r.title.empty());
    EXPECT_FALSE(r.why.empty());
    EXPECT_FALSE(r.fix.empty());
  }
}

TEST(RuleTable, ContractIdsExist) {
  for (const char* id : {"gpu.no_gpu", "driver.not_loaded", "driver.nouveau_bound", "driver.library_mismatch",
                         "driver.too_old_for_cuda", "gpu.compute_capability_unsupported", "gpu.ptx_jit_only",
                         "gpu.pcie_link_downgraded", "gpu.no_p2p_multi_gpu", "gpu.xid_event", "gpu.lost",
                         "gpu.init_failed", "cuda.library_missing",
                         "cuda.cudnn_version_conflict", "tf.python_unsupported", "tf.cpu_package_on_gpu_host",
                         "cpu.no_avx", "memory.ram_below_2x_vram", "os.swap_enabled", "os.nofile_low",
                         "storage.dataset_on_hdd", "container.nvidia_runtime_missing", "tuning.mixed_precision"}) {
    EXPECT_NE(rules::find_rule(id), nullptr) << id;
  }
}

TEST(Target, InstalledElseFlagElseNewest) {
  const auto& k = knowledge::builtin();
  auto inv = testing::healthy();
  EXPECT_EQ(rules::resolve_target(inv, k, std::string("2.15")).tf.text(), "2.17.0");
  inv.python.environments[0].tensorflow.reset();
  auto t = rules::resolve_target(inv, k, std::string("2.15"));
  EXPECT_EQ(t.tf.text(), "2.15");
  EXPECT_EQ(t.origin, "--tf");
  ASSERT_NE(t.build, nullptr);
  EXPECT_EQ(t.build->cuda, "12.2");
  auto n = rules::resolve_target(inv, k, std::nullopt);
  EXPECT_EQ(n.origin, "newest known");
  EXPECT_EQ(n.tf.text(), k.newest_tf()->tf);
}

TEST(Evaluate, HealthyBoxHasOnlyAdvice) {
  const auto& k = knowledge::builtin();
  auto inv = testing::healthy();
  rules::Context ctx{inv, k, rules::resolve_target(inv, k, std::nullopt), std::nullopt};
  auto ev = rules::evaluate(ctx);
  EXPECT_EQ(ev.summary.errors, 0);
  EXPECT_EQ(ev.summary.warnings, 0) << (ev.findings.empty() ? "" : ev.findings[0].rule_id);
  EXPECT_GT(ev.summary.infos, 0);
}

TEST(Evaluate, WorstFirstAndOnlyArea) {
  const auto& k = knowledge::builtin();
  auto inv = testing::healthy();
  inv.cpu.flags.avx = false;          // error
  inv.limits.nofile.soft = 1024;      // warning
  rules::Context ctx{inv, k, rules::resolve_target(inv, k, std::nullopt), std::nullopt};
  auto ev = rules::evaluate(ctx);
  ASSERT_GE(ev.findings.size(), 3u);
  EXPECT_EQ(ev.findings.front().rule_id, "cpu.no_avx");
  EXPECT_EQ(ev.findings[1].severity, rules::Severity::kWarning);
  auto os_only = rules::evaluate(ctx, "os");
  for (const auto& f : os_only.findings) EXPECT_EQ(f.area, "os");
  EXPECT_EQ(os_only.summary.errors, 0);
}

TEST(CudaStack, NamesTheFileTensorFlowWouldLoad) {
  const auto& k = knowledge::builtin();
  auto inv = testing::healthy();
  // A system cuDNN 8.9 on LD_LIBRARY_PATH wins over the wheel (RUNPATH comes after it).
  inv.cuda.libraries.push_back(testing::lib("cudnn", "libcudnn.so.8", "/opt/cudnn/libcudnn.so.8", "LD_LIBRARY_PATH", "8.9.2"));
  std::erase_if(inv.cuda.libraries, [](const auto& l) { return l.family == "cublas"; });
  rules::Context ctx{inv, k, rules::resolve_target(inv, k, std::nullopt), std::nullopt};
  auto rr = rules::run_rule(*rules::find_rule("cuda.library_missing"), ctx);
  ASSERT_EQ(rr.findings.size(), 1u);
  bool named = false;
  for (const auto& e : rr.findings[0].evidence) {
    if (e.fact == "libcudnn.so.8") named = e.value.find("/opt/cudnn/libcudnn.so.8") != std::string::npos;
  }
  EXPECT_TRUE(named);
  EXPECT_NE(rr.findings[0].message.find("libcublas.so.12"), std::string::npos);
  EXPECT_NE(rr.findings[0].fix.find("tensorflow[and-cuda]==2.17.0"), std::string::npos);
}

TEST(CudaStack, Cuda13AndCudnn9DoNotServeTf221) {
  // This machine's case: CUDA 13 and cuDNN 9 on the system, no TF, no GPU.
  const auto& k = knowledge::builtin();
  auto inv = testing::cpu_only();
  inv.python.environments[0].tensorflow.reset();
  inv.cuda.libraries.clear();
  inv.cuda.libraries.push_back(testing::lib("cudart", "libcudart.so.13", "/usr/local/cuda-13.0/lib64/libcudart.so.13", "ld.so.cache", "13.0.96"));
  inv.cuda.libraries.push_back(testing::lib("cudnn", "libcudnn.so.9", "/usr/lib/x86_64-linux-gnu/libcudnn.so.9", "ld.so.cache", "9.14.0"));
  rules::Context ctx{inv, k, rules::resolve_target(inv, k, std::nullopt), std::nullopt};
  auto rr = rules::run_rule(*rules::find_rule("cuda.library_missing"), ctx);
  ASSERT_EQ(rr.outcome, rules::Outcome::kFail);
  EXPECT_NE(rr.findings[0].message.find("libcudart.so.12"), std::string::npos);
  bool wrong_major = false;
  for (const auto& e : rr.findings[0].evidence) {
    if (e.fact == "libcudart.so.12") wrong_major = e.value.find("libcudart.so.13") != std::string::npos;
  }
  EXPECT_TRUE(wrong_major);
}

}  // namespace
}  // namespace tfrig

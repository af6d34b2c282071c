// The GPU-stack probes (nvidia_driver, cuda_libs, python, containers) on the
// fixture roots in tests/data/roots, each with an explicit environment.
#include <gtest/gtest.h>

#include "gpu_test_support.h"
#include "probe/probe.h"
#include "probe/probes.h"

namespace tfrig::probe {
namespace {

Context stack_context(const std::string& root, core::SysRoot::EnvMap env) {
  return Context{core::SysRoot(test::data_path("roots/" + root), std::move(env)), {}, std::chrono::milliseconds(5000), {}};
}

core::SysRoot::EnvMap cuda12_env() {
  return {{"HOME", "/home/ml"},
          {"VIRTUAL_ENV", "/home/ml/venvs/tf216"},
          {"LD_LIBRARY_PATH", "/opt/cudnn9/lib:relative/ignored:"},
          {"PATH", "/usr/local/bin:/usr/bin:/bin"}};
}

std::vector<const inventory::CudaLibrary*> libs(const inventory::Inventory& inv, const std::string& family) {
  std::vector<const inventory::CudaLibrary*> out;
  for (const auto& l : inv.cuda.libraries) {
    if (l.family == family) out.push_back(&l);
  }
  return out;
}

const inventory::PythonEnvironment* env_at(const inventory::Inventory& inv, const std::string& prefix) {
  for (const auto& e : inv.python.environments) {
    if (e.prefix == prefix) return &e;
  }
  return nullptr;
}

TEST(CudaLibsProbe, LoaderOrderVersionsAndSources) {
  inventory::Inventory inv;
  auto status = make_cuda_libs_probe()->run(stack_context("stack-cuda12", cuda12_env()), inv);
  EXPECT_EQ(status.state, State::kOk) << status.detail;
  EXPECT_TRUE(status.problems.empty()) << status.problems.front();

  // libcuda from the driver, through the cache; its version is the driver's.
  auto cuda = libs(inv, "libcuda");
  ASSERT_EQ(cuda.size(), 1u);
  EXPECT_EQ(cuda[0]->soname, "libcuda.so.1");
  EXPECT_EQ(cuda[0]->path, "/usr/lib/x86_64-linux-gnu/libcuda.so.1");
  EXPECT_EQ(cuda[0]->version, "535.113.01");
  EXPECT_EQ(cuda[0]->found_via, "ld.so.cache");
  EXPECT_EQ(cuda[0]->resolved, true);

  // cudart: the toolkit on the loader path wins; 11.8 and the pip wheel are found, not resolved.
  auto cudart = libs(inv, "cudart");
  ASSERT_EQ(cudart.size(), 3u);
  EXPECT_EQ(cudart[0]->path, "/usr/local/cuda-12.2/targets/x86_64-linux/lib/libcudart.so.12");
  EXPECT_EQ(cudart[0]->version, "12.2.140");
  EXPECT_EQ(cudart[0]->version_source, "file_name");
  EXPECT_EQ(cudart[0]->resolved, true);
  EXPECT_EQ(cudart[1]->found_via, "cuda_toolkit");
  EXPECT_EQ(cudart[1]->version, "11.8.89");
  EXPECT_EQ(cudart[1]->resolved, false);
  EXPECT_EQ(cudart[2]->found_via, "pip_wheel:/usr/local");
  EXPECT_EQ(cudart[2]->version, "12.2.140");
  EXPECT_EQ(cudart[2]->version_source, "package:nvidia-cuda-runtime-cu12-12.2.140");

  // cuDNN: 9 only through LD_LIBRARY_PATH (version from its header), 8 from the cache and two wheels.
  auto cudnn = libs(inv, "cudnn");
  ASSERT_EQ(cudnn.size(), 4u);
  EXPECT_EQ(cudnn[0]->found_via, "LD_LIBRARY_PATH");
  EXPECT_EQ(cudnn[0]->soname, "libcudnn.so.9");
  EXPECT_EQ(cudnn[0]->version, "9.1.0");
  EXPECT_EQ(cudnn[0]->version_source, "cudnn_version.h");
  EXPECT_EQ(cudnn[0]->resolved, true);
  EXPECT_EQ(cudnn[1]->found_via, "ld.so.cache");
  EXPECT_EQ(cudnn[1]->version, "8.9.4");
  EXPECT_EQ(cudnn[1]->resolved, true);  // a different soname: also what dlopen("libcudnn.so.8") gets
  bool venv_wheel = false;
  for (const auto* l : cudnn) venv_wheel = venv_wheel || (l->found_via == "pip_wheel:/home/ml/venvs/tf216" && l->version == "8.9.7.29");
  EXPECT_TRUE(venv_wheel);
  EXPECT_EQ(libs(inv, "cudnn_ops_infer").size(), 2u);

  // NCCL sits in an ld.so.conf directory that the stale cache lacks.
  auto nccl = libs(inv, "nccl");
  ASSERT_FALSE(nccl.empty());
  EXPECT_EQ(nccl[0]->found_via, "ld.so.conf");
  EXPECT_EQ(nccl[0]->version, "2.18.3");
  EXPECT_EQ(nccl[0]->resolved, false);

  EXPECT_EQ(libs(inv, "cupti").size(), 1u);
  EXPECT_EQ(libs(inv, "nvJitLink").size(), 1u);
  EXPECT_EQ(libs(inv, "nvml").size(), 1u);

  // Toolkits: version.json, version.txt, and the /usr/local/cuda link.
  ASSERT_EQ(inv.cuda.toolkits.size(), 4u);
  EXPECT_EQ(inv.cuda.toolkits[0].path, "/usr/local/cuda");
  EXPECT_EQ(inv.cuda.toolkits[0].link_target, "cuda-12.2");
  EXPECT_EQ(inv.cuda.toolkits[0].version, "12.2.2");
  EXPECT_EQ(inv.cuda.toolkits[1].version, "10.2.89");
  EXPECT_EQ(inv.cuda.toolkits[1].version_source, "version.txt");
  EXPECT_EQ(inv.cuda.toolkits[2].version, "11.8.20220929");
}

TEST(CudaLibsProbe, NoDriverMachineLikeThisOne) {
  inventory::Inventory inv;
  auto status = make_cuda_libs_probe()->run(stack_context("stack-nodriver", {}), inv);
  EXPECT_EQ(status.state, State::kOk);
  // The stub libcuda.so under lib/stubs is for linking, never for running: not listed.
  EXPECT_TRUE(libs(inv, "libcuda").empty());
  auto cudnn = libs(inv, "cudnn");
  ASSERT_EQ(cudnn.size(), 1u);
  EXPECT_EQ(cudnn[0]->version, "9.19.0.56");
  EXPECT_EQ(cudnn[0]->version_source, "package:nvidia-cudnn-cu13-9.19.0.56");
  ASSERT_EQ(libs(inv, "cudart").size(), 1u);
  EXPECT_EQ(libs(inv, "cudart")[0]->version, "13.0.96");
  ASSERT_EQ(inv.cuda.toolkits.size(), 2u);
  EXPECT_EQ(inv.cuda.toolkits[1].version, "13.0.96");
  EXPECT_EQ(inv.cuda.toolkits[1].version_source, "dist-info");
}

TEST(PythonProbe, EnvironmentsTensorFlowKerasAndWheels) {
  inventory::Inventory inv;
  auto ctx = stack_context("stack-cuda12", cuda12_env());
  auto status = make_python_probe()->run(ctx, inv);
  EXPECT_EQ(status.state, State::kOk);
  EXPECT_TRUE(status.problems.empty()) << status.problems.front();

  const auto* venv = env_at(inv, "/home/ml/venvs/tf216");
  ASSERT_NE(venv, nullptr);
  EXPECT_EQ(venv->kind, "venv");
  EXPECT_EQ(venv->python_version, "3.11");
  ASSERT_TRUE(venv->tensorflow);
  EXPECT_EQ(venv->tensorflow->distribution, "tensorflow");
  EXPECT_EQ(venv->tensorflow->version, "2.16.1");
  EXPECT_EQ(venv->tensorflow->built_cuda, "12.3");
  EXPECT_EQ(venv->tensorflow->built_cudnn, "8");
  EXPECT_EQ(venv->keras_version, "3.1.1");

  const auto* sys = env_at(inv, "/usr/local");
  ASSERT_NE(sys, nullptr);
  EXPECT_EQ(sys->kind, "system");
  EXPECT_EQ(sys->python_version, "3.10");
  EXPECT_EQ(sys->site_packages, "/usr/local/lib/python3.10/dist-packages");
  ASSERT_TRUE(sys->tensorflow);
  EXPECT_EQ(sys->tensorflow->version, "2.15.0");
  EXPECT_EQ(sys->tensorflow->is_cuda_build, true);
  EXPECT_EQ(sys->tensorflow->requires_python, ">=3.9");
  EXPECT_EQ(sys->tensorflow->compute_capabilities.back(), "compute_80");
  EXPECT_EQ(sys->keras_version, "2.15.0");
  ASSERT_EQ(sys->nvidia_wheels.size(), 3u);
  EXPECT_EQ(sys->nvidia_wheels[0].name, "nvidia-cublas-cu12");
  EXPECT_EQ(sys->nvidia_wheels[0].version, "12.2.5.6");

  const auto* cpu = env_at(inv, "/opt/conda/envs/cpu");
  ASSERT_NE(cpu, nullptr);
  EXPECT_EQ(cpu->kind, "conda");
  ASSERT_TRUE(cpu->tensorflow);
  EXPECT_EQ(cpu->tensorflow->distribution, "tensorflow-cpu");
  EXPECT_EQ(cpu->tensorflow->is_cuda_build, false);
  EXPECT_FALSE(cpu->tensorflow->built_cuda);

  const auto* base = env_at(inv, "/opt/conda");
  ASSERT_NE(base, nullptr);
  EXPECT_FALSE(base->tensorflow);
}

TEST(PythonProbe, GivenPrefixAndNoPython) {
  inventory::Inventory inv;
  auto ctx = stack_context("stack-cuda12", {});
  ctx.python_prefixes = {"/home/ml/venvs/tf216"};
  make_python_probe()->run(ctx, inv);
  ASSERT_FALSE(inv.python.environments.empty());
  EXPECT_EQ(inv.python.environments[0].kind, "given");
  inventory::Inventory none;
  // A tree without usr: nothing says Python is missing, so it was not examined.
  auto status = make_python_probe()->run(stack_context("../nvidia-smi-xml", {}), none);
  EXPECT_EQ(status.state, State::kSkipped);
}

TEST(ContainerProbe, DockerWithTheNvidiaRuntime) {
  inventory::Inventory inv;
  auto status = make_container_probe()->run(stack_context("stack-cuda12", cuda12_env()), inv);
  EXPECT_EQ(status.state, State::kOk);
  const auto& c = inv.containers;
  EXPECT_EQ(c.docker_binary, "/usr/bin/docker");
  EXPECT_FALSE(c.podman_binary);
  EXPECT_EQ(c.nvidia_ctk, "/usr/bin/nvidia-ctk");
  EXPECT_EQ(c.nvidia_container_runtime, "/usr/bin/nvidia-container-runtime");
  EXPECT_EQ(c.nvidia_container_cli, "/usr/bin/nvidia-container-cli");
  EXPECT_EQ(c.libnvidia_container, "/usr/lib/x86_64-linux-gnu/libnvidia-container.so.1");
  EXPECT_EQ(c.docker_daemon_json_present, true);
  EXPECT_EQ(c.docker_runtimes, std::vector<std::string>{"nvidia"});
  EXPECT_EQ(c.docker_default_runtime, "nvidia");
  EXPECT_EQ(c.cdi_specs, std::vector<std::string>{"/etc/cdi/nvidia.yaml"});
  EXPECT_EQ(c.inside_container, false);

  inventory::Inventory bare;
  make_container_probe()->run(stack_context("stack-nodriver", {}), bare);
  EXPECT_FALSE(bare.containers.docker_binary);
  EXPECT_EQ(bare.containers.docker_daemon_json_present, false);
}

TEST(NvidiaDriverProbe, KernelSideOfAWorkingServer) {
  inventory::Inventory inv;
  auto status = make_nvidia_driver_probe()->run(stack_context("stack-cuda12", {}), inv);
  EXPECT_EQ(status.state, State::kOk);
  const auto& d = inv.driver;
  EXPECT_EQ(d.loaded, true);
  EXPECT_EQ(d.kernel_module_version, "535.113.01");
  EXPECT_EQ(d.kernel_module_flavor, "proprietary");
  EXPECT_EQ(d.module_nvidia, true);
  EXPECT_EQ(d.module_nvidia_uvm, true);
  EXPECT_EQ(d.module_nvidia_drm, true);
  EXPECT_EQ(d.module_nouveau, false);
  ASSERT_EQ(d.device_nodes.size(), 6u);  // /dev/nvidia-caps is a directory: not a node
  for (const auto& n : d.device_nodes) {
    EXPECT_EQ(n.readable, true) << n.path;
    EXPECT_EQ(n.writable, true) << n.path;
  }
  ASSERT_EQ(inv.gpus.size(), 2u);
  EXPECT_EQ(inv.gpus[0].name, "NVIDIA RTX A6000");
  EXPECT_EQ(inv.gpus[0].pci_device_id, 0x2230u);
  EXPECT_EQ(inv.gpus[0].pcie_link_gen_max, 4);
  EXPECT_EQ(inv.gpus[1].pcie_link_gen_current, 1);  // 2.5 GT/s
  EXPECT_EQ(inv.gpus[1].pcie_link_width_current, 8);
  EXPECT_EQ(inv.gpus[0].numa_node, 0);
  EXPECT_FALSE(inv.gpus[0].driver_problem);
}

TEST(NvidiaDriverProbe, GpusWithoutAWorkingDriverKeepTheReason) {
  inventory::Inventory inv;
  auto status = make_nvidia_driver_probe()->run(stack_context("stack-nodriver", {}), inv);
  EXPECT_EQ(status.state, State::kOk);
  EXPECT_EQ(inv.driver.loaded, false);
  EXPECT_EQ(inv.driver.module_nouveau, true);
  ASSERT_EQ(inv.gpus.size(), 2u);
  EXPECT_EQ(inv.gpus[0].source, "pci");
  EXPECT_FALSE(inv.gpus[0].numa_node);  // sysfs says -1
  ASSERT_TRUE(inv.gpus[0].driver_problem);
  EXPECT_NE(inv.gpus[0].driver_problem->find("no driver bound"), std::string::npos);
  ASSERT_TRUE(inv.gpus[1].driver_problem);
  EXPECT_NE(inv.gpus[1].driver_problem->find("nouveau"), std::string::npos);
}

TEST(NvidiaDriverProbe, NothingThere) {
  inventory::Inventory inv;
  auto status = make_nvidia_driver_probe()->run(stack_context("../ld-so-cache", {}), inv);
  EXPECT_EQ(status.state, State::kAbsent);
  EXPECT_TRUE(inv.gpus.empty());
  EXPECT_FALSE(inv.driver.loaded);  // no /proc at all: unknown, not "not loaded"
}

TEST(StackProbes, RunTogetherThroughTheRunner) {
  auto ctx = stack_context("stack-nodriver", {});
  auto run = run_probes(ctx, {make_nvidia_driver_probe(), make_nvml_probe(), make_cuda_libs_probe(),
                              make_python_probe(), make_container_probe()});
  ASSERT_EQ(run.statuses.size(), 5u);
  EXPECT_EQ(run.statuses[1].state, State::kSkipped);  // NVML never reads a captured root
  EXPECT_EQ(run.inventory.driver.nvml.state, "not_tried");
  EXPECT_EQ(run.inventory.gpus.size(), 2u);
  EXPECT_FALSE(run.inventory.cuda.libraries.empty());
}

}  // namespace
}  // namespace tfrig::probe

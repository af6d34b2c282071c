// Inventories built by hand for the rule tests: a healthy
// single-GPU training box that every rule stays silent on (except advice),
// and small helpers to break one thing at a time.
#pragma once

#include <string>

#include "core/units.h"
#include "inventory/inventory.h"

namespace tfrig::testing {

inline inventory::CudaLibrary lib(std::string family, std::string soname, std::string path, std::string found_via,
                                  std::string version) {
  inventory::CudaLibrary l;
  l.family = std::move(family);
  l.soname = std::move(soname);
  l.path = std::move(path);
  l.found_via = std::move(found_via);
  l.version = std::move(version);
  return l;
}

inline inventory::Gpu gpu(int index, std::string name, std::string cc, uint64_t mem_gib) {
  inventory::Gpu g;
  g.index = index;
  g.source = "nvml";
  g.name = std::move(name);
  g.compute_capability = std::move(cc);
  g.memory_total_bytes = mem_gib * core::kGiB;
  g.persistence_mode = true;
  g.ecc_mode_current = true;
  g.retired_pages_count = 0;
  g.retired_pages_pending = false;
  g.remapped_rows_pending = false;
  g.remapped_rows_failure = false;
  g.mig_mode_current = false;
  g.process_count = 0;
  g.process_memory_bytes = 0;
  g.pcie_link_gen_current = 4;
  g.pcie_link_gen_max = 4;
  g.pcie_link_width_current = 16;
  g.pcie_link_width_max = 16;
  g.numa_node = 0;
  g.pci_bus_id = "0000:3b:00." + std::to_string(index);
  return g;
}

inline inventory::PciDevice pci_gpu(std::string address, std::string driver) {
  inventory::PciDevice d;
  d.address = std::move(address);
  d.vendor_id = 0x10de;
  d.device_id = 0x20b2;
  d.class_code = 0x030200;
  d.driver = std::move(driver);
  d.is_gpu = true;
  d.numa_node = 0;
  d.link_width_current = 16;
  d.link_width_max = 16;
  return d;
}

// The TF 2.17 libraries from the nvidia wheels of /venv (tf_dso_names.yaml).
inline void add_tf217_wheels(inventory::Inventory& inv, const std::string& prefix = "/venv") {
  const std::string via = "pip_wheel:" + prefix;
  const std::string sp = prefix + "/lib/python3.11/site-packages/nvidia/";
  inv.cuda.libraries.push_back(lib("cudart", "libcudart.so.12", sp + "cuda_runtime/lib/libcudart.so.12", via, "12.3.101"));
  inv.cuda.libraries.push_back(lib("cublas", "libcublas.so.12", sp + "cublas/lib/libcublas.so.12", via, "12.3.4.1"));
  inv.cuda.libraries.push_back(lib("cublasLt", "libcublasLt.so.12", sp + "cublas/lib/libcublasLt.so.12", via, "12.3.4.1"));
  inv.cuda.libraries.push_back(lib("cufft", "libcufft.so.11", sp + "cufft/lib/libcufft.so.11", via, "11.0.12.1"));
  inv.cuda.libraries.push_back(lib("cusolver", "libcusolver.so.11", sp + "cusolver/lib/libcusolver.so.11", via, "11.5.4.101"));
  inv.cuda.libraries.push_back(lib("cusparse", "libcusparse.so.12", sp + "cusparse/lib/libcusparse.so.12", via, "12.2.0.103"));
  inv.cuda.libraries.push_back(lib("cudnn", "libcudnn.so.8", sp + "cudnn/lib/libcudnn.so.8", via, "8.9.7"));
}

// One A100 80GB, driver 550, TF 2.17 with [and-cuda] in /venv on Python 3.11,
// Ubuntu 22.04, 32 cores, 256 GiB, NVMe, Docker with the toolkit.
inline inventory::Inventory healthy() {
  inventory::Inventory inv;
  inv.host.os_id = "ubuntu";
  inv.host.os_version_id = "22.04";
  inv.host.os_pretty_name = "Ubuntu 22.04.4 LTS";
  inv.host.architecture = "x86_64";
  inv.host.container = "none";
  inv.host.wsl = false;
  inv.cpu.physical_cores = 32;
  inv.cpu.threads = 64;
  inv.cpu.sockets = 1;
  inv.cpu.flags.avx = true;
  inv.cpu.flags.avx2 = true;
  inv.cpu.governor = "performance";
  inv.cpu.numa_nodes.push_back(inventory::NumaNode{0, {0, 1, 2, 3}, 256 * core::kGiB});
  inv.memory.total_bytes = 256 * core::kGiB;
  inv.memory.swap_total_bytes = 0;
  inv.memory.swap_used_bytes = 0;
  inv.memory.swappiness = 10;
  inv.memory.thp_enabled = "madvise";
  inventory::BlockDevice nvme;
  nvme.name = "nvme0n1";
  nvme.kind = "nvme";
  nvme.rotational = false;
  inv.storage.devices.push_back(nvme);
  inventory::DataPath dp;
  dp.path = "/data";
  dp.mount_point = "/data";
  dp.fs_type = "ext4";
  dp.block_device = "nvme0n1";
  dp.device_kind = "nvme";
  inv.storage.data_paths.push_back(dp);
  inv.pci.devices.push_back(pci_gpu("0000:3b:00.0", "nvidia"));
  inv.limits.nofile.soft = 1048576;
  inv.limits.nofile.hard = 1048576;
  inv.limits.memlock.soft = inventory::Limit::kUnlimited;
  inv.limits.memlock.hard = inventory::Limit::kUnlimited;
  inv.gpus.push_back(gpu(0, "NVIDIA A100-SXM4-80GB", "8.0", 80));
  inv.driver.version = "550.54.15";
  inv.driver.kernel_module_version = "550.54.15";
  inv.driver.cuda_version = "12.4";
  inv.driver.loaded = true;
  inv.driver.module_nvidia = true;
  inv.driver.module_nouveau = false;
  inv.driver.nvml.state = "ok";
  inv.driver.device_nodes.push_back(inventory::DeviceNode{"/dev/nvidia0", true, true});
  inv.driver.device_nodes.push_back(inventory::DeviceNode{"/dev/nvidiactl", true, true});
  inv.cuda.libraries.push_back(lib("libcuda", "libcuda.so.1", "/usr/lib/x86_64-linux-gnu/libcuda.so.1", "ld.so.cache", "550.54.15"));
  inv.cuda.libraries.push_back(lib("nvml", "libnvidia-ml.so.1", "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1", "ld.so.cache", "550.54.15"));
  add_tf217_wheels(inv);
  inventory::PythonEnvironment env;
  env.prefix = "/venv";
  env.kind = "venv";
  env.python_version = "3.11";
  env.site_packages = "/venv/lib/python3.11/site-packages";
  inventory::TensorFlowInstall tf;
  tf.distribution = "tensorflow";
  tf.version = "2.17.0";
  tf.is_cuda_build = true;
  env.tensorflow = tf;
  env.nvidia_wheels.push_back(inventory::PackageVersion{"nvidia-cudnn-cu12", "8.9.7.29"});
  inv.python.environments.push_back(env);
  inv.containers.docker_binary = "/usr/bin/docker";
  inv.containers.nvidia_ctk = "/usr/bin/nvidia-ctk";
  inv.containers.nvidia_container_runtime = "/usr/bin/nvidia-container-runtime";
  inv.containers.docker_daemon_json_present = true;
  inv.containers.docker_runtimes = {"nvidia"};
  inv.containers.inside_container = false;
  return inv;
}

// No GPU anywhere: a CPU server (pci has only a NIC).
inline inventory::Inventory cpu_only() {
  auto inv = healthy();
  inv.gpus.clear();
  inv.pci.devices.clear();
  inventory::PciDevice nic;
  nic.address = "0000:01:00.0";
  nic.vendor_id = 0x8086;
  nic.class_code = 0x020000;
  inv.pci.devices.push_back(nic);
  inv.driver = inventory::DriverInfo{};
  return inv;
}

}  // namespace tfrig::testing

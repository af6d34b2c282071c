// Helpers the rule files share: the GPUs seen, their compute capability,
// the library the loader would pick, formatting of evidence.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/version.h"
#include "rules/rule.h"

namespace tfrig::rules::util {

// GPUs seen by NVML (or the other GPU sources).
const std::vector<inventory::Gpu>& gpus(const Context& ctx);
// NVIDIA display/3D controllers on the PCI bus.
std::vector<const inventory::PciDevice*> pci_gpus(const Context& ctx);
// GPUs on the machine by either source (NVML sees none when the driver is broken).
int gpu_count(const Context& ctx);
// GPUs nvidia-smi, NVML, /proc or the kernel said cannot be used: lost,
// not initialised, or with a driver problem (nvidia-smi or NVML could not open it).
bool gpu_unusable(const inventory::Gpu& g);
// The GPUs a program could use: none when nvidia-smi or NVML failed for the
// whole driver, else those not unusable (the header's count for a cut capture).
int usable_gpu_count(const Context& ctx);
// nvidia-smi or NVML failed for the whole driver (not loaded, mismatch, no
// library, no device): nvml.state, live or as the importer read nvidia-smi.
bool driver_failed(const Context& ctx);
// Did anything look for GPUs at all?
bool gpu_presence_known(const Context& ctx);
std::string gpu_entity(const inventory::Gpu& g);
// Why there is no NVML GPU to check: none at all, or NVML could not read them.
core::Message no_nvml_gpus_reason(const Context& ctx);
std::string gpu_label(const inventory::Gpu& g);
// Where a GPU's values were read, for evidence rows: "NVML", "nvidia-smi -q -x
// (XML)", "nvidia-smi -q (text)", "lspci", "/proc/driver/nvidia", "sysfs".
std::string reported_by(const inventory::Gpu& g);
// The file nvidia-smi's error output was read from (an import), if known.
std::optional<std::string> nvidia_smi_source(const inventory::DriverInfo& d);

// The GPU's compute capability: NVML's, else the catalog's for its name or PCI id.
struct GpuCc {
  core::Version cc;
  std::string source;  // "nvml" or the knowledge row
  bool uncertain = false;
};
std::optional<GpuCc> gpu_cc(const Context& ctx, const inventory::Gpu& g);
std::optional<knowledge::GpuMatch> gpu_catalog(const Context& ctx, const inventory::Gpu& g);
// Total GPU memory, NVML's or the catalog's.
std::optional<uint64_t> gpu_memory_bytes(const Context& ctx, const inventory::Gpu& g);

// The installed TensorFlow and its environment, if any.
const inventory::PythonEnvironment* tf_env(const inventory::Inventory& inv);

// The file dlopen(soname) would load for TensorFlow: LD_LIBRARY_PATH, then
// the nvidia wheels of TF's own environment (its RUNPATH, TF >= 2.14), then
// /etc/ld.so.cache, then the default directories (ld.so(8); tf_dso_names.yaml).
const inventory::CudaLibrary* would_load(const Context& ctx, const std::string& soname);
bool loader_searched(const Context& ctx, const inventory::CudaLibrary& lib);

// The newest TF release whose wheels run natively (SASS) on this CC, else
// with PTX JIT when allow_jit.
std::optional<std::string> newest_tf_for_cc(const knowledge::Knowledge& k, const core::Version& cc, bool allow_jit);

core::Message yes_no(bool b);
std::string join(const std::vector<std::string>& parts, const std::string& sep);
// A value read, else a word in its place ("unknown", "none"): as evidence, or as an argument of a message.
Text or_text(const std::optional<std::string>& value, core::Message instead);
core::MessageArg or_arg(const std::optional<std::string>& value, core::Message instead);
// Items shown as they are, joined by the reader's ", " when rendered.
core::MessageArg listed(const std::vector<std::string>& items);
std::string bytes(uint64_t b);
// A value of evidence, with "(uncertain: <why>)" after it when it rests on an
// uncertain fact (a message then; else the value as it is).
Text uncertain_value(core::MessageArg value, bool uncertain, std::optional<core::Message> what = std::nullopt);
// "knowledge FILE [ID]": where a fact of the knowledge base comes from (English in JSON, a message for the report).
Text knowledge_source(const std::string& file, const std::string& id);

}  // namespace tfrig::rules::util

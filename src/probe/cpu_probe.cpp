// cpu: model, sockets, cores, threads, NUMA nodes, the flags TensorFlow's
// wheels care about, frequency governor and clocks.
#include <algorithm>
#include <set>

#include "core/text.h"
#include "probe/parse/proc_text.h"
#include "probe/probe.h"
#include "probe/probes.h"

namespace tfrig::probe {

namespace {

// "Intel(R) Xeon(R) Gold 6130 CPU @ 2.10GHz" -> 2100 MHz.
std::optional<double> mhz_from_model_name(const std::string& model) {
  size_t at = model.rfind('@');
  if (at == std::string::npos) return std::nullopt;
  std::string_view rest = core::trim(std::string_view(model).substr(at + 1));
  if (!core::ends_with(rest, "GHz")) return std::nullopt;
  auto ghz = core::parse_double(core::trim(rest.substr(0, rest.size() - 3)));
  if (!ghz) return std::nullopt;
  return *ghz * 1000.0;
}

// /proc/cpuinfo: model, flags, ids; false when it could not be read.
bool read_cpuinfo(const core::SysRoot& root, inventory::CpuInfo& cpu, ProblemLog& problems) {
  auto text = root.read_text("proc/cpuinfo");
  if (!text) {
    problems.add(text.error());
    return false;
  }
  auto info = parse::parse_cpuinfo(*text);
  if (!info) {
    problems.add(root.full_path("proc/cpuinfo"), info.error());
    return false;
  }
  if (info->truncated) {
    problems.add(
        core::Message(N_("{}: ends mid-entry (truncated?); counts may be low"), root.full_path("proc/cpuinfo")));
  }
  parse::apply_cpuinfo(*info, cpu);
  if (cpu.model_name) cpu.base_mhz = mhz_from_model_name(*cpu.model_name);
  return true;
}

// sysfs topology is exact where cpuinfo lacks physical/core ids (arm64, some VMs).
void read_cpu_topology(const core::SysRoot& root, inventory::CpuInfo& cpu, ProblemLog& problems) {
  auto online = root.read_line("sys/devices/system/cpu/online");
  if (!online) return;
  auto cpus = parse::parse_cpulist(*online);
  if (!cpus) {
    problems.add(root.full_path("sys/devices/system/cpu/online"), cpus.error());
    return;
  }
  if (!cpu.threads || cpu.threads == 0) cpu.threads = static_cast<int>(cpus->size());
  std::set<std::string> packages, cores;
  for (int c : *cpus) {
    const std::string base = "sys/devices/system/cpu/cpu" + std::to_string(c) + "/topology/";
    auto pkg = root.read_line(base + "physical_package_id");
    auto core_id = root.read_line(base + "core_id");
    if (!pkg || !core_id) return;  // incomplete: cpuinfo's counts stand
    packages.insert(*pkg);
    cores.insert(*pkg + "/" + *core_id);
  }
  if (!cpus->empty()) {
    // Threads, cores and sockets all from the same (online) CPUs.
    cpu.sockets = static_cast<int>(packages.size());
    cpu.physical_cores = static_cast<int>(cores.size());
    cpu.threads = static_cast<int>(cpus->size());
  }
}

// One NUMA node: its CPUs (cpulist, or the hex mask of older kernels) and memory.
inventory::NumaNode read_numa_node(const core::SysRoot& root, const std::string& name, int id, ProblemLog& problems) {
  inventory::NumaNode node;
  node.id = id;
  const std::string base = "sys/devices/system/node/" + name + "/";
  if (auto list = root.read_line(base + "cpulist")) {
    if (auto cpus = parse::parse_cpulist(*list))
      node.cpus = *cpus;
    else
      problems.add(root.full_path(base + "cpulist"), cpus.error());
  } else if (auto map = root.read_line(base + "cpumap"); list.error().code == core::ErrorCode::kNotFound && map) {
    // Older kernels have only the hex mask.
    if (auto cpus = parse::parse_cpumask(*map))
      node.cpus = *cpus;
    else
      problems.add(root.full_path(base + "cpumap"), cpus.error());
  } else {
    problems.add(list.error());
  }
  if (auto mem = root.read_text(base + "meminfo")) {
    if (auto parsed = parse::parse_meminfo(*mem)) {
      if (auto it = parsed->find("MemTotal"); it != parsed->end()) node.memory_total_bytes = it->second;
    } else {
      problems.add(root.full_path(base + "meminfo"), parsed.error());
    }
  }
  return node;
}

// NUMA nodes: sys/devices/system/node/nodeN, in id order.
void read_numa_nodes(const core::SysRoot& root, inventory::CpuInfo& cpu, ProblemLog& problems) {
  auto entries = root.list_dir("sys/devices/system/node");
  if (!entries) return;
  for (const auto& name : *entries) {
    if (!core::starts_with(name, "node")) continue;
    auto id = core::parse_u64(std::string_view(name).substr(4));
    if (!id) continue;
    cpu.numa_nodes.push_back(read_numa_node(root, name, static_cast<int>(*id), problems));
  }
  std::sort(cpu.numa_nodes.begin(), cpu.numa_nodes.end(),
            [](const inventory::NumaNode& a, const inventory::NumaNode& b) { return a.id < b.id; });
}

// cpu0's frequency governor and clocks.
void read_cpu_clocks(const core::SysRoot& root, inventory::CpuInfo& cpu) {
  const std::string freq = "sys/devices/system/cpu/cpu0/cpufreq/";
  if (auto gov = root.read_line(freq + "scaling_governor")) cpu.governor = *gov;
  if (auto max = root.read_line(freq + "cpuinfo_max_freq")) {
    if (auto khz = core::parse_u64(*max)) cpu.max_mhz = static_cast<double>(*khz) / 1000.0;
  }
  if (auto base = root.read_line(freq + "base_frequency")) {
    if (auto khz = core::parse_u64(*base)) cpu.base_mhz = static_cast<double>(*khz) / 1000.0;
  }
}

// The summary: model, threads, cores and NUMA nodes as far as known.
core::Message cpu_summary(const inventory::CpuInfo& cpu) {
  const core::MessageArg model =
      cpu.model_name ? core::MessageArg(*cpu.model_name) : core::MessageArg(core::Message(N_("unknown CPU")));
  const int64_t threads = cpu.threads.value_or(0);
  const size_t numa = cpu.numa_nodes.size();
  if (cpu.physical_cores && numa > 0) {
    return core::Message(N_("{0}: {1} threads, {2} cores, {3} NUMA nodes"), model, threads, *cpu.physical_cores, numa);
  }
  if (cpu.physical_cores) return core::Message(N_("{0}: {1} threads, {2} cores"), model, threads, *cpu.physical_cores);
  if (numa > 0) return core::Message(N_("{0}: {1} threads, {2} NUMA nodes"), model, threads, numa);
  return core::Message(N_("{0}: {1} threads"), model, threads);
}

class CpuProbe final : public Probe {
 public:
  std::string_view id() const override { return "cpu"; }
  ProbeStatus run(const Context& ctx, inventory::Inventory& out) const override {
    const core::SysRoot& root = ctx.root;
    ProblemLog problems;
    auto& cpu = out.cpu;
    const bool have_cpuinfo = read_cpuinfo(root, cpu, problems);
    read_cpu_topology(root, cpu, problems);
    read_numa_nodes(root, cpu, problems);
    read_cpu_clocks(root, cpu);

    ProbeStatus status;
    problems.into(status);
    if (!have_cpuinfo && !cpu.threads) {
      status.state = State::kError;
      status.set_detail(core::Message(N_("could not read /proc/cpuinfo or the sysfs CPU topology")));
      return status;
    }
    status.state = State::kOk;
    status.set_detail(cpu_summary(cpu));
    return status;
  }

  void merge(inventory::Inventory& into, inventory::Inventory&& from) const override { into.cpu = std::move(from.cpu); }
};

}  // namespace

std::shared_ptr<const Probe> make_cpu_probe() { return std::make_shared<CpuProbe>(); }

}  // namespace tfrig::probe

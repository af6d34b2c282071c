#include "bench/context.h"

#include <sched.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>

#include "core/clock.h"
#include "core/i18n.h"
#include "core/text.h"
#include "inventory/json.h"

namespace tfrig::bench {

namespace {

std::string first_line(const char* path) {
  std::ifstream in(path);
  std::string line;
  if (in) std::getline(in, line);
  return std::string(core::trim(line));
}

}  // namespace

bool is_debug_build() {
#if !defined(NDEBUG) || !defined(__OPTIMIZE__)
  return true;
#else
  return false;
#endif
}

int usable_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0) {
    int n = CPU_COUNT(&set);
    if (n > 0) return n;
  }
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? static_cast<int>(n) : 1;
}

namespace {

// The hypervisor's name as the probe stored it; "unknown" is a word of
// tfrig's (inventory::fact_word) and translates where it is shown.
core::MessageArg virtualization_arg(const std::string& stored) {
  if (stored == "unknown") return core::Message(N_("unknown"));
  return stored;
}

}  // namespace

BenchContext make_context(const inventory::Inventory& inv, const Config& config) {
  BenchContext c;
  c.tool_version = TFRIG_VERSION;
  c.timestamp = core::utc_timestamp();
  c.hostname = inv.host.hostname.value_or("");
  c.machine_id = first_line("/etc/machine-id");
  if (c.machine_id.empty()) c.machine_id = "host:" + c.hostname;
  c.kernel = inv.host.kernel_release.value_or("");
  c.cpu_model = inv.cpu.model_name.value_or("");
  c.online_cpus = usable_cpus();
  c.threads = config.threads > 0 ? config.threads : c.online_cpus;
  c.numa_nodes = static_cast<int>(inv.cpu.numa_nodes.size());
  c.governor = inv.cpu.governor;
  c.virtualization = inv.host.virtualization;
  c.build_type = is_debug_build() ? "debug" : "release";

  if (is_debug_build()) {
    c.warnings.emplace_back(
        N_("debug build: compiled without optimisation or with assertions; numbers are not representative"));
  }
  if (c.governor && *c.governor != "performance") {
    // powersave/ondemand/schedutil ramp the clock up only under load, so
    // short samples start slow (kernel docs, Documentation/admin-guide/pm/cpufreq.rst).
    c.warnings.emplace_back(
        N_("cpu governor is {}: clocks ramp up under load, short samples vary; 'performance' gives steadier numbers"),
        *c.governor);
  }
  if (c.virtualization && *c.virtualization == "unknown hypervisor") {
    // The CPU's hypervisor flag without a name (probe/host_probe.cpp): one sentence, not "under unknown hypervisor".
    c.warnings.emplace_back(N_(
        "running in a virtual machine (hypervisor not identified): storage and memory numbers include the hypervisor and neighbours sharing the host"));
  } else if (c.virtualization && *c.virtualization != "none") {
    c.warnings.emplace_back(
        N_("running under {}: storage and memory numbers include the hypervisor and neighbours sharing the host"),
        virtualization_arg(*c.virtualization));
  }
  double loads[1] = {-1};
  if (getloadavg(loads, 1) == 1) {
    c.load_average = loads[0];
    // Another process holding a quarter of the CPUs already bends all-core results.
    if (loads[0] > 0.25 * c.online_cpus + 0.5) {
      c.warnings.push_back(core::Message::plural(
          NP_("load average is {0} on {1} CPU: other work is running and will share the CPUs",
              "load average is {0} on {1} CPUs: other work is running and will share the CPUs"),
          static_cast<uint64_t>(c.online_cpus), std::to_string(loads[0]).substr(0, 4), c.online_cpus));
    }
  }
  if (inv.memory.swap_used_bytes && *inv.memory.swap_used_bytes > 0) {
    c.warnings.emplace_back(N_("swap is in use: large memory benchmarks may page"));
  }
  if (c.threads > c.online_cpus) {
    c.warnings.push_back(core::Message::plural(NP_("--threads {0} is more than the {1} CPU this process may use",
                                                   "--threads {0} is more than the {1} CPUs this process may use"),
                                               static_cast<uint64_t>(c.online_cpus), c.threads, c.online_cpus));
  }
  return c;
}

nlohmann::json to_json(const BenchContext& c, std::string_view language) {
  nlohmann::json j;
  j["tool_version"] = c.tool_version;
  j["timestamp"] = c.timestamp;
  j["machine_id"] = c.machine_id;
  j["hostname"] = c.hostname;
  j["kernel"] = c.kernel;
  j["cpu_model"] = c.cpu_model;
  j["online_cpus"] = c.online_cpus;
  j["threads"] = c.threads;
  j["numa_nodes"] = c.numa_nodes;
  j["governor"] = c.governor ? nlohmann::json(*c.governor) : nlohmann::json(nullptr);
  j["virtualization"] = c.virtualization ? nlohmann::json(*c.virtualization) : nlohmann::json(nullptr);
  j["build_type"] = c.build_type;
  j["load_average"] = c.load_average >= 0 ? nlohmann::json(c.load_average) : nlohmann::json(nullptr);
  j["warnings"] = nlohmann::json::array();
  for (const auto& w : c.warnings) j["warnings"].push_back(core::render(w, language));
  return j;
}

BenchContext context_from_json(const nlohmann::json& j) {
  BenchContext c;
  auto str = [&j](const char* key) {
    auto it = j.find(key);
    return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  auto num = [&j](const char* key, double fallback) {
    auto it = j.find(key);
    return it != j.end() && it->is_number() ? it->get<double>() : fallback;
  };
  c.tool_version = str("tool_version");
  c.timestamp = str("timestamp");
  c.machine_id = str("machine_id");
  c.hostname = str("hostname");
  c.kernel = str("kernel");
  c.cpu_model = str("cpu_model");
  c.online_cpus = static_cast<int>(num("online_cpus", 0));
  c.threads = static_cast<int>(num("threads", 0));
  c.numa_nodes = static_cast<int>(num("numa_nodes", 0));
  if (!str("governor").empty()) c.governor = str("governor");
  if (!str("virtualization").empty()) c.virtualization = str("virtualization");
  c.build_type = str("build_type");
  c.load_average = num("load_average", -1);
  if (auto it = j.find("warnings"); it != j.end() && it->is_array()) {
    for (const auto& w : *it) {
      if (w.is_string()) c.warnings.emplace_back("{}", w.get<std::string>());
    }
  }
  return c;
}

}  // namespace tfrig::bench

// The context of a benchmark run: which machine, which build, and what makes
// its numbers noisy. Stored with every run in the history so that a change
// can be told apart from a different machine or a different setting.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/benchmark.h"
#include "core/message.h"
#include "inventory/inventory.h"

namespace tfrig::bench {

struct BenchContext {
  std::string tool_version;
  std::string timestamp;   // ISO 8601 UTC
  std::string machine_id;  // /etc/machine-id, else the hostname: the history's key
  std::string hostname;
  std::string kernel;
  std::string cpu_model;
  int online_cpus = 0;
  int threads = 0;  // what "all threads" means in this run
  int numa_nodes = 0;
  std::optional<std::string> governor;
  std::optional<std::string> virtualization;
  std::string build_type;               // "release" or "debug"
  double load_average = -1;             // 1-minute load at the start; -1 unknown
  std::vector<core::Message> warnings;  // rendered by each output in its language
};

// True when this binary was built without optimisation or with assertions.
bool is_debug_build();

// Builds the context and its warnings: a governor other than "performance",
// a debug build, a virtual machine, other load on the CPUs, swap in use.
BenchContext make_context(const inventory::Inventory& inventory, const Config& config);

// The warnings in `language` ("en" for the history).
nlohmann::json to_json(const BenchContext& context, std::string_view language);
// Warnings read back show as they were stored (core::Message("{}", text)).
BenchContext context_from_json(const nlohmann::json& j);

// Online CPUs this process may run on (sched_getaffinity), at least 1.
int usable_cpus();

}  // namespace tfrig::bench

// A probe reads one subsystem of the machine into its section of the
// Inventory. Probes are listed in one explicit table (registry.cpp), run
// concurrently, each under a deadline; a probe that fails, throws or hangs is
// recorded with its reason and never stops the run.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/sysroot.h"
#include "inventory/inventory.h"

namespace tfrig::probe {

enum class State { kOk, kAbsent, kError, kSkipped };

std::string_view state_name(State state);
std::optional<State> state_from_name(std::string_view name);

struct ProbeStatus {
  std::string id;
  State state = State::kOk;
  std::string detail;                 // one line: what was found, or why not
  double seconds = 0;
  std::vector<std::string> problems;  // each unreadable or malformed source: "path: reason"
};

struct Context {
  core::SysRoot root;
  std::vector<std::string> data_paths;  // --data DIR: where the datasets live
  std::chrono::milliseconds deadline{5000};
  // --python PREFIX: more Python environments to look in. The default member
  // initializer keeps three-element aggregate initialisations warning-free.
  std::vector<std::string> python_prefixes = {};
};

class Probe {
 public:
  virtual ~Probe() = default;
  // Stable id ("cpu", "storage"): used in JSON, never renamed once released.
  virtual std::string_view id() const = 0;
  // The files and APIs it reads, relative to the root (for --capture and docs).
  virtual std::vector<std::string> sources() const = 0;
  // Fills its own section of `out` (a fresh Inventory) and says how it went.
  virtual ProbeStatus run(const Context& ctx, inventory::Inventory& out) const = 0;
  // Moves its section from a finished run into the merged inventory.
  virtual void merge(inventory::Inventory& into, inventory::Inventory&& from) const = 0;
};

// The explicit table of every probe, in report order.
std::vector<std::shared_ptr<const Probe>> all_probes();

struct RunResult {
  inventory::Inventory inventory;
  std::vector<ProbeStatus> statuses;  // in table order
  double seconds = 0;
};

// Runs the probes concurrently; each past ctx.deadline is recorded as an error
// and left behind (its thread owns its own state, so nothing dangles).
RunResult run_probes(const Context& ctx, const std::vector<std::shared_ptr<const Probe>>& probes);

// Probe threads of this process that have not finished, those left past
// their deadline included. While any runs, main ends the process with
// std::_Exit instead of returning (see runner.cpp).
int probe_threads_running();

// Helper for probes: collects per-file problems while filling a section.
class ProblemLog {
 public:
  void add(const core::Error& error) { problems_.push_back(error.to_string()); }
  void add(std::string text) { problems_.push_back(std::move(text)); }
  const std::vector<std::string>& problems() const { return problems_; }
  bool empty() const { return problems_.empty(); }

 private:
  std::vector<std::string> problems_;
};

}  // namespace tfrig::probe

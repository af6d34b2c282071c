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

#include "core/i18n.h"
#include "core/message.h"
#include "core/sysroot.h"
#include "inventory/inventory.h"

namespace tfrig::probe {

enum class State { kOk, kAbsent, kError, kSkipped };

std::string_view state_name(State state);
std::optional<State> state_from_name(std::string_view name);

// The texts are English (JSON and snapshots keep them so); each may come
// with its message (core/message.h), which the report renders in the
// reader's language. A text without one (a snapshot of an older tfrig, an
// error built from a plain string) prints as stored.
struct ProbeStatus {
  std::string id;
  State state = State::kOk;
  std::string detail;  // one line: what was found, or why not
  double seconds = 0;
  std::vector<std::string> problems;                           // each unreadable or malformed source: "path: reason"
  std::optional<core::Message> detail_message = std::nullopt;  // detail == core::english(*detail_message)
  // Aligned with problems (shorter where the last ones have none).
  std::vector<std::optional<core::Message>> problem_messages = {};

  void set_detail(core::Message m) {
    detail = core::english(m);
    detail_message = std::move(m);
  }
  void add_problem(core::Message m) {
    problem_messages.resize(problems.size());
    problems.push_back(core::english(m));
    problem_messages.emplace_back(std::move(m));
  }
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
  // An error: from its message when it has one (core::error_message).
  void add(const core::Error& error) {
    if (auto m = core::error_message(error)) return add(std::move(*m));
    problems_.push_back(error.to_string());
  }
  // "PATH: " before a parser's error.
  void add(std::string path, const core::Error& error) {
    if (auto m = core::error_message(path, error)) return add(std::move(*m));
    problems_.push_back(path + ": " + error.to_string());
  }
  void add(std::string text) { problems_.push_back(std::move(text)); }
  void add(core::Message m) {
    messages_.resize(problems_.size());
    problems_.push_back(core::english(m));
    messages_.emplace_back(std::move(m));
  }
  // "PATH: MESSAGE": the path as it is, the message rendered in the reader's language.
  void add(std::string path, core::Message m) {
    messages_.resize(problems_.size());
    core::Message with_path(N_("{0}: {1}"), std::move(path), std::move(m));
    problems_.push_back(core::english(with_path));
    messages_.emplace_back(std::move(with_path));
  }
  const std::vector<std::string>& problems() const { return problems_; }
  bool empty() const { return problems_.empty(); }
  // Copies the problems and their messages into a status.
  void into(ProbeStatus& status) const {
    status.problems = problems_;
    status.problem_messages = messages_;
  }

 private:
  std::vector<std::string> problems_;
  std::vector<std::optional<core::Message>> messages_;
};

}  // namespace tfrig::probe

#include <atomic>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>

#include "core/clock.h"
#include "core/i18n.h"
#include "core/log.h"
#include "core/units.h"
#include "probe/probe.h"

namespace tfrig::probe {

std::string_view state_name(State state) {
  switch (state) {
    case State::kOk: return "ok";
    case State::kAbsent: return "absent";
    case State::kError: return "error";
    case State::kSkipped: return "skipped";
  }
  return "error";
}

std::optional<State> state_from_name(std::string_view name) {
  if (name == "ok") return State::kOk;
  if (name == "absent") return State::kAbsent;
  if (name == "error") return State::kError;
  if (name == "skipped") return State::kSkipped;
  return std::nullopt;
}

namespace {

// Probe threads not yet finished, in the whole process. An atomic has a
// trivial destructor, so a late thread may still count itself out while
// the process ends.
std::atomic<int> g_threads_running{0};

// Everything one probe thread touches; shared so a thread that outlives its
// deadline still writes into live memory.
struct Job {
  std::shared_ptr<const Probe> probe;
  Context ctx;
  inventory::Inventory out;
  ProbeStatus status;
  bool done = false;
};

struct Shared {
  std::mutex mutex;
  std::condition_variable cv;
};

void run_job(const std::shared_ptr<Job>& job, const std::shared_ptr<Shared>& shared) {
  core::Stopwatch watch;
  ProbeStatus status;
  try {
    status = job->probe->run(job->ctx, job->out);
  } catch (const std::exception& e) {
    status.state = State::kError;
    status.set_detail(core::Message(N_("internal error: {}"), e.what()));
  } catch (...) {
    status.state = State::kError;
    status.set_detail(core::Message(N_("internal error: {}"), "unknown exception"));
  }
  status.id = std::string(job->probe->id());
  status.seconds = watch.seconds();
  std::lock_guard<std::mutex> lock(shared->mutex);
  job->status = std::move(status);
  job->done = true;
  shared->cv.notify_all();
}

}  // namespace

RunResult run_probes(const Context& ctx, const std::vector<std::shared_ptr<const Probe>>& probes) {
  core::Stopwatch total;
  auto shared = std::make_shared<Shared>();
  std::vector<std::shared_ptr<Job>> jobs;
  for (const auto& probe : probes) {
    auto job = std::make_shared<Job>();
    job->probe = probe;
    job->ctx = ctx;
    jobs.push_back(job);
    // Detached, not joined: a probe past its deadline (a hung NVML call, a
    // read on a dead network mount) must not hold the report back, and a
    // thread cannot be cancelled. It keeps running on memory it owns (the
    // Job, shared). What it must not meet is the end of the process: static
    // destructors and the libraries' exit handlers (NVML's among them) run
    // when main returns. So main asks probe_threads_running() and, while a
    // thread is left, ends with std::_Exit, which runs neither. The count
    // drops only after the thread has let go of its Job.
    g_threads_running.fetch_add(1);
    std::thread([job, shared]() mutable {
      run_job(job, shared);
      job.reset();
      shared.reset();
      g_threads_running.fetch_sub(1);
    }).detach();
  }

  RunResult result;
  const auto deadline = std::chrono::steady_clock::now() + ctx.deadline;
  std::unique_lock<std::mutex> lock(shared->mutex);
  for (const auto& job : jobs) {
    shared->cv.wait_until(lock, deadline, [&] { return job->done; });
    if (job->done) {
      job->probe->merge(result.inventory, std::move(job->out));
      result.statuses.push_back(job->status);
    } else {
      ProbeStatus late;
      late.id = std::string(job->probe->id());
      late.state = State::kError;
      late.seconds = std::chrono::duration<double>(ctx.deadline).count();
      late.set_detail(core::Message(N_("did not finish within its deadline of {}; left running"),
                                    core::seconds_message(late.seconds)));
      core::log(core::LogLevel::kWarn, "{}", trf("probe {} exceeded its deadline", late.id));
      result.statuses.push_back(std::move(late));
    }
  }
  result.seconds = total.seconds();
  return result;
}

int probe_threads_running() { return g_threads_running.load(); }

}  // namespace tfrig::probe

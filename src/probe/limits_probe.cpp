// limits: open files and locked memory of this process, and what
// limits.conf / limits.d set for new sessions (docs/guide.md: raise the
// open-files ulimit; pinned host memory needs memlock).
#include "core/text.h"
#include "probe/parse/proc_text.h"
#include "probe/probe.h"
#include "probe/probes.h"

namespace tfrig::probe {

namespace {

class LimitsProbe final : public Probe {
 public:
  std::string_view id() const override { return "limits"; }
  ProbeStatus run(const Context& ctx, inventory::Inventory& out) const override {
    const core::SysRoot& root = ctx.root;
    ProblemLog problems;
    auto& lim = out.limits;
    bool have_process = false;

    if (auto text = root.read_text("proc/self/limits"); !text) {
      problems.add(text.error());
    } else if (auto parsed = parse::parse_proc_limits(*text); !parsed) {
      problems.add(root.full_path("proc/self/limits"), parsed.error());
    } else {
      have_process = true;
      if (auto it = parsed->find("Max open files"); it != parsed->end())
        lim.nofile = {it->second.soft, it->second.hard};
      if (auto it = parsed->find("Max locked memory"); it != parsed->end())
        lim.memlock = {it->second.soft, it->second.hard};
    }

    auto add_conf = [&](const std::string& rel) {
      auto text = root.read_text(rel, 1 << 20);
      if (!text) {
        if (text.error().code != core::ErrorCode::kNotFound) problems.add(text.error());
        return;
      }
      auto conf = parse::parse_limits_conf(*text, root.full_path(rel));
      for (auto& e : conf.entries) lim.configured.push_back(std::move(e));
      for (auto& p : conf.problem_messages) problems.add(std::move(p));
    };
    add_conf("etc/security/limits.conf");
    // pam_limits reads limits.d/*.conf in C-locale order after limits.conf.
    if (auto files = root.list_dir("etc/security/limits.d")) {
      for (const auto& f : *files) {
        if (core::ends_with(f, ".conf")) add_conf("etc/security/limits.d/" + f);
      }
    }

    ProbeStatus status;
    problems.into(status);
    if (!have_process) {
      status.state = State::kError;
      status.set_detail(core::Message(N_("process limits unknown: /proc/self/limits unreadable or malformed")));
      return status;
    }
    status.state = State::kOk;
    auto show = [](const std::optional<uint64_t>& v) {
      if (!v) return std::string("?");
      if (*v == inventory::Limit::kUnlimited) return std::string("unlimited");
      return std::to_string(*v);
    };
    status.set_detail(core::Message(N_("open files {0}/{1}, {2} limits.conf entries"), show(lim.nofile.soft),
                                    show(lim.nofile.hard), lim.configured.size()));
    return status;
  }

  void merge(inventory::Inventory& into, inventory::Inventory&& from) const override {
    into.limits = std::move(from.limits);
  }
};

}  // namespace

std::shared_ptr<const Probe> make_limits_probe() { return std::make_shared<LimitsProbe>(); }

}  // namespace tfrig::probe

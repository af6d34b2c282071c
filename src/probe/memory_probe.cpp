// memory: RAM, swap, swappiness, transparent hugepages, hugepages.
#include "core/text.h"
#include "core/units.h"
#include "probe/parse/proc_text.h"
#include "probe/probe.h"
#include "probe/probes.h"

namespace tfrig::probe {

namespace {

class MemoryProbe final : public Probe {
 public:
  std::string_view id() const override { return "memory"; }
  ProbeStatus run(const Context& ctx, inventory::Inventory& out) const override {
    const core::SysRoot& root = ctx.root;
    ProblemLog problems;
    auto& mem = out.memory;
    bool have_meminfo = false;

    if (auto text = root.read_text("proc/meminfo"); !text) {
      problems.add(text.error());
    } else if (auto info = parse::parse_meminfo(*text); !info) {
      problems.add(root.full_path("proc/meminfo"), info.error());
    } else {
      parse::apply_meminfo(*info, mem);
      have_meminfo = mem.total_bytes.has_value();
      if (!have_meminfo) problems.add(core::Message(N_("{}: no MemTotal line"), root.full_path("proc/meminfo")));
    }

    if (auto sw = root.read_line("proc/sys/vm/swappiness")) {
      if (auto v = core::parse_u64(*sw); v && *v <= 200)
        mem.swappiness = static_cast<int>(*v);
      else
        problems.add(root.full_path("proc/sys/vm/swappiness"),
                     core::Message(N_("expected a number 0-200, got '{}'"), core::printable(*sw)));
    } else if (sw.error().code != core::ErrorCode::kNotFound) {
      problems.add(sw.error());
    }
    const std::string thp = "sys/kernel/mm/transparent_hugepage/";
    auto choice = [&](const std::string& rel) -> std::optional<std::string> {
      auto text = root.read_line(rel);
      if (!text) {
        if (text.error().code != core::ErrorCode::kNotFound) problems.add(text.error());
        return std::nullopt;
      }
      auto chosen = parse::parse_bracket_choice(*text);
      if (!chosen)
        problems.add(root.full_path(rel), core::Message(N_("no [selected] value in '{}'"), core::printable(*text)));
      return chosen;
    };
    mem.thp_enabled = choice(thp + "enabled");
    mem.thp_defrag = choice(thp + "defrag");

    ProbeStatus status;
    problems.into(status);
    if (!have_meminfo) {
      status.state = State::kError;
      status.set_detail(core::Message(N_("total memory unknown: /proc/meminfo unreadable or malformed")));
      return status;
    }
    status.state = State::kOk;
    if (mem.swap_total_bytes) {
      status.set_detail(core::Message(N_("{0} RAM, {1} swap"), core::format_bytes_binary(*mem.total_bytes),
                                      core::format_bytes_binary(*mem.swap_total_bytes)));
    } else {
      status.set_detail(core::Message(N_("{} RAM"), core::format_bytes_binary(*mem.total_bytes)));
    }
    return status;
  }

  void merge(inventory::Inventory& into, inventory::Inventory&& from) const override {
    into.memory = std::move(from.memory);
  }
};

}  // namespace

std::shared_ptr<const Probe> make_memory_probe() { return std::make_shared<MemoryProbe>(); }

}  // namespace tfrig::probe

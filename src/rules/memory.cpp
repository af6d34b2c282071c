// Memory rules: system RAM against GPU memory (docs/guide.md: 2x).
#include <fmt/format.h>

#include "core/i18n.h"
#include "rules/areas.h"
#include "rules/util.h"

namespace tfrig::rules {

namespace {

namespace u = util;

Check ram_below_2x_vram(const Context& ctx) {
  if (u::gpus(ctx).empty())
    return Check::skip(u::gpu_count(ctx) ? core::Message(N_("GPU memory (NVML could not read the GPUs)"))
                                         : core::Message(N_("an NVIDIA GPU (none found)")));
  if (!ctx.inv.memory.total_bytes) return Check::skip(core::Message(N_("system memory (/proc/meminfo)")));
  uint64_t vram = 0;
  for (const auto& g : u::gpus(ctx)) {
    auto m = u::gpu_memory_bytes(ctx, g);
    if (!m) return Check::skip(core::Message(N_("memory of {}"), u::gpu_label(g)));
    vram += *m;
  }
  const double ratio = ctx.k.number("ram_to_vram_ratio", 2);
  const auto want = static_cast<uint64_t>(static_cast<double>(vram) * ratio);
  const uint64_t ram = *ctx.inv.memory.total_bytes;
  if (ram >= want) return Check::pass();
  Check c;
  c.add(Hit{
      "host",
      core::Message(
          N_("{} of RAM for {} of GPU memory: the configuration guide (docs/guide.md) asks for at least {}x ({}), or data loading swaps "
             "and slows down."),
          u::bytes(ram), u::bytes(vram), ratio, u::bytes(want)),
      {{core::Message(N_("system memory")), u::bytes(ram), "/proc/meminfo MemTotal"},
       {core::Message(N_("total GPU memory")), u::bytes(vram), "NVML"},
       {core::Message(N_("RAM / GPU memory wanted")), fmt::format("{}x", ratio),
        u::knowledge_source("thresholds.json", "guide")}},
      core::Message(N_("Install at least {} of RAM (e.g. one A100 80GB -> 256 GB)."), u::bytes(want)),
      {}});
  return c;
}

}  // namespace

std::vector<Rule> memory_rules() {
  return {
      {"memory.ram_below_2x_vram",
       "memory",
       Severity::kWarning,
       N_("System RAM below 2x total GPU memory"),
       N_("MemTotal against twice the sum of GPU memory."),
       N_("The configuration guide (docs/guide.md): system memory at least 2x total GPU memory (A100 80 GB -> 256 GB) or loading swaps."),
       N_("Add RAM up to 2x the GPU memory."),
       {},
       ram_below_2x_vram},
  };
}

}  // namespace tfrig::rules

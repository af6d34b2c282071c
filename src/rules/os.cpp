// OS rules: distribution, swap, limits, CPU governor, transparent hugepages.
#include <fmt/format.h>

#include "core/i18n.h"
#include "core/text.h"
#include "rules/areas.h"
#include "rules/util.h"

namespace tfrig::rules {

namespace {

namespace u = util;
using inventory::Limit;

core::MessageArg limit_text(const std::optional<uint64_t>& v) {
  if (!v) return core::Message(N_("unknown"));
  if (*v == Limit::kUnlimited) return core::Message(N_("unlimited"));
  return std::to_string(*v);
}

// "1024 / 4096": a soft and a hard limit.
core::Message soft_hard(const inventory::Limit& l) {
  return core::Message(N_("{0} / {1}"), limit_text(l.soft), limit_text(l.hard));
}

std::vector<Evidence> conf_evidence(const Context& ctx, const std::string& item) {
  std::vector<Evidence> ev;
  for (const auto& e : ctx.inv.limits.configured) {
    if (e.item != item) continue;
    ev.push_back({"limits.conf", fmt::format("{} {} {} {}", e.domain, e.type, e.item, e.value),
                  fmt::format("{}:{}", e.file, e.line)});
  }
  if (ev.empty())
    // TRANSLATORS: {} is a limits.conf item (nofile, memlock).
    ev.push_back({"limits.conf", core::Message(N_("no {} entry"), item), "/etc/security/limits.conf, limits.d/*.conf"});
  return ev;
}

Check not_ubuntu_lts(const Context& ctx) {
  const auto& h = ctx.inv.host;
  if (!h.os_id) return Check::skip(core::Message(N_("OS release (/etc/os-release)")));
  std::vector<std::string> tested;
  if (const auto* f = ctx.k.fact("ubuntu_lts_tested"); f && f->value.is_array()) {
    for (const auto& v : f->value) tested.push_back(v.get<std::string>());
  }
  if (*h.os_id == "ubuntu" && h.os_version_id) {
    for (const auto& t : tested) {
      if (*h.os_version_id == t) return Check::pass();
    }
  }
  Check c;
  c.add(Hit{
      "host",
      core::Message(N_("{} is not one of the Ubuntu LTS releases NVIDIA's CUDA repositories and TensorFlow are tested "
                       "on ({}). It can work, but driver and CUDA packages come from elsewhere."),
                    h.os_pretty_name.value_or(*h.os_id), u::listed(tested)),
      {{"OS", h.os_pretty_name.value_or(*h.os_id + " " + h.os_version_id.value_or("")), "/etc/os-release"}},
      "",
      {}});
  return c;
}

Check swap_enabled(const Context& ctx) {
  const auto& m = ctx.inv.memory;
  if (!m.swap_total_bytes && !m.swappiness)
    return Check::skip(core::Message(N_("swap size and vm.swappiness (/proc/meminfo, /proc/sys/vm/swappiness)")));
  Check c;
  const int max_swappiness = static_cast<int>(ctx.k.number("swappiness_max", 10));
  if (m.swap_total_bytes && *m.swap_total_bytes > 0) {
    c.add(
        Hit{"host",
            core::Message(N_("Swap is on ({}, {} used){}: when RAM runs short the input pipeline pages instead of "
                             "failing fast, and training slows down sharply."),
                          u::bytes(*m.swap_total_bytes), m.swap_used_bytes ? u::bytes(*m.swap_used_bytes) : "?",
                          m.swappiness ? core::MessageArg(core::Message(N_(", vm.swappiness {}"), *m.swappiness))
                                       : core::MessageArg("")),
            {{"SwapTotal", u::bytes(*m.swap_total_bytes), "/proc/meminfo"},
             {"vm.swappiness", m.swappiness ? Text(std::to_string(*m.swappiness)) : Text(core::Message(N_("unknown"))),
              "/proc/sys/vm/swappiness"}},
            "",
            {}});
  } else if (m.swappiness && *m.swappiness > max_swappiness && m.swap_total_bytes) {
    // No swap now, but a swap file added later would be used eagerly.
    c.add(Hit{
        "host",
        core::Message(N_("vm.swappiness is {} (above {}); harmless while there is no swap."), *m.swappiness,
                      max_swappiness),
        {{"vm.swappiness", std::to_string(*m.swappiness), "/proc/sys/vm/swappiness"}},
        core::Message(N_("`echo 'vm.swappiness={}' | sudo tee /etc/sysctl.d/60-tfrig.conf && sudo sysctl --system`"),
                      max_swappiness),
        Severity::kInfo});
  } else if (!m.swap_total_bytes) {
    return Check::skip(core::Message(N_("swap size (/proc/meminfo)")));
  }
  return c;
}

Check nofile_low(const Context& ctx) {
  const auto& l = ctx.inv.limits.nofile;
  if (!l.soft && !l.hard) return Check::skip(core::Message(N_("open-files limit (/proc/self/limits)")));
  const auto want = static_cast<uint64_t>(ctx.k.number("nofile_min", 65536));
  const auto rec = static_cast<uint64_t>(ctx.k.number("nofile_recommended", 1048576));
  const bool low = (l.soft && *l.soft < want) || (l.hard && *l.hard < want);
  if (!low) return Check::pass();
  auto ev = conf_evidence(ctx, "nofile");
  ev.insert(ev.begin(), {core::Message(N_("nofile soft / hard")), soft_hard(l), "/proc/self/limits"});
  Check c;
  c.add(Hit{
      "host",
      core::Message(N_("The open-files limit is {} (soft) / {} (hard), below {}: tf.data interleaving many TFRecord "
                       "shards fails with \"Too many open files\"."),
                    limit_text(l.soft), limit_text(l.hard), want),
      ev,
      core::Message(
          N_("`printf '* soft nofile {0}\\n* hard nofile {0}\\n' | sudo tee /etc/security/limits.d/90-tfrig.conf` "
             "and log in again (systemd services: `LimitNOFILE={0}`)."),
          rec),
      {}});
  return c;
}

Check memlock_low(const Context& ctx) {
  const auto& l = ctx.inv.limits.memlock;
  if (!l.soft) return Check::skip(core::Message(N_("locked-memory limit (/proc/self/limits)")));
  const auto want = static_cast<uint64_t>(ctx.k.number("memlock_min_bytes", 64.0 * 1024 * 1024));
  if (*l.soft >= want) return Check::pass();
  auto ev = conf_evidence(ctx, "memlock");
  ev.insert(ev.begin(), {core::Message(N_("memlock soft / hard")), soft_hard(l), "/proc/self/limits"});
  Check c;
  c.add(Hit{"host",
            core::Message(N_("Locked memory is limited to {}: NCCL over InfiniBand/RoCE cannot register its buffers "
                             "(\"ibv_reg_mr failed: Cannot allocate memory\"); single-node training is unaffected."),
                          u::bytes(*l.soft)),
            ev,
            core::Message(N_(
                "`printf '* soft memlock unlimited\\n* hard memlock unlimited\\n' | sudo tee "
                "/etc/security/limits.d/91-tfrig-memlock.conf` and log in again (containers: `--ulimit memlock=-1`).")),
            {}});
  return c;
}

Check governor(const Context& ctx) {
  if (!ctx.inv.cpu.governor) return Check::skip(core::Message(N_("CPU frequency governor (cpufreq not exposed)")));
  const std::string want = ctx.k.text("governor_recommended", "performance");
  if (*ctx.inv.cpu.governor == want) return Check::pass();
  Check c;
  c.add(Hit{"host",
            core::Message(N_("The CPU governor is '{}': clocks ramp up late, which slows CPU-bound input pipelines "
                             "(common practice, not an NVIDIA/TF requirement)."),
                          *ctx.inv.cpu.governor),
            {{"scaling_governor", *ctx.inv.cpu.governor, "/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor"}},
            "",
            {}});
  return c;
}

Check thp(const Context& ctx) {
  if (!ctx.inv.memory.thp_enabled)
    return Check::skip(core::Message(N_("transparent hugepage setting (/sys/kernel/mm/transparent_hugepage/enabled)")));
  if (*ctx.inv.memory.thp_enabled != "always") return Check::pass();
  Check c;
  c.add(Hit{"host",
            core::Message(N_(
                "Transparent hugepages are 'always': khugepaged compaction can stall large host allocations; 'madvise' "
                "(Ubuntu's default) is the usual choice (uncertain: no TF-specific guidance).")),
            {{"transparent_hugepage/enabled", "always", "/sys/kernel/mm/transparent_hugepage/enabled"},
             {"defrag", u::or_text(ctx.inv.memory.thp_defrag, core::Message(N_("unknown"))),
              "/sys/kernel/mm/transparent_hugepage/defrag"}},
            "",
            {}});
  return c;
}

}  // namespace

std::vector<Rule> os_rules() {
  return {
      {"os.not_ubuntu_lts",
       "os",
       Severity::kInfo,
       N_("Not an Ubuntu LTS release"),
       N_("os-release ID and VERSION_ID against the Ubuntu LTS releases tested (20.04, 22.04, 24.04)."),
       N_("The configuration guide (docs/guide.md) recommends Ubuntu LTS: best CUDA and AI library compatibility; NVIDIA's CUDA repositories cover "
          "ubuntu2004/2204/2404."),
       N_("Prefer Ubuntu 22.04 or 24.04 LTS for a new server; elsewhere use NVIDIA's repository for your distribution."),
       {"https://docs.nvidia.com/cuda/cuda-installation-guide-linux/"},
       not_ubuntu_lts},
      {"os.swap_enabled",
       "os",
       Severity::kWarning,
       N_("Swap on or vm.swappiness high"),
       N_("SwapTotal and vm.swappiness."),
       N_("The configuration guide (docs/guide.md): turn swap off; swapping kills training speed (swappiness 1-10 is common practice; kernel "
          "vm.rst)."),
       N_("`sudo swapoff -a` and comment the swap lines in /etc/fstab (Ubuntu: /swap.img); or "
          "`echo 'vm.swappiness=10' | sudo tee /etc/sysctl.d/60-tfrig.conf && sudo sysctl --system`."),
       {"https://www.kernel.org/doc/Documentation/admin-guide/sysctl/vm.rst"},
       swap_enabled},
      {"os.nofile_low",
       "os",
       Severity::kWarning,
       N_("Open-files limit below 65536"),
       N_("Soft and hard RLIMIT_NOFILE, and what limits.conf sets."),
       N_("The configuration guide (docs/guide.md): raise ulimit -n; many TFRecord shards give \"Too many open files\" (tensorflow/datasets#1441)."),
       N_("`* soft nofile 1048576` and `* hard nofile 1048576` in /etc/security/limits.d/, then log in again."),
       {"https://github.com/tensorflow/datasets/issues/1441"},
       nofile_low},
      {"os.memlock_low",
       "os",
       Severity::kInfo,
       N_("Locked-memory limit low for RDMA"),
       N_("Soft RLIMIT_MEMLOCK against 64 MiB."),
       N_("NCCL over InfiniBand/RoCE registers pinned memory; a low limit fails with ibv_reg_mr errors "
          "(NVIDIA/nccl-tests#206)."),
       N_("`* soft memlock unlimited` and `* hard memlock unlimited` in /etc/security/limits.d/; containers "
          "`--ulimit memlock=-1`."),
       {"https://github.com/NVIDIA/nccl-tests/issues/206"},
       memlock_low},
      {"os.cpu_governor",
       "os",
       Severity::kInfo,
       N_("CPU governor not 'performance'"),
       N_("scaling_governor of the CPUs."),
       N_("Input pipelines are CPU-bound; 'performance' keeps clocks high (common practice, uncertain; kernel "
          "cpufreq.rst)."),
       N_("`sudo cpupower frequency-set -g performance` (persist with cpupower.service or `tuned-adm profile "
          "throughput-performance`)."),
       {"https://www.kernel.org/doc/Documentation/admin-guide/pm/cpufreq.rst"},
       governor},
      {"os.thp_always",
       "os",
       Severity::kInfo,
       N_("Transparent hugepages set to 'always'"),
       N_("/sys/kernel/mm/transparent_hugepage/enabled."),
       N_("NVIDIA's bug report collects THP settings; 'always' can cause compaction stalls (uncertain, kernel "
          "transhuge.rst)."),
       N_("`echo madvise | sudo tee /sys/kernel/mm/transparent_hugepage/enabled` (persist with the kernel parameter "
          "`transparent_hugepage=madvise`)."),
       {"https://www.kernel.org/doc/Documentation/admin-guide/mm/transhuge.rst"},
       thp},
  };
}

}  // namespace tfrig::rules

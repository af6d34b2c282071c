// GPU rules: is there one, can TF's wheels run on it, is it healthy and
// configured for 24/7 training, how are several of them connected.
#include <fmt/format.h>

#include "core/i18n.h"
#include "core/text.h"
#include "rules/areas.h"
#include "rules/util.h"

namespace tfrig::rules {

namespace {

using knowledge::KernelSupport;
namespace u = util;

Check no_gpu(const Context& ctx) {
  if (!ctx.probed("pci") && !ctx.probed("nvml"))
    return Check::skip(core::Message(N_("PCI devices (the pci probe did not run)")));
  if (!u::gpu_presence_known(ctx))
    return Check::skip(core::Message(N_("PCI device list (empty: /sys/bus/pci/devices unreadable)")));
  if (u::gpu_count(ctx) > 0) return Check::pass();
  Check c;
  core::Message fix = core::Message(
      N_("Run TensorFlow on a machine with an NVIDIA GPU (compute capability 6.0 or newer for current releases; "
         "`tfrig plan` sizes one). In a VM, pass the GPU through (PCI passthrough / vGPU)."));
  if (ctx.inv.host.container && *ctx.inv.host.container != "none") {
    fix = core::Message(N_("This is a container: start it with the GPU, e.g. `docker run --gpus all ...` "
                           "(NVIDIA Container Toolkit on the host)."));
  }
  c.add(
      Hit{"host",
          core::Message(N_("No NVIDIA GPU on this machine: TensorFlow will run on the CPU only.")),
          {{core::Message(N_("NVIDIA display/3D controllers on PCI")), "0", "/sys/bus/pci/devices/*/class,vendor"},
           {core::Message(N_("PCI devices seen")), std::to_string(ctx.inv.pci.devices.size()), "/sys/bus/pci/devices"},
           {core::Message(N_("GPUs seen by NVML")), std::to_string(ctx.inv.gpus.size()), "NVML"}},
          fix,
          {}});
  return c;
}

struct CcCheck {
  const inventory::Gpu* gpu;
  u::GpuCc cc;
  knowledge::KernelVerdict verdict;
};

// The installed wheel's own list (build_info.py) when the target is the
// installed release: authoritative; else the knowledge base's, which may be
// inferred (then marked uncertain).
knowledge::KernelVerdict kernel_verdict(const Context& ctx, const core::Version& cc) {
  if (ctx.target.origin == "installed" && ctx.target.env && ctx.target.env->tensorflow &&
      !ctx.target.env->tensorflow->compute_capabilities.empty()) {
    if (auto v = knowledge::kernel_support_from_targets(ctx.target.env->tensorflow->compute_capabilities, cc)) {
      if (auto min = core::Version::parse(ctx.k.tf_min_capability()); !(min && cc < *min)) return *v;
    }
  }
  return ctx.k.kernel_support(ctx.target.tf, cc);
}

// Runs fn on every GPU whose CC is known; skips when none is.
template <class Fn>
Check per_gpu_cc(const Context& ctx, Fn fn) {
  if (u::gpus(ctx).empty()) {
    return Check::skip(u::gpu_count(ctx) > 0
                           ? core::Message(N_("GPU compute capability (NVML could not read the GPUs)"))
                           : core::Message(N_("an NVIDIA GPU (none found)")));
  }
  Check c;
  bool any = false;
  for (const auto& g : u::gpus(ctx)) {
    auto cc = u::gpu_cc(ctx, g);
    if (!cc) continue;
    any = true;
    fn(c, CcCheck{&g, *cc, kernel_verdict(ctx, cc->cc)});
  }
  if (!any)
    return Check::skip(
        core::Message(N_("GPU compute capability (not reported and the GPU name is not in the catalog)")));
  return c;
}

std::vector<Evidence> cc_evidence(const Context& ctx, const CcCheck& x) {
  std::vector<Evidence> ev;
  ev.push_back({core::Message(N_("compute capability")),
                u::uncertain_value(x.cc.cc.text(), x.cc.uncertain, core::Message(N_("from the GPU catalog"))),
                x.cc.source});
  ev.push_back({core::Message(N_("target")), ctx.target.label_message(), core::Message(N_("tfrig target resolution"))});
  if (x.verdict.from_build_info) {
    ev.push_back({core::Message(N_("kernels in the TF wheel")), x.verdict.targets,
                  ctx.target.env ? ctx.target.env->site_packages.value_or(ctx.target.env->prefix) +
                                       "/tensorflow/python/platform/build_info.py"
                                 : std::string("build_info.py")});
    return ev;
  }
  core::MessageArg kernels =
      x.verdict.targets.empty() ? core::MessageArg(core::Message(N_("unknown"))) : core::MessageArg(x.verdict.targets);
  if (x.verdict.alternative) {
    // TRANSLATORS: two candidate kernel lists of one release: {0} the first, {1} the other.
    kernels = core::Message(N_("{0}, or {1}"), x.verdict.targets, x.verdict.alternative_targets);
  }
  ev.push_back({core::Message(N_("kernels in the TF wheel")),
                u::uncertain_value(kernels, x.verdict.uncertain, core::Message(N_("per-release list inferred"))),
                u::knowledge_source("tf_compute.json", "tsl-bazelrc-history")});
  if (x.verdict.uncertain)
    ev.push_back({core::Message(N_("how to check")), knowledge::kernel_list_check_hint_message(), "tfrig"});
  return ev;
}

Check cc_unsupported(const Context& ctx) {
  return per_gpu_cc(ctx, [&ctx](Check& c, const CcCheck& x) {
    if (x.verdict.support != KernelSupport::kNone && x.verdict.support != KernelSupport::kBelowMinimum) return;
    auto newest = u::newest_tf_for_cc(ctx.k, x.cc.cc, false);
    core::Message fix =
        newest ? core::Message(N_("Use TensorFlow {} (the newest release with native kernels for compute "
                                  "capability {}): `pip install 'tensorflow[and-cuda]=={}'` or the "
                                  "matching CUDA/cuDNN from `tfrig compat --tf {}`; or build TF from source "
                                  "with TF_CUDA_COMPUTE_CAPABILITIES={}; or replace the GPU."),
                               *newest, x.cc.cc.text(), *newest, *newest, x.cc.cc.text())
               : core::Message(N_("Replace the GPU: no TensorFlow release in the knowledge base has kernels for it."));
    if (newest && core::Version::parse(*newest) && core::Version::parse(*newest)->minor() < 14) {
      fix = core::Message(
          N_("Use TensorFlow {} with CUDA/cuDNN from `tfrig compat --tf {}` (no [and-cuda] extra "
             "before 2.14), or build TF from source with TF_CUDA_COMPUTE_CAPABILITIES={}, or replace the GPU."),
          *newest, *newest, x.cc.cc.text());
    }
    core::Message what =
        x.verdict.support == KernelSupport::kBelowMinimum
            ? core::Message(N_("{} has compute capability {}, below TensorFlow's minimum {}: TF ignores it "
                               "(\"Ignoring visible gpu device\") and runs on the CPU."),
                            u::gpu_label(*x.gpu), x.cc.cc.text(), ctx.k.tf_min_capability())
        : x.verdict.uncertain
            ? core::Message(
                  // TRANSLATORS: {0} the GPU, {1} its compute capability, {2} the release, {3} the kernel detail.
                  N_("{0} has compute capability {1} and {2} probably has no kernels for it ({3}): every GPU op "
                     "would fail with \"no kernel image is available for execution on the device\"; uncertain: "
                     "the knowledge base infers the release's kernel list from build files, and the wheel's "
                     "build_info.py settles it (see the evidence)."),
                  u::gpu_label(*x.gpu), x.cc.cc.text(), ctx.target.label_message(), x.verdict.detail_message)
            : core::Message(N_("{} has compute capability {} and {} has no kernels for it ({}): every GPU op "
                               "fails with \"no kernel image is available for execution on the device\"."),
                            u::gpu_label(*x.gpu), x.cc.cc.text(), ctx.target.label_message(), x.verdict.detail_message);
    c.add(Hit{u::gpu_entity(*x.gpu), what, cc_evidence(ctx, x), fix, {}});
  });
}

Check ptx_jit_only(const Context& ctx) {
  return per_gpu_cc(ctx, [&ctx](Check& c, const CcCheck& x) {
    if (x.verdict.support != KernelSupport::kPtxJit) return;
    // An inferred kernel list: say "probably", name the other candidate's
    // outcome, and how to settle it (the evidence has the command).
    core::Message what =
        !x.verdict.uncertain
            ? core::Message(
                  N_("{} (compute capability {}) has no native kernels in {}: the driver JIT-compiles them from "
                     "{}, so the first start can take 30 minutes or more, and fails if the driver's PTX "
                     "compiler is older than the PTX."),
                  u::gpu_label(*x.gpu), x.cc.cc.text(), ctx.target.label_message(), x.verdict.detail_message)
        : x.verdict.alternative
            ? core::Message(
                  // TRANSLATORS: {0} the GPU, {1} its compute capability, {2} the release, {3} "PTX compute_80 only (JIT)",
                  // {4} the list it follows from, {5} the other candidate's kernels ("sm_80 SASS"), {6} that list.
                  N_("Uncertain: {0} (compute capability {1}) may have no native kernels in {2}: {3} if the wheel carries {4}, "
                     "so the first start would take 30 minutes or more; but {5} (native) if it carries {6}. The knowledge base "
                     "infers the list from build files; the wheel's build_info.py settles it (see the evidence)."),
                  u::gpu_label(*x.gpu), x.cc.cc.text(), ctx.target.label_message(), x.verdict.detail_message,
                  x.verdict.targets, x.verdict.alternative_detail_message, x.verdict.alternative_targets)
            : core::Message(
                  // TRANSLATORS: {0} the GPU, {1} its compute capability, {2} the release, {3} "PTX compute_90 only (JIT)".
                  N_("{0} (compute capability {1}) probably has no native kernels in {2} ({3}), so the first start would take "
                     "30 minutes or more; uncertain: the knowledge base infers the release's kernel list from build files, and "
                     "the wheel's build_info.py settles it (see the evidence)."),
                  u::gpu_label(*x.gpu), x.cc.cc.text(), ctx.target.label_message(), x.verdict.detail_message);
    c.add(
        Hit{u::gpu_entity(*x.gpu),
            what,
            cc_evidence(ctx, x),
            core::Message(
                N_("Keep the JIT cache across runs: `export CUDA_CACHE_MAXSIZE=4294967296` (and a persistent "
                   "CUDA_CACHE_PATH in containers); or use a TF build with native kernels for this GPU (NGC container, "
                   "or build from source with TF_CUDA_COMPUTE_CAPABILITIES={})."),
                x.cc.cc.text()),
            {}});
  });
}

bool datacenter(const Context& ctx, const inventory::Gpu& g) {
  if (auto m = u::gpu_catalog(ctx, g); m && m->spec) return m->spec->segment == "datacenter";
  if (g.name) {
    auto t = core::to_lower(*g.name);
    for (const char* key : {"tesla", "a100", "h100", "h200", "h800", "a800", "a30", "a40", "a10", "l40", " l4", "t4",
                            "b200", "v100", "p100"}) {
      if (t.find(key) != std::string::npos) return true;
    }
  }
  return false;
}

Check persistence_off(const Context& ctx) {
  if (u::gpus(ctx).empty()) return Check::skip(u::no_nvml_gpus_reason(ctx));
  Check c;
  bool known = false;
  for (const auto& g : u::gpus(ctx)) {
    if (!g.persistence_mode) continue;
    known = true;
    if (*g.persistence_mode || !datacenter(ctx, g)) continue;
    c.add(Hit{u::gpu_entity(g),
              core::Message(N_("{} is a datacenter GPU with persistence mode off: the driver tears the GPU down "
                               "whenever no process uses it, so every start pays the re-initialisation."),
                            u::gpu_label(g)),
              {{core::Message(N_("persistence mode")), core::Message(N_("disabled")), u::reported_by(g)}},
              "",
              {}});
  }
  if (!known) return Check::skip(core::Message(N_("persistence mode (NVML did not report it)")));
  return c;
}

Check ecc_disabled(const Context& ctx) {
  if (u::gpus(ctx).empty()) return Check::skip(u::no_nvml_gpus_reason(ctx));
  Check c;
  bool known = false;
  for (const auto& g : u::gpus(ctx)) {
    if (!g.ecc_mode_current) continue;  // null: the card has no ECC (NVML: not supported)
    known = true;
    if (*g.ecc_mode_current) continue;
    core::Message pending = g.ecc_mode_pending ? (*g.ecc_mode_pending ? core::Message(N_("enabled (after reboot)"))
                                                                      : core::Message(N_("disabled")))
                                               : core::Message(N_("unknown"));
    c.add(
        Hit{u::gpu_entity(g),
            core::Message(N_("{} supports ECC but runs with it off: memory bit errors go undetected in long runs."),
                          u::gpu_label(g)),
            {{core::Message(N_("ECC mode (current)")), core::Message(N_("disabled")), u::reported_by(g)},
             {core::Message(N_("ECC mode (pending)")), pending, u::reported_by(g)}},
            core::Message(N_("`sudo nvidia-smi -i {} -e 1` then reboot (costs a few % of memory bandwidth)."), g.index),
            {}});
  }
  if (!known) return Check::skip(core::Message(N_("ECC mode (NVML did not report it; the card may have no ECC)")));
  return c;
}

Check memory_errors(const Context& ctx) {
  if (u::gpus(ctx).empty()) return Check::skip(u::no_nvml_gpus_reason(ctx));
  const auto limit = static_cast<uint64_t>(ctx.k.number("retired_pages_max", 63));
  Check c;
  bool known = false;
  for (const auto& g : u::gpus(ctx)) {
    if (!g.retired_pages_pending && !g.retired_pages_count && !g.remapped_rows_pending && !g.remapped_rows_failure)
      continue;
    known = true;
    std::vector<Evidence> ev;
    core::Message why;
    if (g.retired_pages_pending.value_or(false))
      why = core::Message(N_("page retirement is pending (needs a GPU reset or reboot)"));
    if (g.remapped_rows_pending.value_or(false))
      why = core::Message(N_("a row remap is pending (needs a GPU reset or reboot)"));
    if (g.remapped_rows_failure.value_or(false))
      why = core::Message(N_("a row remap failed: the GPU memory is failing"));
    if (g.retired_pages_count && *g.retired_pages_count >= limit) {
      why = core::Message(N_("{} retired pages, at or above DCGM's limit {}"), *g.retired_pages_count, limit);
    }
    if (why.empty()) continue;
    if (g.retired_pages_count)
      ev.push_back({core::Message(N_("retired pages")), std::to_string(*g.retired_pages_count), u::reported_by(g)});
    if (g.retired_pages_pending)
      ev.push_back({core::Message(N_("retirement pending")), u::yes_no(*g.retired_pages_pending), u::reported_by(g)});
    if (g.remapped_rows_pending)
      ev.push_back({core::Message(N_("row remap pending")), u::yes_no(*g.remapped_rows_pending), u::reported_by(g)});
    if (g.remapped_rows_failure)
      ev.push_back({core::Message(N_("row remap failure")), u::yes_no(*g.remapped_rows_failure), u::reported_by(g)});
    // TRANSLATORS: {0} is a GPU ("GPU 0 (NVIDIA A100)"), {1} one of the reasons above.
    c.add(Hit{u::gpu_entity(g), core::Message(N_("{0}: {1}."), u::gpu_label(g), why), ev, "", {}});
  }
  if (!known) return Check::skip(core::Message(N_("retired pages / remapped rows (NVML did not report them)")));
  return c;
}

Check mig_enabled(const Context& ctx) {
  if (u::gpus(ctx).empty()) return Check::skip(u::no_nvml_gpus_reason(ctx));
  Check c;
  bool known = false;
  for (const auto& g : u::gpus(ctx)) {
    if (!g.mig_mode_current) continue;
    known = true;
    if (!*g.mig_mode_current) continue;
    c.add(Hit{
        u::gpu_entity(g),
        core::Message(N_("{} is in MIG mode: CUDA (and TensorFlow) see only MIG instances, one per process "
                         "(the first visible one), never the whole GPU."),
                      u::gpu_label(g)),
        {{core::Message(N_("MIG mode (current)")), core::Message(N_("enabled")), u::reported_by(g)}},
        core::Message(N_("To train on the whole GPU: `sudo nvidia-smi -i {} -mig 0` (then reset the GPU). To use one "
                         "instance: `export CUDA_VISIBLE_DEVICES=MIG-<uuid>` (list them with `nvidia-smi -L`)."),
                      g.index),
        {}});
  }
  if (!known) return Check::skip(core::Message(N_("MIG mode (NVML did not report it)")));
  return c;
}

Check memory_in_use(const Context& ctx) {
  if (u::gpus(ctx).empty()) return Check::skip(u::no_nvml_gpus_reason(ctx));
  Check c;
  bool known = false;
  for (const auto& g : u::gpus(ctx)) {
    if (!g.process_count && !g.process_memory_bytes) continue;
    known = true;
    if (g.process_count.value_or(0) == 0 && g.process_memory_bytes.value_or(0) == 0) continue;
    std::vector<Evidence> ev;
    if (g.process_count)
      ev.push_back({core::Message(N_("other processes")), std::to_string(*g.process_count), u::reported_by(g)});
    if (g.process_memory_bytes)
      ev.push_back({core::Message(N_("memory they hold")), u::bytes(*g.process_memory_bytes), u::reported_by(g)});
    c.add(Hit{u::gpu_entity(g),
              core::Message(N_("{} already has memory held by other processes: TensorFlow maps nearly all GPU memory "
                               "at start and fails (CUDNN_STATUS_INTERNAL_ERROR, OOM) when it cannot."),
                            u::gpu_label(g)),
              ev,
              "",
              {}});
  }
  if (!known) return Check::skip(core::Message(N_("GPU processes (NVML did not report them)")));
  return c;
}

Check pcie_link_downgraded(const Context& ctx) {
  Check c;
  bool known = false;
  for (const auto& g : u::gpus(ctx)) {
    if (g.pcie_link_width_current && g.pcie_link_width_max) {
      known = true;
      if (*g.pcie_link_width_current < *g.pcie_link_width_max) {
        c.add(Hit{u::gpu_entity(g),
                  core::Message(N_("{} runs its PCIe link at x{} of x{}: host-device copies get {}% of the bandwidth."),
                                u::gpu_label(g), *g.pcie_link_width_current, *g.pcie_link_width_max,
                                100 * *g.pcie_link_width_current / *g.pcie_link_width_max),
                  {{core::Message(N_("link width (current / max)")),
                    fmt::format("x{} / x{}", *g.pcie_link_width_current, *g.pcie_link_width_max), u::reported_by(g)}},
                  "",
                  {}});
      }
    }
    if (g.pcie_link_gen_current && g.pcie_link_gen_max) {
      known = true;
      if (*g.pcie_link_gen_current < *g.pcie_link_gen_max) {
        c.add(
            Hit{u::gpu_entity(g),
                core::Message(N_("{} runs PCIe gen {} of gen {}. Idle GPUs lower the link generation to save power, so "
                                 "this matters only if it stays low under load."),
                              u::gpu_label(g), *g.pcie_link_gen_current, *g.pcie_link_gen_max),
                {{core::Message(N_("link generation (current / max)")),
                  fmt::format("{} / {}", *g.pcie_link_gen_current, *g.pcie_link_gen_max), u::reported_by(g)}},
                core::Message(
                    N_("Check under load: `nvidia-smi -q -d PCIE` while training; if it stays low, reseat the card, "
                       "check the BIOS PCIe speed setting and riser cables.")),
                Severity::kInfo});
      }
    }
  }
  if (u::gpus(ctx).empty()) {
    for (const auto* d : u::pci_gpus(ctx)) {
      if (!d->link_width_current || !d->link_width_max) continue;
      known = true;
      if (*d->link_width_current < *d->link_width_max) {
        c.add(Hit{d->address,
                  core::Message(N_("The GPU at {} has its PCIe link at x{} of x{}."), d->address,
                                *d->link_width_current, *d->link_width_max),
                  {{core::Message(N_("link width (current / max)")),
                    fmt::format("x{} / x{}", *d->link_width_current, *d->link_width_max),
                    "/sys/bus/pci/devices/" + d->address + "/current_link_width"}},
                  "",
                  {}});
      }
    }
  }
  if (!known)
    return Check::skip(u::gpu_count(ctx) ? core::Message(N_("PCIe link state of the GPUs"))
                                         : core::Message(N_("an NVIDIA GPU (none found)")));
  return c;
}

Check no_p2p(const Context& ctx) {
  const int n = static_cast<int>(u::gpus(ctx).size());
  if (n == 0)
    return Check::skip(u::gpu_count(ctx) ? core::Message(N_("GPUs read by NVML"))
                                         : core::Message(N_("an NVIDIA GPU (none found)")));
  if (n < 2) return Check::pass();
  if (ctx.inv.gpu_topology.empty())
    return Check::skip(core::Message(N_("GPU topology (NVML did not report P2P status)")));
  bool any_fast = false;
  int pairs = 0;
  for (const auto& p : ctx.inv.gpu_topology) {
    ++pairs;
    if (p.nvlink.value_or(false) || p.p2p_read.value_or(false)) any_fast = true;
  }
  if (any_fast) return Check::pass();
  Check c;
  c.add(Hit{"host",
            core::Message(N_("{} GPUs and no pair joined by NVLink or PCIe peer-to-peer: every gradient all-reduce "
                             "goes through host memory, so data-parallel training scales poorly."),
                          n),
            {{core::Message(N_("GPU pairs with NVLink or P2P")), core::Message(N_("0 of {}"), pairs),
              core::Message(N_("NVML topology / P2P status"))}},
            "",
            {}});
  return c;
}

// Whether TensorFlow can use the GPU at all.
std::vector<Rule> gpu_support_rules() {
  return {
      {"gpu.no_gpu",
       "gpu",
       Severity::kError,
       N_("No NVIDIA GPU: TensorFlow runs on the CPU"),
       N_("NVIDIA display/3D controllers on the PCI bus and GPUs seen by NVML."),
       N_("TensorFlow's GPU support is CUDA only; without an NVIDIA GPU it silently runs on the CPU (docs/guide.md: the GPU is "
          "the core of a TF server)."),
       N_("Run on a machine with an NVIDIA GPU, or pass one through to this VM/container (`docker run --gpus all`)."),
       {"https://www.tensorflow.org/install/pip#hardware_requirements"},
       no_gpu},
      {"gpu.compute_capability_unsupported",
       "gpu",
       Severity::kError,
       N_("TensorFlow has no kernels for this GPU"),
       N_("Each GPU's compute capability against TF's minimum (3.5) and the SASS/PTX the target release's wheels carry."),
       N_("Below the minimum TF ignores the GPU; with neither matching SASS nor usable PTX every op fails with \"no "
          "kernel image is available\" (tensorflow/tensorflow gpu_device.cc; the compute capabilities in the TSL .bazelrc)."),
       N_("Use the newest TF release with kernels for the GPU (`tfrig compat --gpu NAME`), build TF from source for its "
          "capability, or replace the GPU."),
       {"https://www.tensorflow.org/install/pip#hardware_requirements", "https://developer.nvidia.com/cuda-gpus"},
       cc_unsupported},
      {"gpu.ptx_jit_only",
       "gpu",
       Severity::kWarning,
       N_("Only PTX for this GPU: slow JIT at first start"),
       N_("Whether the target TF wheel has native SASS for the GPU's capability or only PTX of an older one."),
       N_("TF logs \"CUDA kernels will be jit-compiled from PTX, which could take 30 minutes or longer\" "
          "(gpu_device.cc; tensorflow/docs gpu.md)."),
       N_("`export CUDA_CACHE_MAXSIZE=4294967296` so the JIT runs once; or use a build with native kernels."),
       {"https://github.com/tensorflow/tensorflow/issues/89272"},
       ptx_jit_only},
  };
}

// How the GPU is set up and what state it is in.
std::vector<Rule> gpu_state_rules() {
  return {
      {"gpu.persistence_off",
       "gpu",
       Severity::kWarning,
       N_("Persistence mode off on a datacenter GPU"),
       N_("NVML persistence mode of datacenter GPUs (catalog segment)."),
       N_("Without a persistent client the driver re-initialises the GPU on every start (NVIDIA Driver Persistence doc; "
          "DCGM DCGM_FR_PERSISTENCE_MODE)."),
       N_("`sudo systemctl enable --now nvidia-persistenced` (or `sudo nvidia-smi -pm 1`)."),
       {"https://docs.nvidia.com/deploy/driver-persistence/index.html"},
       persistence_off},
      {"gpu.ecc_disabled",
       "gpu",
       Severity::kWarning,
       N_("ECC off on an ECC-capable GPU"),
       N_("NVML current ECC mode on GPUs that support ECC."),
       N_("The configuration guide's (docs/guide.md) reason to pay for professional cards is ECC for 24/7 runs; off, bit errors corrupt training "
          "silently."),
       N_("`sudo nvidia-smi -e 1` then reboot."),
       {"https://docs.nvidia.com/deploy/nvidia-smi/index.html"},
       ecc_disabled},
      {"gpu.retired_pages_pending",
       "gpu",
       Severity::kError,
       N_("GPU memory repair pending or failed"),
       N_("NVML retired pages (count, pending) and remapped rows (pending, failure)."),
       N_("DCGM's software plugin fails a GPU with pending retirement, a failed or pending row remap, or >= 63 retired "
          "pages (NVIDIA/DCGM nvvs/src/Software.cpp)."),
       N_("Reset the GPU (`sudo nvidia-smi -r -i N`) or reboot to apply pending repairs; a failed remap or too many "
          "retired pages means RMA the card."),
       {"https://docs.nvidia.com/deploy/dynamic-page-retirement/index.html"},
       memory_errors},
      {"gpu.mig_enabled",
       "gpu",
       Severity::kWarning,
       N_("MIG mode on: TensorFlow sees one MIG instance"),
       N_("NVML current MIG mode."),
       N_("With MIG on, CUDA enumerates MIG instances, not the GPU; a process uses one instance."),
       N_("`sudo nvidia-smi -i N -mig 0` for the whole GPU, or `CUDA_VISIBLE_DEVICES=MIG-<uuid>` per process."),
       {"https://docs.nvidia.com/datacenter/tesla/mig-user-guide/"},
       mig_enabled},
      {"gpu.memory_in_use",
       "gpu",
       Severity::kWarning,
       N_("Another process holds GPU memory"),
       N_("NVML compute/graphics processes other than tfrig and the memory they hold."),
       N_("TF pre-allocates nearly all GPU memory; a busy GPU gives CUDNN_STATUS_INTERNAL_ERROR or OOM "
          "(tensorflow/tensorflow#24828; DCGM 'Graphics Processes')."),
       N_("Stop the other process (`nvidia-smi` lists them), or `export TF_FORCE_GPU_ALLOW_GROWTH=true`."),
       {"https://github.com/tensorflow/tensorflow/issues/24828"},
       memory_in_use},
      {"gpu.pcie_link_downgraded",
       "gpu",
       Severity::kWarning,
       N_("GPU PCIe link below its maximum"),
       N_("Current against maximum PCIe link width and generation (NVML, else sysfs)."),
       N_("A narrower link cuts host-to-GPU bandwidth, which feeds every batch (docs/guide.md: x16 per GPU)."),
       N_("Reseat the card in an x16 slot, check risers and the BIOS PCIe settings; recheck under load."),
       {"https://docs.nvidia.com/deploy/nvidia-smi/index.html"},
       pcie_link_downgraded},
      {"gpu.no_p2p_multi_gpu",
       "gpu",
       Severity::kWarning,
       N_("Several GPUs without NVLink or P2P"),
       N_("NVML topology: NVLink and P2P read status of every GPU pair."),
       N_("The configuration guide (docs/guide.md): in multi-GPU training PCIe becomes the bottleneck; prefer NVLink. Without P2P, NCCL copies "
          "through host memory."),
       N_("Use NVLink-bridged or SXM GPUs for data-parallel training; check ACS/IOMMU (`sudo lspci -vvv | grep "
          "ACSCtl`, NCCL troubleshooting) if P2P should work."),
       {"https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/troubleshooting.html"},
       no_p2p},
  };
}

}  // namespace

std::vector<Rule> gpu_rules() {
  std::vector<Rule> all = gpu_support_rules();
  for (auto& r : gpu_state_rules()) all.push_back(std::move(r));
  return all;
}

}  // namespace tfrig::rules

// CPU rules: the instructions TF wheels need, and enough cores to feed the GPUs.
#include <fmt/format.h>

#include "core/i18n.h"
#include "core/text.h"
#include "rules/areas.h"
#include "rules/util.h"

namespace tfrig::rules {

namespace {

namespace u = util;

Check no_avx(const Context& ctx) {
  const auto& arch = ctx.inv.host.architecture;
  if (arch && *arch != "x86_64") return Check::pass();  // the AVX requirement is for x86 wheels
  if (!ctx.inv.cpu.flags.avx) return Check::skip(core::Message(N_("CPU flags (/proc/cpuinfo)")));
  if (*ctx.inv.cpu.flags.avx) return Check::pass();
  Check c;
  c.add(Hit{
      "host",
      core::Message(N_("The CPU has no AVX: the official TensorFlow wheels use AVX and die at import with \"Illegal "
                       "instruction (core dumped)\".")),
      {{"avx", core::Message(N_("no")), core::Message(N_("/proc/cpuinfo flags"))},
       {"CPU", u::or_text(ctx.inv.cpu.model_name, core::Message(N_("unknown"))), "/proc/cpuinfo"}},
      "",
      {}});
  return c;
}

Check cores_multi_gpu(const Context& ctx) {
  const int gpus = u::gpu_count(ctx);
  if (gpus == 0) return Check::skip(core::Message(N_("an NVIDIA GPU (none found)")));
  if (gpus < 2) return Check::pass();
  const auto& cpu = ctx.inv.cpu;
  if (!cpu.physical_cores && !cpu.threads) return Check::skip(core::Message(N_("CPU core and thread counts")));
  const int min_cores = static_cast<int>(ctx.k.number("multi_gpu_min_cores", 16));
  const int min_threads = static_cast<int>(ctx.k.number("multi_gpu_min_threads", 32));
  const bool few =
      (cpu.physical_cores && *cpu.physical_cores < min_cores) || (cpu.threads && *cpu.threads < min_threads);
  if (!few) return Check::pass();
  Check c;
  c.add(Hit{
      "host",
      core::Message(
          N_("{} GPUs fed by {} cores / {} threads: the configuration guide (docs/guide.md) asks for at least {} cores / {} threads on a "
             "multi-GPU server, or input preprocessing starves the GPUs."),
          gpus, cpu.physical_cores ? std::to_string(*cpu.physical_cores) : "?",
          cpu.threads ? std::to_string(*cpu.threads) : "?", min_cores, min_threads),
      {{core::Message(N_("physical cores")),
        cpu.physical_cores ? Text(std::to_string(*cpu.physical_cores)) : Text(core::Message(N_("unknown"))),
        "/sys/devices/system/cpu"},
       {core::Message(N_("threads")),
        cpu.threads ? Text(std::to_string(*cpu.threads)) : Text(core::Message(N_("unknown"))), "/proc/cpuinfo"},
       {core::Message(N_("minimum for multi-GPU")), core::Message(N_("{} cores / {} threads"), min_cores, min_threads),
        u::knowledge_source("thresholds.json", "guide")}},
      "",
      {}});
  return c;
}

Check cores_per_gpu(const Context& ctx) {
  const int gpus = u::gpu_count(ctx);
  if (gpus == 0) return Check::skip(core::Message(N_("an NVIDIA GPU (none found)")));
  if (!ctx.inv.cpu.physical_cores) return Check::skip(core::Message(N_("physical core count")));
  const int per = static_cast<int>(ctx.k.number("cores_per_gpu_min", 4));
  const int cores = *ctx.inv.cpu.physical_cores;
  if (cores >= per * gpus) return Check::pass();
  const auto* f = ctx.k.fact("cores_per_gpu_min");
  Check c;
  c.add(Hit{"host",
            core::Message(N_("{} physical cores for {} GPU(s): fewer than {} per GPU for decoding and augmentation; an "
                             "image pipeline will likely be CPU-bound (GPU idle while the CPU is at 100%)."),
                          cores, gpus, per),
            {{core::Message(N_("physical cores")), std::to_string(cores), "/sys/devices/system/cpu"},
             {core::Message(N_("cores per GPU wanted")),
              u::uncertain_value(std::to_string(per), f && f->uncertain, core::Message(N_("rule of thumb"))),
              u::knowledge_source("thresholds.json", "guide")}},
            "",
            {}});
  return c;
}

}  // namespace

std::vector<Rule> cpu_rules() {
  return {
      {"cpu.no_avx",
       "cpu",
       Severity::kError,
       N_("CPU without AVX: TensorFlow wheels crash at import"),
       N_("The avx flag of an x86_64 CPU."),
       N_("Official TF wheels are built with AVX; without it importing TF ends in \"Illegal instruction\"."),
       N_("Run on a CPU with AVX (every x86 server CPU since 2011), or build TensorFlow from source without AVX."),
       {"https://www.tensorflow.org/install/pip#hardware_requirements"},
       no_avx},
      {"cpu.cores_below_multi_gpu",
       "cpu",
       Severity::kWarning,
       N_("Too few cores for a multi-GPU server"),
       N_("Physical cores and threads when there are two or more GPUs."),
       N_("The configuration guide (docs/guide.md): at least 16 cores / 32 threads (Xeon or EPYC) so preprocessing keeps several GPUs busy."),
       N_("Use a CPU with at least 16 cores / 32 threads, or move preprocessing offline (TFRecord shards of decoded, "
          "resized data)."),
       {},
       cores_multi_gpu},
      {"cpu.cores_per_gpu_low",
       "cpu",
       Severity::kWarning,
       N_("Fewer cores per GPU than data loading needs"),
       N_("Physical cores per GPU against 4 (a rule of thumb, marked uncertain)."),
       N_("The configuration guide's Q&A (docs/guide.md): GPU at 0% and CPU at 100% is a CPU-bound input pipeline; each GPU needs cores for decode "
          "and augmentation."),
       N_("Use tf.data with `num_parallel_calls=tf.data.AUTOTUNE`, `prefetch` and `interleave`; cache decoded data; "
          "or a CPU with more cores (`tfrig pipeline` measures it)."),
       {"https://www.tensorflow.org/guide/data_performance"},
       cores_per_gpu},
  };
}

}  // namespace tfrig::rules

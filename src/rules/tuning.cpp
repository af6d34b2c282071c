// Tuning advice (info): mixed precision for this GPU, XLA, allocator and
// thread-mode environment variables, each with the exact line to add.
#include <fmt/format.h>

#include "core/i18n.h"
#include "rules/areas.h"
#include "rules/util.h"

namespace tfrig::rules {

namespace {

namespace u = util;
using core::Version;

Check mixed_precision(const Context& ctx) {
  if (u::gpus(ctx).empty())
    return Check::skip(u::gpu_count(ctx) ? core::Message(N_("GPU compute capability (NVML could not read the GPUs)"))
                                         : core::Message(N_("an NVIDIA GPU (none found)")));
  std::optional<u::GpuCc> lowest;
  const inventory::Gpu* which = nullptr;
  for (const auto& g : u::gpus(ctx)) {
    auto cc = u::gpu_cc(ctx, g);
    if (!cc) return Check::skip(core::Message(N_("compute capability of {}"), u::gpu_label(g)));
    if (!lowest || cc->cc < lowest->cc) {
      lowest = cc;
      which = &g;
    }
  }
  const auto f16 = *Version::parse(ctx.k.text("mixed_float16_min_cc", "7.0"));
  const auto bf16 = *Version::parse(ctx.k.text("mixed_bfloat16_min_cc", "8.0"));
  Check c;
  std::vector<Evidence> ev{{core::Message(N_("compute capability")),
                            core::Message(N_("{0} ({1})"), lowest->cc.text(), u::gpu_label(*which)), lowest->source},
                           {core::Message(N_("Tensor Core thresholds")),
                            "mixed_float16 >= " + f16.text() + ", mixed_bfloat16 >= " + bf16.text(),
                            u::knowledge_source("thresholds.json", "tuning-mixed-precision")}};
  if (lowest->cc >= bf16) {
    c.add(Hit{
        "host",
        core::Message(N_("The GPUs have Tensor Cores with bfloat16 (compute capability {}): mixed precision roughly "
                         "halves activation memory and speeds up matmul/conv; bfloat16 needs no loss scaling."),
                      lowest->cc.text()),
        ev,
        core::Message(
            N_("Add at program start: `tf.keras.mixed_precision.set_global_policy('mixed_bfloat16')` (or "
               "'mixed_float16'; keep the last layer float32: `layers.Activation('softmax', dtype='float32')`).")),
        {}});
  } else if (lowest->cc >= f16) {
    c.add(Hit{
        "host",
        core::Message(
            N_("The GPUs have fp16 Tensor Cores (compute capability {}): mixed_float16 gives 2-3x on "
               "matmul/conv and halves activation memory (https://www.tensorflow.org/guide/mixed_precision; docs/guide.md)."),
            lowest->cc.text()),
        ev,
        core::Message(
            N_("Add at program start: `tf.keras.mixed_precision.set_global_policy('mixed_float16')` (Model.fit scales "
               "the loss; custom loops wrap the optimizer in LossScaleOptimizer).")),
        {}});
  }
  // Below 7.0 there are no Tensor Cores: float32 stays the right policy, nothing to advise.
  return c;
}

Check xla(const Context& ctx) {
  if (u::gpus(ctx).empty())
    return Check::skip(u::gpu_count(ctx) ? core::Message(N_("GPU compute capability (NVML could not read the GPUs)"))
                                         : core::Message(N_("an NVIDIA GPU (none found)")));
  // Offered where the tuning of docs/guide.md applies: Tensor Core GPUs (CC >= 7.0).
  bool tensor_cores = false;
  for (const auto& g : u::gpus(ctx)) {
    auto cc = u::gpu_cc(ctx, g);
    if (!cc) return Check::skip(core::Message(N_("compute capability of {}"), u::gpu_label(g)));
    if (cc->cc >= *Version::parse("7.0")) tensor_cores = true;
  }
  if (!tensor_cores) return Check::pass();
  Check c;
  c.add(Hit{
      "host",
      core::Message(
          N_("XLA auto-clustering fuses ops and cuts memory traffic (about 1.15x on most internal benchmarks, more on "
             "Transformers); it recompiles for every new input shape.")),
      {{"TF_XLA_FLAGS", "--tf_xla_auto_jit=2", u::knowledge_source("thresholds.json", "tuning-xla")}},
      core::Message(
          N_("`export TF_XLA_FLAGS=--tf_xla_auto_jit=2` (or `@tf.function(jit_compile=True)` on the train step); use "
             "fixed or bucketed input shapes.")),
      {}});
  return c;
}

Check gpu_env(const Context& ctx) {
  if (u::gpu_count(ctx) == 0) return Check::skip(core::Message(N_("an NVIDIA GPU (none found)")));
  const auto min_cuda = *Version::parse(ctx.k.text("cuda_malloc_async_min_cuda", "11.2"));
  std::optional<Version> cuda;
  if (ctx.target.build) cuda = Version::parse(ctx.target.build->cuda);
  if (!cuda) return Check::skip(core::Message(N_("the CUDA version of {}"), ctx.target.label_message()));
  // The stream-ordered allocator needs CUDA >= 11.2 (TF >= 2.5); older targets get no advice.
  if (*cuda < min_cuda) return Check::pass();
  const core::Message lines(
      N_("`export TF_GPU_ALLOCATOR=cuda_malloc_async` (less fragmentation); "
         "`export TF_GPU_THREAD_MODE=gpu_private` (dedicated launch threads when tf.data competes for the CPU); "
         "`export TF_FORCE_GPU_ALLOW_GROWTH=true` when other processes share the GPU."));
  Check c;
  c.add(Hit{
      "host",
      core::Message(
          N_("Environment variables that help a GPU training job: the stream-ordered allocator, private GPU threads, "
             "and memory growth on shared GPUs.")),
      {{core::Message(N_("CUDA of {}"), ctx.target.label_message()),
        cuda ? Text(cuda->text()) : Text(core::Message(N_("unknown"))), u::knowledge_source("tf_builds.json", "")},
       {core::Message(N_("cuda_malloc_async needs CUDA")), ">= " + min_cuda.text(),
        u::knowledge_source("thresholds.json", "tuning-env")}},
      lines,
      {}});
  return c;
}

}  // namespace

std::vector<Rule> tuning_rules() {
  return {
      {"tuning.mixed_precision",
       "tuning",
       Severity::kInfo,
       N_("Mixed precision policy for this GPU"),
       N_("The lowest compute capability among the GPUs against 7.0 (fp16 Tensor Cores) and 8.0 (bf16); silent below 7.0 (no Tensor Cores: keep float32)."),
       N_("The configuration guide (docs/guide.md): mixed_float16 on Tensor Core GPUs (Volta, Turing, Ampere+) gives 2-3x and half the memory; bf16 "
          "needs CC >= 8.0 (NVIDIA Transformer Engine support matrix; tensorflow.org/guide/mixed_precision)."),
       N_("`tf.keras.mixed_precision.set_global_policy('mixed_float16')` (7.x) or 'mixed_bfloat16' (8.0+)."),
       {"https://www.tensorflow.org/guide/mixed_precision"},
       mixed_precision},
      {"tuning.xla_auto_jit",
       "tuning",
       Severity::kInfo,
       N_("XLA auto-clustering"),
       N_("Offered on machines with Tensor Core GPUs (compute capability >= 7.0), where the tuning of the configuration guide (docs/guide.md) applies."),
       N_("The configuration guide (docs/guide.md): TF_XLA_FLAGS=--tf_xla_auto_jit=2 fuses the graph, good for Transformers (openxla.org tf2xla)."),
       N_("`export TF_XLA_FLAGS=--tf_xla_auto_jit=2`."),
       {"https://openxla.org/xla/tf2xla"},
       xla},
      {"tuning.gpu_env",
       "tuning",
       Severity::kInfo,
       N_("GPU allocator and thread-mode environment"),
       N_("Offered on GPU machines whose target TF was built with CUDA >= 11.2 (cuda_malloc_async's minimum)."),
       N_("TF_GPU_ALLOCATOR=cuda_malloc_async, TF_GPU_THREAD_MODE=gpu_private, TF_FORCE_GPU_ALLOW_GROWTH "
          "(tensorflow gpu_performance_analysis.md, gpu_cudamallocasync_allocator.cc)."),
       N_("The `export` lines in the finding."),
       {"https://www.tensorflow.org/guide/gpu_performance_analysis"},
       gpu_env},
  };
}

}  // namespace tfrig::rules

#include "pipeline/advice.h"

#include <algorithm>
#include <optional>

#include <fmt/format.h>

#include "core/i18n.h"
#include "core/message.h"

namespace tfrig::pipeline {
namespace {

constexpr const char* kDataPerf = "https://www.tensorflow.org/guide/data_performance";
constexpr const char* kTfRecordTutorial = "https://www.tensorflow.org/tutorials/load_data/tfrecord";
constexpr const char* kMixed = "https://www.tensorflow.org/guide/mixed_precision";

using core::verbatim;

// What to do about one stage that gives the GPU less than it consumes;
// nullopt for a stage without advice of its own.
std::optional<Advice> short_stave_advice(const Stage& s, const core::Message& problem, bool input_is_tfrecord) {
  if (s.name == kStorage) {
    if (input_is_tfrecord) {
      return Advice{
          s.name, problem,
          core::Message(N_(
              "read several shards at once and keep reads ahead of the GPU; if the disk itself is at its limit, "
              "cache() the data in RAM when it fits or move it to faster storage (NVMe, or 10/25 GbE network storage "
              "as in the case study of docs/guide.md)")),
          verbatim("ds = tf.data.Dataset.from_tensor_slices(shards).interleave(lambda f: tf.data.TFRecordDataset(f, "
                   "buffer_size=8 << 20), cycle_length=16, num_parallel_calls=tf.data.AUTOTUNE, deterministic=False)"),
          core::Message(N_("{0} (parallelize data extraction; best practice summary)"), kDataPerf)};
    } else {
      return Advice{
          s.name, problem,
          core::Message(
              N_("stop reading millions of small files one by one: pack them into TFRecord shards of 100 MB or more "
                 "(tfrig pack DIR -o SHARDS) and interleave the shards; until then read files in parallel; "
                 "cache() in RAM when the dataset fits")),
          core::Message(
              // TRANSLATORS: Python code; translate only the comment after "#".
              N_("ds = tf.data.Dataset.from_tensor_slices(tf.io.gfile.glob('SHARDS/*.tfrecord')).interleave("
                 "tf.data.TFRecordDataset, num_parallel_calls=tf.data.AUTOTUNE, deterministic=False)  # was: "
                 "files.map(tf.io.read_file)")),
          core::Message(N_("{0} (shards >= 10 MB, ideally >= 100 MB); {1}; docs/guide.md (small-file case study)"),
                        kTfRecordTutorial, kDataPerf)};
    }
  } else if (s.name == kDecode) {
    return Advice{
        s.name, problem,
        core::Message(
            N_("decode and augment on every core in parallel (AUTOTUNE), decode only the crop, and add cores if that "
               "is not enough (tfrig pipeline's more-cores what-if says how many); cache() after decode if the "
               "decoded data fits in RAM")),
        core::Message(
            // TRANSLATORS: Python code; translate only the comment after "#".
            N_("ds = ds.map(parse_and_augment, num_parallel_calls=tf.data.AUTOTUNE, deterministic=False)  # with "
               "tf.io.decode_and_crop_jpeg instead of tf.io.decode_jpeg + crop")),
        core::Message(N_("{0} (parallelize data transformation; cache); docs/guide.md (GPU 0% with CPU 100%)"),
                      kDataPerf)};
  } else if (s.name == kHostMemory) {
    return Advice{
        s.name, problem,
        core::Message(N_(
            "copy less: batch uint8 images and cast/normalise on the GPU (4x fewer bytes than float32), and vectorise "
            "the map by batching first")),
        core::Message(
            // TRANSLATORS: Python code; translate only the comment after "#".
            N_("ds = ds.batch(B).map(augment_batch, num_parallel_calls=tf.data.AUTOTUNE)  # return tf.uint8; "
               "normalise in the model")),
        core::Message(N_("{0} (vectorizing mapping)"), kDataPerf)};
  } else if (s.name == kHostToDevice) {
    return Advice{
        s.name, problem,
        core::Message(
            N_("send uint8 instead of float32 and prefetch to the GPU so copies overlap compute; check the link runs "
               "at full width and generation (tfrig doctor)")),
        verbatim("ds = ds.apply(tf.data.experimental.prefetch_to_device('/gpu:0'))"),
        verbatim("https://www.tensorflow.org/api_docs/python/tf/data/experimental/prefetch_to_device")};
  }
  return std::nullopt;
}

}  // namespace

std::vector<Advice> advise(const Barrel& b, bool input_is_tfrecord) {
  std::vector<Advice> out;
  std::vector<const Stage*> short_staves;
  for (const Stage& s : b.stages) {
    if (s.name != kGpu && s.samples_per_s > 0 && s.samples_per_s < b.gpu_demand) short_staves.push_back(&s);
  }
  std::sort(short_staves.begin(), short_staves.end(),
            [](const Stage* x, const Stage* y) { return x->samples_per_s < y->samples_per_s; });
  for (const Stage* s : short_staves) {
    // TRANSLATORS: {0} a stage of the data pipeline, {1} its samples/s, {2} its share of the GPU's demand {3}.
    const core::Message problem(N_("{0} gives {1:.0f} samples/s, {2:.0f}% of what the GPU consumes ({3:.0f}/s)"),
                                stage_message(s->name), s->samples_per_s, share_of_demand(b, *s) * 100, b.gpu_demand);
    if (auto advice = short_stave_advice(*s, problem, input_is_tfrecord)) out.push_back(std::move(*advice));
  }
  if (b.bottleneck == kGpu && b.gpu_demand > 0) {
    out.push_back(
        {kGpu, core::Message(N_("every input stave keeps up: the GPU sets the pace, as it should")),
         core::Message(
             N_("make the GPU itself faster: mixed precision on Tensor Core GPUs (2-3x, docs/guide.md) and XLA")),
         verbatim("tf.keras.mixed_precision.set_global_policy('mixed_float16'); model.compile(..., jit_compile=True)"),
         verbatim(fmt::format("{}; https://openxla.org/xla/tf2xla", kMixed))});
  }
  out.push_back(
      {"all", core::Message(N_("the barrel assumes every stage runs at once")),
       core::Message(
           N_("end the pipeline with prefetch so input and training overlap (step time becomes max(input, train) "
              "instead of their sum)")),
       verbatim("ds = ds.prefetch(tf.data.AUTOTUNE)"), core::Message(N_("{0} (prefetching)"), kDataPerf)});
  return out;
}

}  // namespace tfrig::pipeline

// Advice: each short stave tied to the fix the configuration guide
// (docs/guide.md) and TensorFlow's tf.data performance guides
// (https://www.tensorflow.org/guide/data_performance, .../data_performance_analysis)
// give, with the line of tf.data code to change.
#pragma once

#include <string>
#include <vector>

#include "core/message.h"
#include "pipeline/barrel.h"

namespace tfrig::pipeline {

// Its texts are messages, rendered by each output in its language.
struct Advice {
  std::string stage;      // the stave it fixes
  core::Message problem;  // what the numbers say
  core::Message fix;      // what to do
  core::Message code;     // the tf.data / Keras line
  core::Message source;   // where the fix is documented
};

// Advice for every input stave shorter than the GPU's demand (shortest
// first), then for the GPU itself when it is the shortest, then prefetch.
std::vector<Advice> advise(const Barrel& b, bool input_is_tfrecord);

}  // namespace tfrig::pipeline

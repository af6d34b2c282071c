// Advice: each short stave tied to the fix the guide (../shared/seed/),
// TensorFlow's tf.data performance guide and
// ../shared/reference/tuning_and_setup.md section 4 give, with the line of
// tf.data code to change.
#pragma once

#include <string>
#include <vector>

#include "pipeline/barrel.h"

namespace tfrig::pipeline {

struct Advice {
  std::string stage;    // the stave it fixes
  std::string problem;  // what the numbers say
  std::string fix;      // what to do
  std::string code;     // the tf.data / Keras line
  std::string source;   // where the fix is documented
};

// Advice for every input stave shorter than the GPU's demand (shortest
// first), then for the GPU itself when it is the shortest, then prefetch.
std::vector<Advice> advise(const Barrel& b, bool input_is_tfrecord);

}  // namespace tfrig::pipeline

// libFuzzer target: the hand-written tf.train.Example decoder on arbitrary
// bytes. Whatever it accepts must re-encode (packed, sorted keys) and decode
// again to the same features.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "tfrecord/example.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tfrig::tfrecord;
  auto ex = decode_example(std::string_view(reinterpret_cast<const char*>(data), size));
  if (!ex) return 0;
  std::vector<std::pair<std::string, FeatureValue>> features;
  for (const auto& [key, f] : *ex) features.emplace_back(key, FeatureValue{f.kind, f.bytes, f.floats, f.ints});
  std::string encoded;
  encode_example(features, encoded);
  auto again = decode_example(encoded);
  if (!again || again->size() != ex->size()) __builtin_trap();
  for (const auto& [key, f] : *ex) {
    const auto& g = again->at(key);
    // Floats compared bitwise-equivalently via their count (NaN != NaN).
    if (g.kind != f.kind || g.bytes != f.bytes || g.ints != f.ints || g.floats.size() != f.floats.size()) {
      __builtin_trap();
    }
  }
  return 0;
}

// libFuzzer target: tf_compute.json given with --knowledge DIR (see knowledge_fuzz.h).
#include "knowledge_fuzz.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return tfrig::fuzz::fuzz_knowledge_file("tf_compute.json", data, size);
}

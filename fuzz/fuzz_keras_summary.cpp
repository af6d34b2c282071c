// libFuzzer target: a Keras model.summary() as `tfrig plan --keras-summary
// FILE` reads it (seeds: tests/data/fuzz-corpus/keras_summary/): the bytes
// are written to a file of this process, read back through the same capped
// reader, parsed, turned into a workload (with and without --seq-len) and
// sized: the memory estimate and the largest batch on a large GPU.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

#include "core/input_file.h"
#include "plan/keras_summary.h"
#include "plan/memory.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  // One scratch file per process, removed at exit.
  struct Scratch {
    std::string path;
    Scratch() {
      char tmpl[] = "/tmp/tfrig-fuzz-keras-XXXXXX";
      const int fd = ::mkstemp(tmpl);
      if (fd >= 0) ::close(fd);
      path = fd >= 0 ? tmpl : "/tmp/tfrig-fuzz-keras-summary.txt";
    }
    ~Scratch() { ::unlink(path.c_str()); }
  };
  static const Scratch scratch;
  if (FILE* f = std::fopen(scratch.path.c_str(), "wb")) {
    std::fwrite(text.data(), 1, text.size(), f);
    std::fclose(f);
  }
  // The cap tfrig plan reads a summary with (src/cli/plan.cpp).
  auto read = tfrig::core::read_input_file(scratch.path, 16u << 20);
  if (!read) return 0;
  auto summary = tfrig::plan::parse_keras_summary(*read);
  if (!summary) return 0;
  for (const int seq_len : {0, 1 + static_cast<int>(size % 4096)}) {
    auto workload = tfrig::plan::keras_workload(*summary, seq_len, "fuzz");
    if (!workload) continue;
    workload->batch = 1 + size % 64;
    (void)tfrig::plan::estimate_memory(*workload, 1);
    (void)tfrig::plan::estimate_memory(*workload, workload->batch);
    (void)tfrig::plan::max_batch_that_fits(*workload, uint64_t{141} << 30);  // an H200's memory
  }
  return 0;
}

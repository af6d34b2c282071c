// libFuzzer target: pack's CSV and JSON Lines manifests as read from a file
// (seeds: tests/data/fuzz-corpus/manifest/). The first byte picks the kind;
// the rest is written to a file of this process and loaded like `tfrig pack
// MANIFEST` loads it (paths are only stat'ed, never opened).
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

#include "tfrecord/dataset.h"
#include "tfrecord/pack.h"
#include "tfrecord/plan.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const bool jsonl = (data[0] & 1) != 0;
  const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  (void)tfrig::tfrecord::parse_csv(text, "fuzz.csv");
  // One scratch folder per process, removed at exit.
  struct Scratch {
    std::string dir;
    Scratch() {
      char tmpl[] = "/tmp/tfrig-fuzz-manifest-XXXXXX";
      const char* d = ::mkdtemp(tmpl);
      dir = d != nullptr ? d : "/tmp";
    }
    ~Scratch() {
      ::unlink((dir + "/m.csv").c_str());
      ::unlink((dir + "/m.jsonl").c_str());
      ::rmdir(dir.c_str());
    }
  };
  static const Scratch scratch;
  const std::string& dir = scratch.dir;
  const std::string path = dir + (jsonl ? "/m.jsonl" : "/m.csv");
  if (FILE* f = std::fopen(path.c_str(), "wb")) {
    std::fwrite(text.data(), 1, text.size(), f);
    std::fclose(f);
  }
  auto ds = tfrig::tfrecord::load_dataset(path);
  if (!ds) return 0;
  (void)tfrig::tfrecord::serialize_label_map(*ds);
  auto plan = tfrig::tfrecord::plan_shards(*ds, tfrig::tfrecord::PlanOptions{});
  for (const auto& shard : plan.shards) {
    (void)tfrig::tfrecord::plan_fingerprint(*ds, plan, shard, tfrig::tfrecord::Compression::kNone);
  }
  return 0;
}

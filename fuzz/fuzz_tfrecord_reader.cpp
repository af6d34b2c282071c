// libFuzzer target: the TFRecord stream reader (sniffing, gzip/zlib inflate,
// framing, both CRCs) on arbitrary bytes. It must never crash, hang or
// allocate beyond the input, and every record it returns must re-frame to the
// exact bytes it came from when the input is uncompressed.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "tfrecord/record.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tfrig::tfrecord;
  std::string_view input(reinterpret_cast<const char*>(data), size);
  RecordReader reader(memory_source(input), ReaderOptions{});
  std::string reframed;
  for (int i = 0; i < 100000; ++i) {
    auto rec = reader.next();
    if (!rec || !*rec) break;
    if (reader.compression() == Compression::kNone) append_record(reframed, **rec);
  }
  if (reader.compression() == Compression::kNone && input.substr(0, reframed.size()) != reframed) __builtin_trap();
  return 0;
}

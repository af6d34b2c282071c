// libFuzzer target: the METADATA, dist-info name and build_info.py parsers
// on arbitrary bytes must return, never crash.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "probe/parse/dist_info.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto meta = tfrig::probe::parse::parse_dist_metadata(text);
  (void)meta;
  auto build = tfrig::probe::parse::parse_tf_build_info(text);
  (void)build;
  (void)tfrig::probe::parse::split_dist_info_dir(text);
  (void)tfrig::probe::parse::normalize_dist_name(text);
  return 0;
}

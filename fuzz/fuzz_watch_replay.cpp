// libFuzzer target: tfrig watch --replay's parser on arbitrary bytes must
// return, never crash; what it accepts must analyse and render.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "watch/classify.h"
#include "watch/recording.h"
#include "watch/render.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto rec = tfrig::watch::parse_recording(text, "fuzz");
  if (rec) {
    const auto a = tfrig::watch::analyse(*rec);
    (void)tfrig::watch::render_text(*rec, a, "zh_CN");
    (void)tfrig::watch::render_json(*rec, a, "en").dump();
    (void)tfrig::watch::render_csv(*rec, a);
  }
  return 0;
}

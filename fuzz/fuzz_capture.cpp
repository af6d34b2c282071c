// libFuzzer target: the tar reader and the capture loader (seeds:
// tests/data/fuzz-corpus/capture/), the reader of the archive `doctor --from`
// takes from a stranger. On arbitrary bytes (gzip'd or not) they must never
// crash, hang or hold more than their limits; a tar that reads must re-read
// the same from its own rewrite; a capture that loads is walked through the
// SysRoot the probes would get (every folder listed, every entry read and
// resolved), which must stay inside its tree.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "capture/capture.h"
#include "capture/tar.h"
#include "core/sysroot.h"

namespace {

void walk(const tfrig::core::SysRoot& root, const std::string& rel, int depth, int& budget) {
  if (depth > 16 || --budget < 0) return;
  auto names = root.list_dir(rel);
  if (!names) return;
  for (const auto& n : *names) {
    const std::string child = rel.empty() ? n : rel + "/" + n;
    (void)root.kind_of(child);
    (void)root.read_link(child);
    (void)root.read_text(child, 1 << 16);
    if (auto real = root.real_path(child); real && (real->empty() || real->front() != '/')) __builtin_trap();
    if (root.is_dir(child)) walk(root, child, depth + 1, budget);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tfrig::capture;
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  if (auto entries = read_tar(input)) {
    // What reads must read back the same from its own rewrite.
    auto again = read_tar(write_tar(*entries));
    if (!again || again->size() != entries->size()) __builtin_trap();
    for (size_t i = 0; i < entries->size(); ++i) {
      if ((*again)[i].path != (*entries)[i].path) __builtin_trap();
      if ((*again)[i].type != (*entries)[i].type || (*again)[i].data != (*entries)[i].data) __builtin_trap();
    }
  }
  (void)is_capture(input);
  Limits limits;
  limits.max_bytes = 4u << 20;
  limits.max_entries = 2000;
  limits.max_entry_bytes = 1u << 20;
  auto loaded = load_capture(input, limits);
  if (!loaded) return 0;
  tfrig::core::SysRoot root(loaded->tree, "fuzz.tar.gz:", {});
  int budget = 4000;
  walk(root, "", 0, budget);
  return 0;
}

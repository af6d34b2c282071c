// libFuzzer target: the whole import path on arbitrary bytes (gzip or not):
// kind detection, the bug-report section splitter, every section parser and
// the merge must return, never crash.
#include <cstddef>
#include <cstdint>
#include <string>

#include "importer/bug_report.h"
#include "importer/importer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string bytes(reinterpret_cast<const char*>(data), size);
  auto split = tfrig::importer::split_bug_report(bytes);
  (void)split;
  auto r = tfrig::importer::import_inputs({{"fuzz", std::move(bytes)}});
  (void)r;
  return 0;
}

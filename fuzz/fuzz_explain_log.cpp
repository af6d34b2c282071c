// libFuzzer target: explain's log reader and analyzer on any bytes (seeds:
// tests/data/fuzz-corpus/explain_log/). The input is fed in two pieces split
// at a byte it chooses, so line assembly across reads is exercised too.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "core/text_width.h"
#include "explain/explain.h"
#include "explain/log_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const auto table = tfrig::explain::load_signature_table();
  if (!table) std::abort();
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  tfrig::explain::LogAnalyzer analyzer(*table);
  tfrig::explain::LineSplitter splitter([&](std::string_view line) {
    if (line.size() > tfrig::explain::kMaxLineBytes) std::abort();
    analyzer.add_line(line);
  });
  const size_t cut = size ? data[0] % (size + 1) : 0;
  splitter.feed(text.substr(0, cut));
  splitter.feed(text.substr(cut));
  splitter.finish();
  const auto a = analyzer.finish(splitter.truncated_lines());
  uint64_t seen = 0;
  for (const auto& h : a.hits) seen += h.group.count;
  for (const auto& g : a.unrecognised) seen += g.count;
  if (seen > a.lines) std::abort();  // a line is counted once at most
  auto findings = tfrig::explain::findings_from(a);
  if (findings.size() != a.hits.size()) std::abort();
  auto report = tfrig::explain::explain_report(findings, a, "fuzz", nullptr);
  (void)tfrig::explain::analysis_json(a).dump();  // throws on invalid UTF-8: every kept text must be clean
  (void)tfrig::explain::unrecognised_text(a, tfrig::core::kDefaultTextWidth);
  return 0;
}

// libFuzzer target: the HTML report on arbitrary input. The bytes are
// escaped (the result must be valid UTF-8 with no character that could open
// markup), and, when they are JSON, rendered as every kind of page whatever
// their shape (tfrig report reads any file it is given): no throw, no crash,
// no raw '<' from the input.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include <nlohmann/json.hpp>

#include "core/escape.h"
#include "report/html.h"
#include "report/html_pages.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tfrig::report::html;
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  const std::string escaped = escape(bytes);
  if (!tfrig::core::is_valid_utf8(escaped) || escaped.find_first_of("<>\"'") != std::string::npos) std::abort();
  nlohmann::json doc = nlohmann::json::parse(bytes, nullptr, false);
  if (doc.is_discarded()) return 0;
  for (PageKind kind : {PageKind::kDoctor, PageKind::kPlan, PageKind::kPipeline, PageKind::kBench, PageKind::kWatch,
                        PageKind::kFleet}) {
    const std::string page = render_documents({{kind, doc, "fuzz"}});
    if (page.empty()) std::abort();
  }
  (void)detect_kind(doc);
  return 0;
}

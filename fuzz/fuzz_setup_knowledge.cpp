// libFuzzer target: a setup.json given with --knowledge DIR (outside input)
// must load or fail with an error naming the file, and a plan made from it
// must render without crashing, whatever its rows say.
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>

#include "knowledge/knowledge.h"
#include "knowledge_data.h"
#include "setup/plan.h"
#include "setup/render.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::map<std::string, std::string> texts;
  for (const auto& f : tfrig::knowledge::embedded::kFiles) texts[std::string(f.name)] = std::string(f.text);
  texts["setup.json"] = std::string(reinterpret_cast<const char*>(data), size);
  auto k = tfrig::knowledge::Knowledge::from_texts(texts);
  if (!k) return 0;
  for (const auto& os : k->setup().os_targets) {
    for (auto m : {tfrig::setup::Method::kPip, tfrig::setup::Method::kApt, tfrig::setup::Method::kContainer,
                   tfrig::setup::Method::kNgc}) {
      tfrig::setup::SetupOptions o;
      o.os = os.id;
      o.method = m;
      o.gpu = "cc:8.0";
      auto out = tfrig::setup::make_setup_plan(*k, nullptr, o);
      if (out && out->plan) (void)tfrig::setup::render_all(*out->plan, *k);
      if (out && out->refusal) (void)tfrig::setup::refusal_text(*out->refusal);
    }
  }
  return 0;
}

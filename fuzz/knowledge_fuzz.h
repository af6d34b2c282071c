// The body of the fuzz_knowledge_* targets: one knowledge file given with
// --knowledge DIR (outside input) replaces the embedded copy. It must load or
// fail with an error naming the file, and what loads must then serve compat,
// the rules and setup without crashing: the loader checks every version and
// number, so no later code may meet one it cannot parse.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "../tests/rules/rule_fixtures.h"
#include "knowledge/compat.h"
#include "knowledge/knowledge.h"
#include "knowledge_data.h"
#include "rules/rule.h"
#include "setup/plan.h"
#include "setup/render.h"

namespace tfrig::fuzz {

inline int fuzz_knowledge_file(const char* file, const uint8_t* data, size_t size) {
  std::map<std::string, std::string> texts;
  for (const auto& f : knowledge::embedded::kFiles) texts[std::string(f.name)] = std::string(f.text);
  texts[file] = std::string(reinterpret_cast<const char*>(data), size);
  auto k = knowledge::Knowledge::from_texts(texts);
  if (!k) return 0;
  for (const char* tf : {"", "2.15", "2.16.1", "2.4", "1.15", "2.99"}) {
    knowledge::CompatQuery q;
    if (*tf) q.tf = tf;
    q.driver = "535.104.05";
    q.cuda = "12.2";
    q.cudnn = "8.9";
    q.gpu = "cc:8.6";
    q.python = "3.11";
    (void)knowledge::compat_to_text(knowledge::check_compat(*k, q), "zh_CN");
    q.gpu = "Tesla K80";
    q.os = "windows";
    (void)knowledge::compat_to_json(knowledge::check_compat(*k, q), "en").dump();
  }
  (void)knowledge::compat_matrix_text(*k, "zh_CN");
  (void)k->find_gpu("A100");
  for (const auto& inv : {testing::healthy(), testing::cpu_only()}) {
    rules::Context ctx{inv, *k, rules::resolve_target(inv, *k, std::nullopt), std::nullopt};
    (void)rules::evaluate(ctx);
  }
  setup::SetupOptions o;
  o.os = "ubuntu-22.04";
  o.method = setup::Method::kPip;
  o.gpu = "cc:8.0";
  auto out = setup::make_setup_plan(*k, nullptr, o);
  if (out && out->plan) (void)setup::render_all(*out->plan, *k);
  return 0;
}

}  // namespace tfrig::fuzz

#include "probe/parse/daemon_json.h"

#include <nlohmann/json.hpp>

#include "core/i18n.h"

namespace tfrig::probe::parse {

core::Result<DaemonJson> parse_daemon_json(std::string_view text) {
  // No exceptions: a malformed file is an expected input (dockerd refuses to
  // start on it, which is worth reporting).
  const nlohmann::json j = nlohmann::json::parse(text.begin(), text.end(), nullptr, false);
  if (j.is_discarded())
    return core::fail(core::ErrorCode::kParse, "daemon.json",
                      core::Message(N_("not valid JSON (dockerd will not start)")));
  if (!j.is_object())
    return core::fail(core::ErrorCode::kParse, "daemon.json", core::Message(N_("expected a JSON object at the top")));
  DaemonJson out;
  if (auto it = j.find("runtimes"); it != j.end()) {
    if (!it->is_object())
      return core::fail(core::ErrorCode::kParse, "runtimes",
                        core::Message(N_("expected an object of runtime name -> {{path}}")));
    for (const auto& [name, rt] : it->items()) {
      std::string path;
      if (rt.is_object()) {
        if (auto p = rt.find("path"); p != rt.end() && p->is_string()) path = p->get<std::string>();
      }
      out.runtimes.emplace_back(name, std::move(path));
    }
  }
  if (auto it = j.find("default-runtime"); it != j.end()) {
    if (!it->is_string())
      return core::fail(core::ErrorCode::kParse, "default-runtime", core::Message(N_("expected a string")));
    out.default_runtime = it->get<std::string>();
  }
  return out;
}

}  // namespace tfrig::probe::parse

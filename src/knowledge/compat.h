// tfrig compat: will TensorFlow X run with driver Y, system CUDA Z, cuDNN W,
// GPU G and Python P on this OS -- per part yes / no / caveats with the
// reason, and when not, the nearest working combinations.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/message.h"
#include "core/text_width.h"
#include "knowledge/knowledge.h"

namespace tfrig::knowledge {

struct CompatQuery {
  std::optional<std::string> tf;      // "2.15", "2.15.1"; none: the newest known
  std::optional<std::string> driver;  // "525.60.13"
  std::optional<std::string> cuda;    // the CUDA toolkit installed on the system
  std::optional<std::string> cudnn;   // the cuDNN installed on the system
  std::optional<std::string> gpu;     // a name or PCI id, or a compute capability "cc:8.6"
  std::optional<std::string> python;  // "3.11"
  std::optional<std::string> os;      // "linux" (default), "wsl", "windows"
};

struct CompatCheck {
  CompatCheck() = default;
  CompatCheck(std::string part_, std::string verdict_, core::Message reason_, bool uncertain_ = false,
              core::Message check_ = {})
      : part(std::move(part_)),
        verdict(std::move(verdict_)),
        reason(std::move(reason_)),
        uncertain(uncertain_),
        check(std::move(check_)) {}
  std::string part;     // "tf", "os", "python", "driver", "gpu", "cuda", "cudnn"
  std::string verdict;  // "yes", "no", "caveats"
  // Messages, rendered in the output's language by compat_to_text /
  // compat_to_json and by explain's evidence (docs/i18n.md).
  core::Message reason;
  // The reason rests on a fact the knowledge base marks uncertain; the reason
  // says so in words and check says how to settle it on the machine.
  bool uncertain = false;
  core::Message check;
};

struct CompatAnswer {
  std::string verdict;  // "yes", "no", "caveats"
  std::string tf;       // the release judged ("2.15.0")
  std::vector<CompatCheck> checks;
  std::vector<core::Message> alternatives;
  const CompatCheck* find(const std::string& part) const;
};

CompatAnswer check_compat(const Knowledge& k, const CompatQuery& q);
// The words a person reads for a verdict ("yes", "no", "caveats") and a part
// ("tf", "driver" ...); JSON keeps the ids. An id tfrig does not know is
// itself, as it is.
core::MessageArg compat_verdict_message(const std::string& verdict);
core::MessageArg compat_part_message(const std::string& part);
// Rendered in `language` ("en", "zh_CN"): the caller passes the output's.
nlohmann::json compat_to_json(const CompatAnswer& a, std::string_view language);
std::string compat_to_text(const CompatAnswer& a, std::string_view language, size_t width = core::kDefaultTextWidth);
// The whole table: one row per TF release.
std::string compat_matrix_text(const Knowledge& k, std::string_view language, size_t width = core::kDefaultTextWidth);
nlohmann::json compat_matrix_json(const Knowledge& k);

}  // namespace tfrig::knowledge

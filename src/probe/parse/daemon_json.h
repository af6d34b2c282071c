// /etc/docker/daemon.json (dockerd(8) "Daemon configuration file"): the
// runtimes Docker knows and the default one. The NVIDIA Container Toolkit's
// `nvidia-ctk runtime configure --runtime=docker` adds
//   "runtimes": {"nvidia": {"path": "nvidia-container-runtime", "args": []}}
// and, with --set-as-default, "default-runtime": "nvidia".
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/result.h"

namespace tfrig::probe::parse {

struct DaemonJson {
  std::vector<std::pair<std::string, std::string>> runtimes;  // name -> path ("" when none given)
  std::optional<std::string> default_runtime;
};

core::Result<DaemonJson> parse_daemon_json(std::string_view text);

}  // namespace tfrig::probe::parse

#include "probe/host_mount.h"

namespace tfrig::probe {

bool root_is_running_kernel(const core::SysRoot& root) {
  if (root.is_live()) return true;
  constexpr std::string_view kBootId = "proc/sys/kernel/random/boot_id";
  const auto here = core::SysRoot("/").read_line(kBootId);
  const auto there = root.read_line(kBootId);
  return here && there && !here->empty() && *here == *there;
}

}  // namespace tfrig::probe

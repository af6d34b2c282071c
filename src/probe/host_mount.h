// A root that is the running host mounted into a container (`--root /host`
// in a DaemonSet, like node_exporter's --path.procfs/--path.sysfs), as
// against a tree captured from another machine. Both are read only through
// SysRoot; the difference is what the kernel-bound APIs (NVML) describe.
#pragma once

#include "core/sysroot.h"

namespace tfrig::probe {

// True when root is "/" or its proc/ is the procfs of the kernel this
// process runs on: <root>/proc/sys/kernel/random/boot_id equals this
// kernel's (a random id per boot, the same in every container of the host;
// proc(5)). NVML talks to that kernel, so under such a root it describes
// the host of the root.
bool root_is_running_kernel(const core::SysRoot& root);

}  // namespace tfrig::probe

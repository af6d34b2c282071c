// How kernel-log events say which boot they come from. An imported bug report
// holds the running boot's log (dmesg, `journalctl -b -0`) next to earlier
// boots' (`journalctl -b -1`, kern.log): an event none of the running boot's
// logs has is history, and its XidEvent::source ends with this.
#pragma once

#include <string_view>

namespace tfrig::inventory {

inline constexpr std::string_view kEarlierBoot = "(an earlier boot)";

inline bool from_earlier_boot(std::string_view source) {
  return source.size() >= kEarlierBoot.size() && source.substr(source.size() - kEarlierBoot.size()) == kEarlierBoot;
}

}  // namespace tfrig::inventory

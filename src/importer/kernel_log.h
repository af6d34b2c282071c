// Kernel messages (dmesg, journalctl -k, /var/log/kern.log) -> what the
// NVIDIA kernel module said about its GPUs:
//   "NVRM: Xid (PCI:0000:03:00): 13, pid=3074, Graphics SM Warp Exception ..."
//   "NVRM: GPU at 00000000:04:00.0 has fallen off the bus."  (also "NVRM: GPU 0000:01:00.0: GPU has fallen
//   off the bus." and the three-line "NVRM: The NVIDIA GPU <bus> ... fallen off the bus and is not responding")
//   "NVRM: GPU 0000:01:00.0: RmInitAdapter failed! (0x30:0xffff:1086)"
//   "NVRM: API mismatch: the client has the version 525.125.06, but"
//   "NVRM: this kernel module has the version 515.65.01. ..."
// Each line may carry a syslog ("Nov 15 12:43:10 host kernel:"), ISO 8601
// or dmesg ("[ 7613.977841]") timestamp, or several; they are kept as written.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tfrig::importer {

struct KernelXid {
  int xid = 0;
  std::string pci_bus_id;  // normalised "0000:03:00.0"
  std::optional<std::string>
      time;             // as written: "Nov 15 12:43:10", "2026-08-16T16:20:17.153449-05:00", "[ 7613.977841]"
  std::string message;  // after "<xid>, "
  int line = 0;         // 1-based
};

struct KernelLog {
  std::vector<KernelXid> xids;                                   // in order, duplicate lines kept once
  std::vector<std::string> fallen_off_bus;                       // PCI ids ("GPU at ... has fallen off the bus")
  std::vector<std::pair<std::string, std::string>> init_failed;  // (PCI id, "RmInitAdapter failed! (0x30:...)")
  std::optional<std::string> api_mismatch_client;                // the user-space version in "API mismatch"
  std::optional<std::string> api_mismatch_module;                // the kernel module's
};

KernelLog parse_kernel_log(std::string_view text);

}  // namespace tfrig::importer

// What an NVRM Xid number means and what to do about it, for the Xids a
// training machine meets. Source: NVIDIA, "Xid Errors"
// (https://docs.nvidia.com/deploy/xid-errors/index.html) and its catalog
// with resolution buckets for Ampere and newer
// (https://docs.nvidia.com/deploy/xid-errors/analyzing-xid-catalog.html).
// The class groups Xids by who has to act.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "core/message.h"

namespace tfrig::knowledge {

enum class XidClass {
  kApplication,   // the program faulted (bad kernel, illegal address): fix or restart the program
  kMemory,        // ECC / page retirement / row remapping: reset the GPU, RMA if it repeats
  kBus,           // the GPU left the PCIe bus: reboot, check seating, power, risers
  kFirmware,      // GSP / micro-controller: reset the GPU, update the driver
  kInterconnect,  // NVLink
  kDriver,        // driver or system memory corruption, display engine
  kOther,
};

struct XidInfo {
  int xid = 0;
  std::string_view meaning;  // NVIDIA's description, shortened
  XidClass cls = XidClass::kOther;
  bool severe = false;      // the GPU needs a reset or service (error), else a warning
  std::string_view action;  // the documented action
};

std::optional<XidInfo> xid_info(int xid);
// Who has to act, in the language of the interface.
std::string xid_class_name(XidClass c);
// The same in English, its texts the catalog's keys (for a core::Message
// rendered later: a rule's finding).
std::optional<XidInfo> xid_info_english(int xid);
core::MessageArg xid_class_message(XidClass c);
constexpr std::string_view kXidSource = "https://docs.nvidia.com/deploy/xid-errors/index.html";

}  // namespace tfrig::knowledge

#include "knowledge/xid_catalog.h"

namespace tfrig::knowledge {

namespace {

// Meanings and actions from NVIDIA's Xid documentation (kXidSource) and the
// Xid catalog's resolution buckets (RESTART_APP, RESET_GPU, CONTACT_SUPPORT,
// WORKFLOW_XID_48 ...). The action text is ours.
constexpr XidInfo kXids[] = {
    {8, "GPU stopped processing (channel idle timeout)", XidClass::kApplication, false,
     "Restart the program; if it repeats, check for a hung kernel or a driver bug."},
    {13, "Graphics Engine Exception (an SM warp or global exception: illegal instruction, out-of-range address)",
     XidClass::kApplication, false,
     "Usually the program: run it under compute-sanitizer, check that the CUDA/TF build matches the GPU; if it "
     "repeats across programs, suspect the driver or the GPU."},
    {31, "GPU memory page fault (MMU fault): a kernel accessed an address it does not own", XidClass::kApplication, false,
     "Usually the program (illegal memory access): run it under compute-sanitizer; restart it."},
    {32, "Invalid or corrupted push buffer stream (driver or system memory corruption, or a PCIe bus error)",
     XidClass::kDriver, true,
     "Check system memory and the PCIe link (AER errors in the kernel log); update the driver."},
    {38, "Driver firmware error", XidClass::kFirmware, true, "Reset the GPU; update the driver."},
    {43, "GPU stopped processing (the channel was reset after a program fault)", XidClass::kApplication, false,
     "The program faulted: restart it; no GPU reset is needed."},
    {44, "Graphics Engine fault during context switch", XidClass::kDriver, true, "Reset the GPU; update the driver."},
    {45, "Preemptive cleanup after earlier errors (the channel was torn down)", XidClass::kApplication, false,
     "A follow-on of other Xids or of a killed program: act on the Xid that came before it."},
    {48, "Double-bit ECC error (uncorrectable GPU memory error)", XidClass::kMemory, true,
     "Reset the GPU (`sudo nvidia-smi -r -i N`) or reboot so the page is retired or the row remapped; "
     "if it repeats, RMA the card."},
    {56, "Display engine error", XidClass::kDriver, false,
     "A display/modeset problem (monitor, cable, compositor); update the driver if it repeats."},
    {61, "Internal micro-controller breakpoint/warning", XidClass::kFirmware, true,
     "Reset the GPU or reboot; update the driver; contact NVIDIA support if it repeats."},
    {62, "Internal micro-controller halt", XidClass::kFirmware, true,
     "Reset the GPU or reboot; update the driver; contact NVIDIA support if it repeats."},
    {63, "ECC page retirement or row remapping recorded (pending until the GPU is reset)", XidClass::kMemory, true,
     "Reset the GPU or reboot to apply the retirement/remapping."},
    {64, "ECC page retirement or row remapping failed", XidClass::kMemory, true,
     "Reset the GPU; if it repeats, RMA the card."},
    {69, "Graphics Engine class error", XidClass::kApplication, false, "Restart the program; update the driver if it repeats."},
    {74, "NVLink error", XidClass::kInterconnect, true,
     "Reset the GPU; check the NVLink bridge or baseboard (`nvidia-smi nvlink -e`); RMA if it repeats."},
    {79, "GPU has fallen off the bus (it no longer answers on PCIe)", XidClass::kBus, true,
     "Reboot to recover the GPU; then check that it is seated, the power cables and riser, temperatures and "
     "the PSU; RMA if it repeats."},
    {92, "High single-bit ECC error rate", XidClass::kMemory, false,
     "Watch the ECC counters (`nvidia-smi -q -d ECC`); plan a GPU reset and a check of the card."},
    {94, "Contained ECC error (the affected program was stopped)", XidClass::kMemory, false,
     "Restart the affected program; reset the GPU when convenient to remap the row."},
    {95, "Uncontained ECC error (memory corruption could not be contained)", XidClass::kMemory, true,
     "Reset the GPU now (every program on it is affected); RMA if it repeats."},
    {119, "GSP RPC timeout (the GPU System Processor did not answer)", XidClass::kFirmware, true,
     "Reset the GPU or reboot; update the driver (or try the non-GSP kernel module)."},
    {120, "GSP error", XidClass::kFirmware, true, "Reset the GPU or reboot; update the driver."},
    {154, "GPU recovery action changed (the driver says what the GPU needs: reset, reboot, drain)", XidClass::kOther, true,
     "Follow the recovery action in the message (nvidia-smi -q shows it as GPU Recovery Action)."},
};

}  // namespace

std::optional<XidInfo> xid_info(int xid) {
  for (const auto& x : kXids) {
    if (x.xid == xid) return x;
  }
  return std::nullopt;
}

std::string_view xid_class_name(XidClass c) {
  switch (c) {
    case XidClass::kApplication: return "application fault";
    case XidClass::kMemory: return "GPU memory (ECC, row remapping)";
    case XidClass::kBus: return "PCIe bus";
    case XidClass::kFirmware: return "GPU firmware (GSP, micro-controller)";
    case XidClass::kInterconnect: return "NVLink";
    case XidClass::kDriver: return "driver";
    case XidClass::kOther: return "other";
  }
  return "other";
}

}  // namespace tfrig::knowledge

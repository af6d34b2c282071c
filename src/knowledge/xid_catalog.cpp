#include "knowledge/xid_catalog.h"

#include "core/i18n.h"

namespace tfrig::knowledge {

namespace {

// Meanings and actions from NVIDIA's Xid documentation (kXidSource) and the
// Xid catalog's resolution buckets (RESTART_APP, RESET_GPU, CONTACT_SUPPORT,
// WORKFLOW_XID_48 ...). The action text is ours. Marked for the catalog;
// xid_info translates them (the language is English for JSON without --lang).
constexpr XidInfo kXids[] = {
    {8, N_("GPU stopped processing (channel idle timeout)"), XidClass::kApplication, false,
     N_("Restart the program; if it repeats, check for a hung kernel or a driver bug.")},
    {13, N_("Graphics Engine Exception (an SM warp or global exception: illegal instruction, out-of-range address)"),
     XidClass::kApplication, false,
     N_("Usually the program: run it under compute-sanitizer, check that the CUDA/TF build matches the GPU; if it "
        "repeats across programs, suspect the driver or the GPU.")},
    {31, N_("GPU memory page fault (MMU fault): a kernel accessed an address it does not own"), XidClass::kApplication,
     false, N_("Usually the program (illegal memory access): run it under compute-sanitizer; restart it.")},
    {32, N_("Invalid or corrupted push buffer stream (driver or system memory corruption, or a PCIe bus error)"),
     XidClass::kDriver, true,
     N_("Check system memory and the PCIe link (AER errors in the kernel log); update the driver.")},
    {38, N_("Driver firmware error"), XidClass::kFirmware, true, N_("Reset the GPU; update the driver.")},
    {43, N_("GPU stopped processing (the channel was reset after a program fault)"), XidClass::kApplication, false,
     N_("The program faulted: restart it; no GPU reset is needed.")},
    {44, N_("Graphics Engine fault during context switch"), XidClass::kDriver, true,
     N_("Reset the GPU; update the driver.")},
    {45, N_("Preemptive cleanup after earlier errors (the channel was torn down)"), XidClass::kApplication, false,
     N_("A follow-on of other Xids or of a killed program: act on the Xid that came before it.")},
    {48, N_("Double-bit ECC error (uncorrectable GPU memory error)"), XidClass::kMemory, true,
     N_("Reset the GPU (`sudo nvidia-smi -r -i N`) or reboot so the page is retired or the row remapped; "
        "if it repeats, RMA the card.")},
    {56, N_("Display engine error"), XidClass::kDriver, false,
     N_("A display/modeset problem (monitor, cable, compositor); update the driver if it repeats.")},
    {61, N_("Internal micro-controller breakpoint/warning"), XidClass::kFirmware, true,
     N_("Reset the GPU or reboot; update the driver; contact NVIDIA support if it repeats.")},
    {62, N_("Internal micro-controller halt"), XidClass::kFirmware, true,
     N_("Reset the GPU or reboot; update the driver; contact NVIDIA support if it repeats.")},
    {63, N_("ECC page retirement or row remapping recorded (pending until the GPU is reset)"), XidClass::kMemory, true,
     N_("Reset the GPU or reboot to apply the retirement/remapping.")},
    {64, N_("ECC page retirement or row remapping failed"), XidClass::kMemory, true,
     N_("Reset the GPU; if it repeats, RMA the card.")},
    {69, N_("Graphics Engine class error"), XidClass::kApplication, false,
     N_("Restart the program; update the driver if it repeats.")},
    {74, N_("NVLink error"), XidClass::kInterconnect, true,
     N_("Reset the GPU; check the NVLink bridge or baseboard (`nvidia-smi nvlink -e`); RMA if it repeats.")},
    {79, N_("GPU has fallen off the bus (it no longer answers on PCIe)"), XidClass::kBus, true,
     N_("Reboot to recover the GPU; then check that it is seated, the power cables and riser, temperatures and "
        "the PSU; RMA if it repeats.")},
    {92, N_("High single-bit ECC error rate"), XidClass::kMemory, false,
     N_("Watch the ECC counters (`nvidia-smi -q -d ECC`); plan a GPU reset and a check of the card.")},
    {94, N_("Contained ECC error (the affected program was stopped)"), XidClass::kMemory, false,
     N_("Restart the affected program; reset the GPU when convenient to remap the row.")},
    {95, N_("Uncontained ECC error (memory corruption could not be contained)"), XidClass::kMemory, true,
     N_("Reset the GPU now (every program on it is affected); RMA if it repeats.")},
    {119, N_("GSP RPC timeout (the GPU System Processor did not answer)"), XidClass::kFirmware, true,
     N_("Reset the GPU or reboot; update the driver (or try the non-GSP kernel module).")},
    {120, N_("GSP error"), XidClass::kFirmware, true, N_("Reset the GPU or reboot; update the driver.")},
    {154, N_("GPU recovery action changed (the driver says what the GPU needs: reset, reboot, drain)"),
     XidClass::kOther, true,
     N_("Follow the recovery action in the message (nvidia-smi -q shows it as GPU Recovery Action).")},
};

}  // namespace

std::optional<XidInfo> xid_info(int xid) {
  for (const auto& x : kXids) {
    if (x.xid != xid) continue;
    XidInfo out = x;
    // The catalog is embedded and lives as long as the program: the views stay valid.
    out.meaning = core::i18n::translate(x.meaning);
    out.action = core::i18n::translate(x.action);
    return out;
  }
  return std::nullopt;
}

std::optional<XidInfo> xid_info_english(int xid) {
  for (const auto& x : kXids) {
    if (x.xid == xid) return x;
  }
  return std::nullopt;
}

core::MessageArg xid_class_message(XidClass c) {
  switch (c) {
    case XidClass::kApplication: return core::Message::in_context(NC_("Xid class", "application fault"));
    case XidClass::kMemory: return core::Message::in_context(NC_("Xid class", "GPU memory (ECC, row remapping)"));
    case XidClass::kBus: return core::Message::in_context(NC_("Xid class", "PCIe bus"));
    case XidClass::kFirmware:
      return core::Message::in_context(NC_("Xid class", "GPU firmware (GSP, micro-controller)"));
    case XidClass::kInterconnect: return std::string("NVLink");
    case XidClass::kDriver: return core::Message::in_context(NC_("Xid class", "driver"));
    case XidClass::kOther: return core::Message::in_context(NC_("Xid class", "other"));
  }
  return core::Message::in_context(NC_("Xid class", "other"));
}

std::string xid_class_name(XidClass c) {
  switch (c) {
    case XidClass::kApplication: return C_("Xid class", "application fault");
    case XidClass::kMemory: return C_("Xid class", "GPU memory (ECC, row remapping)");
    case XidClass::kBus: return C_("Xid class", "PCIe bus");
    case XidClass::kFirmware: return C_("Xid class", "GPU firmware (GSP, micro-controller)");
    case XidClass::kInterconnect: return "NVLink";
    case XidClass::kDriver: return C_("Xid class", "driver");
    case XidClass::kOther: return C_("Xid class", "other");
  }
  return C_("Xid class", "other");
}

}  // namespace tfrig::knowledge

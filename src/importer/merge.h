// The importer's second half: what every input said (Facts, filled by
// importer.cpp's apply_* functions section by section) merged into one
// machine's report. Several files describe one machine: nvidia-smi's view
// of a GPU comes first, /proc and the PCI bus fill what it did not say, the
// kernel log says which GPUs are lost, and a capture cut short still counts
// the GPUs its header names.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "importer/kernel_log.h"
#include "importer/lspci_text.h"
#include "importer/nvidia_smi_nvlink.h"
#include "importer/nvidia_smi_text.h"
#include "importer/nvidia_smi_topo.h"
#include "inventory/inventory.h"
#include "probe/parse/nvidia_smi_xml.h"
#include "probe/parse/proc_driver_nvidia.h"
#include "probe/probe.h"
#include "verdict/report.h"

namespace tfrig::importer {

// Which boot a kernel log covers: the running one (the bug report's dmesg,
// `journalctl -b -0`, /var/log/dmesg), earlier ones (`journalctl -b -1`,
// `-b -2`), or several (kern.log rotates across boots).
enum class Boot { kCurrent, kEarlier, kMixed };

struct KernelLogPart {
  std::string source;
  KernelLog log;
  Boot boot = Boot::kMixed;
};

// Everything the inputs said, before it is merged into one inventory.
struct Facts {
  inventory::Inventory inv;                  // host, cpu, memory and driver fields are written directly
  std::map<std::string, LspciDevice> lspci;  // by address; later sections add to earlier ones
  std::string lspci_source;
  std::optional<NvidiaSmiText> smi;
  std::string smi_source;
  // What nvidia-smi printed instead of (or next to) its report, from every
  // -q input: kept when another input's report replaces `smi`.
  struct SmiError {
    std::string line;
    std::string kind;
    std::string source;
  };
  std::vector<SmiError> smi_errors;
  std::vector<std::pair<NvidiaSmiText::HandleError, std::string>> handle_errors;  // (error, source)
  std::optional<int> attached_gpus;                                               // the largest "Attached GPUs" header
  std::optional<probe::parse::NvidiaSmiXml> xml;
  std::string xml_source;
  std::vector<std::pair<std::string, probe::parse::NvidiaGpuInformation>> proc_gpus;  // (bus id, information)
  std::string proc_source;
  std::vector<KernelLogPart> kernel_logs;
  std::optional<TopoMatrix> topo;
  std::vector<NvlinkGpu> nvlink;
  std::string topo_source;
  bool version_file_missing = false;
  std::vector<probe::ProbeStatus> statuses;
  // Every problem as the user reads it on stderr, in the interface language
  // (the statuses keep them in English: the snapshot's texts are data).
  std::vector<std::string> warnings;
};
// Adds `detail` to the status of input `id` ("cpu", "nvml", ...), creating
// it; details join with "; ". The status stores the English and the message.
void note(Facts& f, const std::string& id, core::Message detail, probe::State state = probe::State::kOk);
// "DETAIL (SOURCE)": a note on what an input said, naming where it was read.
core::Message from(core::Message detail, const std::string& source);
// Records a problem an input had (the status reads "with problems"): the
// status keeps the message (English in the snapshot), the warning renders it
// in the interface language.
void problem(Facts& f, const std::string& id, core::Message text);
// "SOURCE: " before a parser's error.
void problem(Facts& f, const std::string& id, const std::string& source, const core::Error& error);

// The merged report (source "import:<names>"); `f` is consumed.
report::Report merge_facts(Facts& f, const std::vector<std::string>& names, double seconds);

}  // namespace tfrig::importer

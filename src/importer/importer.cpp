#include "importer/importer.h"

#include <algorithm>
#include <filesystem>
#include <functional>
#include <optional>

#include <fmt/format.h>

#include "codec/gzip.h"
#include "core/clock.h"
#include "core/try.h"
#include "core/i18n.h"
#include "core/input_file.h"
#include "core/sysroot.h"
#include "core/text.h"
#include "importer/bug_report.h"
#include "importer/kernel_log.h"
#include "importer/lspci_text.h"
#include "importer/merge.h"
#include "importer/nvidia_smi_nvlink.h"
#include "importer/nvidia_smi_csv.h"
#include "importer/nvidia_smi_text.h"
#include "importer/nvidia_smi_topo.h"
#include "importer/text_encoding.h"
#include "probe/parse/nvidia_smi_xml.h"
#include "probe/parse/proc_driver_nvidia.h"
#include "probe/parse/proc_text.h"
#include "verdict/coverage.h"

namespace tfrig::importer {

// The parsers the live probes share; the ones only an import needs live here.
namespace parse = probe::parse;
using codec::gunzip;
using codec::gunzip_head;
using codec::is_gzip;

std::string_view kind_name(FileKind kind) {
  switch (kind) {
    case FileKind::kBugReport: return "nvidia-bug-report";
    case FileKind::kNvidiaSmiText: return "nvidia-smi -q";
    case FileKind::kNvidiaSmiXml: return "nvidia-smi -q -x";
    case FileKind::kNvidiaSmiCsv: return "nvidia-smi --query-gpu CSV";
    case FileKind::kLspci: return "lspci";
    case FileKind::kTopo: return "nvidia-smi topo -m";
    case FileKind::kNvlink: return "nvidia-smi nvlink";
    case FileKind::kProcNvidiaVersion: return "/proc/driver/nvidia/version";
    case FileKind::kProcGpuInformation: return "/proc/driver/nvidia/gpus/*/information";
    case FileKind::kUnknown: return "unknown";
  }
  return "unknown";
}

FileKind detect_kind(std::string_view text) {
  if (looks_like_bug_report(text)) return FileKind::kBugReport;
  const std::string_view head = text.substr(0, 4096);
  if (head.find("<nvidia_smi_log") != std::string_view::npos) return FileKind::kNvidiaSmiXml;
  if (looks_like_nvidia_smi_text(text)) return FileKind::kNvidiaSmiText;
  if (looks_like_nvidia_smi_topo(text)) return FileKind::kTopo;
  if (looks_like_nvidia_smi_nvlink(text)) return FileKind::kNvlink;
  if (looks_like_nvidia_smi_csv(text)) return FileKind::kNvidiaSmiCsv;
  if (core::starts_with(core::trim(head), "NVRM version:")) return FileKind::kProcNvidiaVersion;
  if (core::starts_with(core::trim(head), "Model:") && head.find("Bus Location:") != std::string_view::npos) {
    return FileKind::kProcGpuInformation;
  }
  // lspci: the first non-empty line is a device header.
  for (auto line : core::split_lines(head)) {
    if (core::trim(line).empty()) continue;
    return is_lspci_device_header(line) ? FileKind::kLspci : FileKind::kUnknown;
  }
  return FileKind::kUnknown;
}

namespace {

std::string where(const std::string& file, const BugReportSection* sec) {
  if (sec == nullptr) return file;
  return file + ":" + std::to_string(sec->line) + " (" + std::string(core::trim(sec->header)) + ")";
}

// ---- The host sections: uname, os-release (else lsb-release / issue) ----

void apply_uname(std::string_view uname, inventory::HostInfo& host) {
  // "Linux <host> <release> #<build> ... <machine> <processor> <platform> GNU/Linux"
  const auto t = core::split_ws(uname);
  if (t.size() >= 3 && t[0] == "Linux") {
    host.hostname = std::string(t[1]);
    host.kernel_release = std::string(t[2]);
  }
  for (size_t i = 3; i < t.size(); ++i) {
    if (t[i] == "x86_64" || t[i] == "aarch64" || t[i] == "ppc64le") {
      host.architecture = std::string(t[i]);
      break;
    }
  }
}

void apply_os_release(std::string_view text, inventory::HostInfo& host) {
  parse::apply_os_release(parse::parse_os_release(text), host);
}

// /etc/lsb-release (DISTRIB_* in the os-release syntax): the older reports' only structured OS name.
void apply_lsb_release(std::string_view text, inventory::HostInfo& host) {
  const auto os = parse::parse_os_release(text);
  auto get = [&os](const char* key) -> std::optional<std::string> {
    auto it = os.values.find(key);
    if (it == os.values.end() || it->second.empty()) return std::nullopt;
    return it->second;
  };
  if (!host.os_id) {
    if (auto id = get("DISTRIB_ID")) host.os_id = core::to_lower(*id);
  }
  if (!host.os_name) host.os_name = get("DISTRIB_ID");
  if (!host.os_version_id) host.os_version_id = get("DISTRIB_RELEASE");
  if (!host.os_pretty_name) host.os_pretty_name = get("DISTRIB_DESCRIPTION");
  if (!host.os_codename) host.os_codename = get("DISTRIB_CODENAME");
}

// /etc/issue: "Ubuntu 16.04.3 LTS \n \l" (agetty escapes dropped); the
// pretty name only, when nothing better is known. ASSUMED: the first line names the OS.
void apply_issue(std::string_view text, inventory::HostInfo& host) {
  if (host.os_pretty_name) return;
  for (auto line : core::split_lines(text)) {
    std::string s;
    for (size_t i = 0; i < line.size(); ++i) {
      if (line[i] == '\\' && i + 1 < line.size()) {
        ++i;
        continue;
      }
      s.push_back(line[i]);
    }
    // "Arch Linux \r (\l)" leaves "Arch Linux  ()".
    for (size_t at = s.find("()"); at != std::string::npos; at = s.find("()")) s.erase(at, 2);
    const std::string_view t = core::trim(s);
    if (t.empty()) continue;
    std::string pretty;
    for (auto w : core::split_ws(t)) pretty += (pretty.empty() ? "" : " ") + std::string(w);
    host.os_pretty_name = pretty;
    const auto words = core::split_ws(t);
    if (!host.os_id && !words.empty()) host.os_id = core::to_lower(words[0]);
    // "Ubuntu 22.04.3 LTS" -> VERSION_ID "22.04" (os-release's form for Ubuntu).
    if (!host.os_version_id && words.size() >= 2 && words[0] == "Ubuntu") {
      const auto parts = core::split(words[1], '.');
      if (parts.size() >= 2 && core::parse_u64(parts[0]) && core::parse_u64(parts[1])) {
        host.os_version_id = std::string(parts[0]) + "." + std::string(parts[1]);
      }
    }
    return;
  }
}

// ---- cpuinfo, meminfo (the live probes' parsers, the cpu/memory probes' mapping) ----

void apply_cpuinfo(std::string_view text, const std::string& src, Facts& f) {
  auto info = parse::parse_cpuinfo(text);
  if (!info) {
    problem(f, "cpu", src, info.error());
    return;
  }
  auto& cpu = f.inv.cpu;
  parse::apply_cpuinfo(*info, cpu);
  // As the host probe does without DMI: the CPU flag says a hypervisor, not which.
  if (info->has_hypervisor_flag && !f.inv.host.virtualization) f.inv.host.virtualization = "unknown hypervisor";
  const core::MessageArg model =
      cpu.model_name ? core::MessageArg(*cpu.model_name) : core::MessageArg(core::Message(N_("unknown CPU")));
  note(f, "cpu", from(core::Message(N_("{0}: {1} threads"), model, info->logical_cpus), src));
}

void apply_meminfo(std::string_view text, const std::string& src, Facts& f) {
  auto info = parse::parse_meminfo(text);
  if (!info) {
    problem(f, "memory", src, info.error());
    return;
  }
  auto& mem = f.inv.memory;
  parse::apply_meminfo(*info, mem);
  note(f, "memory", from(core::Message(N_("{} RAM"), fmt::format("{} MiB", mem.total_bytes.value_or(0) >> 20)), src));
}

// ---- the NVIDIA kernel module ----

void apply_modules(std::string_view text, const std::string& src, Facts& f) {
  const auto mods = parse::parse_proc_modules(text);
  auto& d = f.inv.driver;
  d.module_nvidia = mods.count("nvidia") > 0;
  d.module_nvidia_uvm = mods.count("nvidia_uvm") > 0;
  d.module_nvidia_drm = mods.count("nvidia_drm") > 0;
  d.module_nouveau = mods.count("nouveau") > 0;
  note(f, "nvidia_driver",
       from(core::Message(*d.module_nvidia ? N_("/proc/modules: nvidia loaded")
                                           : N_("/proc/modules: nvidia not loaded")),
            src));
}

void apply_version_file(std::string_view text, const std::string& src, Facts& f) {
  auto v = parse::parse_nvidia_version(text);
  if (!v) {
    problem(f, "nvidia_driver", src, v.error());
    return;
  }
  f.inv.driver.kernel_module_version = v->version;
  f.inv.driver.kernel_module_flavor = v->flavor;
  f.inv.driver.loaded = true;
  core::MessageArg flavor = v->flavor;
  if (v->flavor == "open") flavor = core::Message::in_context(NC_("kernel module", "open"));
  if (v->flavor == "proprietary") flavor = core::Message::in_context(NC_("kernel module", "proprietary"));
  note(f, "nvidia_driver", from(core::Message(N_("kernel module {0} ({1})"), v->version, flavor), src));
}

void apply_gpu_information(std::string_view text, const std::string& path, const std::string& src, Facts& f) {
  auto info = parse::parse_nvidia_gpu_information(text);
  if (!info) {
    problem(f, "nvidia_driver", src, info.error());
    return;
  }
  // .../gpus/<bus id>/information
  std::string bus;
  const auto parts = core::split(path, '/');
  if (parts.size() >= 2) bus = std::string(parts[parts.size() - 2]);
  std::string key = info->bus_location.value_or(core::normalize_pci_bus_id(bus).value_or(bus));
  for (const auto& [b, i] : f.proc_gpus) {
    if (b == key) return;
  }
  const core::MessageArg gpu_model =
      info->model ? core::MessageArg(*info->model) : core::MessageArg(core::Message(N_("model unknown")));
  note(f, "nvidia_driver", from(core::Message(N_("GPU {0}: {1}"), key, gpu_model), src));
  f.proc_gpus.emplace_back(std::move(key), std::move(*info));
  if (f.proc_source.empty()) f.proc_source = src;
}

// ---- lspci, nvidia-smi, kernel log, topo ----

void apply_lspci(std::string_view text, const std::string& src, Facts& f, bool required) {
  auto parsed = parse_lspci(text);
  if (!parsed) {
    if (required) problem(f, "pci", src, parsed.error());
    return;
  }
  for (auto& d : parsed->devices) {
    auto it = f.lspci.find(d.address);
    if (it == f.lspci.end()) {
      f.lspci.emplace(d.address, std::move(d));
      continue;
    }
    // A later, more verbose section fills what the earlier one lacked.
    auto& e = it->second;
    auto fill = [](auto& into, const auto& from) {
      if (!into && from) into = from;
    };
    fill(e.class_code, d.class_code);
    fill(e.vendor_id, d.vendor_id);
    fill(e.device_id, d.device_id);
    fill(e.subsystem_vendor_id, d.subsystem_vendor_id);
    fill(e.subsystem_device_id, d.subsystem_device_id);
    fill(e.revision, d.revision);
    fill(e.driver, d.driver);
    fill(e.numa_node, d.numa_node);
    if (d.link_speed_gts || d.link_width) {
      e.link_speed_cap_gts = d.link_speed_cap_gts;
      e.link_width_cap = d.link_width_cap;
      e.link_speed_gts = d.link_speed_gts;
      e.link_width = d.link_width;
      e.speed_downgraded = d.speed_downgraded;
      e.width_downgraded = d.width_downgraded;
    }
    e.config_all_ones = e.config_all_ones || d.config_all_ones;
    if (e.modules.empty()) e.modules = d.modules;
  }
  if (f.lspci_source.empty()) f.lspci_source = src;
  for (auto& p : parsed->problems) problem(f, "pci", core::Message(N_("{0}: {1}"), src, std::move(p)));
}

void apply_smi_text(std::string_view text, const std::string& src, Facts& f, bool required) {
  auto parsed = parse_nvidia_smi_text(text);
  if (!parsed) {
    if (required) problem(f, "nvml", src, parsed.error());
    return;
  }
  if (parsed->error) f.smi_errors.push_back({*parsed->error, parsed->error_kind.value_or("error"), src});
  for (const auto& he : parsed->handle_errors) f.handle_errors.emplace_back(he, src);
  if (parsed->attached_gpus && (!f.attached_gpus || *parsed->attached_gpus > *f.attached_gpus)) {
    f.attached_gpus = parsed->attached_gpus;
  }
  if (parsed->attached_gpus && static_cast<size_t>(*parsed->attached_gpus) > parsed->gpus.size()) {
    const int attached = *parsed->attached_gpus;
    const size_t in_file = parsed->gpus.size();
    problem(
        f, "nvml",
        core::Message(
            // TRANSLATORS: "cut short: " starts the text in the snapshot (doctor reads
            // it there in English); translate the whole sentence for the warning.
            N_("cut short: {0} of {1} GPUs not in the file ({2} of {1} GPUs in {3}, whose header says 'Attached GPUs : {1}')"),
            attached - static_cast<int>(in_file), attached, in_file, src));
  }
  if (f.smi && !f.smi->gpus.empty() && parsed->gpus.empty()) return;
  f.smi = std::move(*parsed);
  f.smi_source = src;
}

// The CSV names fewer fields than -q: it stands for nvidia-smi's view only
// when no -q text did; otherwise it adds the GPUs the text lacks.
void apply_smi_csv(std::string_view text, const std::string& src, Facts& f) {
  auto parsed = parse_nvidia_smi_csv(text);
  if (!parsed) {
    problem(f, "nvml", src, parsed.error());
    return;
  }
  // Each text built once from the parsed lines, never by parsing again.
  for (auto& p : parsed->problems) problem(f, "nvml", core::Message(N_("{0}: {1}"), src, std::move(p)));
  NvidiaSmiText& csv = parsed->smi;
  if (csv.attached_gpus && (!f.attached_gpus || *csv.attached_gpus > *f.attached_gpus))
    f.attached_gpus = csv.attached_gpus;
  if (!f.smi || f.smi->gpus.empty()) {
    f.smi = std::move(csv);
    f.smi_source = src;
    return;
  }
  if (!f.smi->driver_version) f.smi->driver_version = csv.driver_version;
  for (auto& g : csv.gpus) {
    const bool known = std::any_of(f.smi->gpus.begin(), f.smi->gpus.end(), [&](const inventory::Gpu& s) {
      return (g.uuid && s.uuid == g.uuid) || (g.pci_bus_id && s.pci_bus_id == g.pci_bus_id);
    });
    if (!known) f.smi->gpus.push_back(std::move(g));
  }
}

void apply_smi_xml(std::string_view text, const std::string& src, Facts& f) {
  auto parsed = parse::parse_nvidia_smi_xml(text);
  if (!parsed) {
    problem(f, "nvml", src, parsed.error());
    return;
  }
  if (parsed->attached_gpus && (!f.attached_gpus || *parsed->attached_gpus > *f.attached_gpus)) {
    f.attached_gpus = parsed->attached_gpus;
  }
  if (parsed->attached_gpus && static_cast<size_t>(*parsed->attached_gpus) > parsed->gpus.size()) {
    const int attached = *parsed->attached_gpus;
    const size_t in_file = parsed->gpus.size();
    problem(f, "nvml",
            core::Message(
                N_("cut short: {0} of {1} GPUs not in the file ({2} of {1} GPUs in {3}, whose attached_gpus says {1})"),
                attached - static_cast<int>(in_file), attached, in_file, src));
  }
  f.xml = std::move(*parsed);
  f.xml_source = src;
}

void apply_kernel_log(std::string_view text, const std::string& src, Facts& f, Boot boot) {
  auto log = parse_kernel_log(text);
  note(f, "kernel_log", from(core::Message(N_("{} Xid line(s)"), log.xids.size()), src));
  f.kernel_logs.push_back(KernelLogPart{src, std::move(log), boot});
}

// The bug report's kernel-log scan holds several logs, each after an
// indented "  <name>:" line ("journalctl -b -0:", "/var/log/kern.log:").
void apply_kernel_log_scan(std::string_view body, const std::string& src, Facts& f) {
  std::string name;
  size_t part_start = 0;
  auto flush = [&](size_t end) {
    const std::string_view part = body.substr(part_start, end - part_start);
    if (core::trim(part).empty()) return;
    Boot boot = Boot::kMixed;
    if (name == "journalctl -b -0" || name == "/var/log/dmesg") {
      boot = Boot::kCurrent;
    } else if (core::starts_with(name, "journalctl -b -")) {
      boot = Boot::kEarlier;
    }
    apply_kernel_log(part, name.empty() ? src : src + " [" + name + "]", f, boot);
  };
  for (size_t pos = 0; pos < body.size();) {
    size_t nl = body.find('\n', pos);
    if (nl == std::string_view::npos) nl = body.size();
    const std::string_view line = body.substr(pos, nl - pos);
    const std::string_view t = core::trim(line);
    if (!line.empty() && line[0] == ' ' && core::ends_with(t, ":") &&
        (core::starts_with(t, "journalctl") || core::starts_with(t, "/"))) {
      flush(pos);
      name = std::string(t.substr(0, t.size() - 1));
      part_start = nl;
    }
    pos = nl + 1;
  }
  flush(body.size());
}

void apply_topo(std::string_view text, const std::string& src, Facts& f) {
  auto parsed = parse_nvidia_smi_topo(text);
  if (!parsed) {
    problem(f, "topology", src, parsed.error());
    return;
  }
  note(f, "topology", from(core::Message(N_("{} devices in the matrix"), parsed->devices.size()), src));
  f.topo = std::move(*parsed);
  f.topo_source = src;
}

void apply_nvlink(std::string_view text, const std::string& src, Facts& f) {
  const size_t before = f.nvlink.size();
  parse_nvidia_smi_nvlink(text, f.nvlink);
  if (!f.nvlink.empty())
    note(f, "topology",
         from(core::Message(N_("NVLink of {} GPU(s)"), f.nvlink.size() - std::min(before, f.nvlink.size())), src));
}

void apply_nested_nvlink(std::string_view body, const std::string& src, Facts& f) {
  for (const char* cmd : {"nvidia-smi nvlink --remotelinkinfo", "nvidia-smi nvlink --status"}) {
    const size_t at = body.find(cmd);
    if (at == std::string_view::npos) continue;
    std::string_view part = body.substr(at);
    const size_t nl = part.find('\n');
    part = nl == std::string_view::npos ? std::string_view() : part.substr(nl + 1);
    // Up to the next command line ("/usr/bin/nvidia-smi ...").
    for (size_t pos = 0; pos < part.size();) {
      size_t end = part.find('\n', pos);
      if (end == std::string_view::npos) end = part.size();
      if (pos < part.size() && part[pos] == '/') {
        part = part.substr(0, pos);
        break;
      }
      pos = end + 1;
    }
    apply_nvlink(part, src + " [" + cmd + "]", f);
  }
}

// A capture file of several commands (nvidia_gpu_exporter's captures): each
// output follows a "# $ <command>" line and a rule of '#'. The -q report is
// read by apply_smi_text; the topology and NVLink outputs are read here.
void apply_capture_sections(std::string_view text, const std::string& name, Facts& f) {
  constexpr std::string_view kCommand = "# $ ";
  for (size_t at = text.find(kCommand); at != std::string_view::npos; at = text.find(kCommand, at + 1)) {
    if (at > 0 && text[at - 1] != '\n') continue;
    const size_t eol = text.find('\n', at);
    if (eol == std::string_view::npos) break;
    const std::string_view command = core::trim(text.substr(at + kCommand.size(), eol - at - kCommand.size()));
    // The output starts after the rule under the command and ends at the next rule.
    size_t body = text.find('\n', eol + 1);
    if (body == std::string_view::npos) break;
    ++body;
    size_t end = text.find("\n#####", body);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view out = text.substr(body, end - body);
    const std::string src = name + " [" + std::string(command) + "]";
    if (command == "nvidia-smi topo -m") {
      apply_topo(out, src, f);
    } else if (command == "nvidia-smi nvlink -s" || command == "nvidia-smi nvlink --status") {
      apply_nvlink(out, src, f);
    }
  }
}

// The lspci sections worth parsing: any with -v (devices with drivers and
// links) or plain -nn (the full device list); never the -t tree.
bool lspci_listing(std::string_view header) {
  const auto t = core::split_ws(header);
  if (t.empty() || !core::ends_with(t[0], "lspci")) return false;
  for (size_t i = 1; i < t.size(); ++i) {
    if (t[i] == "-d") {
      ++i;
      continue;
    }
    if (core::starts_with(t[i], "-") && t[i].find('t') != std::string_view::npos) return false;
  }
  return true;
}

bool nvidia_smi_query(std::string_view header, bool& xml) {
  const auto t = core::split_ws(header);
  if (t.size() < 2 || !core::ends_with(t[0], "nvidia-smi")) return false;
  if (t[1] != "--query" && t[1] != "-q") return false;
  xml = false;
  for (size_t i = 2; i < t.size(); ++i) {
    if (t[i] == "-x" || t[i] == "--xml-format") {
      xml = true;
    } else {
      return false;  // --unit, -d ...: not the device report
    }
  }
  return true;
}

void import_bug_report(std::string_view text, const std::string& name, Facts& f) {
  auto report = split_bug_report(text);
  if (!report) {
    problem(f, "host", name, report.error());
    return;
  }
  auto& host = f.inv.host;
  if (report->uname) apply_uname(*report->uname, host);
  for (const auto& sec : report->sections) {
    const std::string src = where(name, &sec);
    if (sec.path) {
      const std::string& p = *sec.path;
      if (sec.missing) {
        if (p == "/proc/driver/nvidia/version") f.version_file_missing = true;
        continue;
      }
      if (p == "/proc/cpuinfo") {
        apply_cpuinfo(sec.body, src, f);
      } else if (p == "/proc/meminfo") {
        apply_meminfo(sec.body, src, f);
      } else if (p == "/proc/modules") {
        apply_modules(sec.body, src, f);
      } else if (p == "/proc/version") {
        const std::string_view line = core::trim(sec.body);
        if (!line.empty()) host.kernel_version = std::string(line.substr(0, line.find('\n')));
      } else if (p == "/etc/os-release") {
        apply_os_release(sec.body, host);
      } else if (p == "/etc/lsb-release") {
        apply_lsb_release(sec.body, host);
      } else if (p == "/etc/issue") {
        apply_issue(sec.body, host);
      } else if (p == "/proc/driver/nvidia/version") {
        apply_version_file(sec.body, src, f);
      } else if (core::starts_with(p, "/proc/driver/nvidia/gpus/") && core::ends_with(p, "/information")) {
        apply_gpu_information(sec.body, p, src, f);
      }
      continue;
    }
    const std::string_view h = core::trim(sec.header);
    bool xml = false;
    if (lspci_listing(h)) {
      apply_lspci(sec.body, src, f, false);
    } else if (nvidia_smi_query(h, xml)) {
      if (xml) {
        apply_smi_xml(sec.body, src, f);
      } else {
        apply_smi_text(sec.body, src, f, false);
      }
      // Script versions from 2019 on run `nvidia-smi nvlink --status` and
      // friends inside the same section, each after its command line.
      apply_nested_nvlink(sec.body, src, f);
    } else if (h.find("nvidia-smi nvlink --status") != std::string_view::npos ||
               h.find("nvidia-smi nvlink --remotelinkinfo") != std::string_view::npos) {
      apply_nvlink(sec.body, src, f);
    } else if (h == "dmesg:") {
      apply_kernel_log(sec.body, src, f, Boot::kCurrent);
    } else if (core::starts_with(h, "Scanning kernel log files")) {
      apply_kernel_log_scan(sec.body, src, f);
    } else if (core::ends_with(core::split_ws(h).empty() ? h : core::split_ws(h)[0], "nvidia-smi") &&
               h.find("topo") != std::string_view::npos) {
      apply_topo(sec.body, src, f);
    }
  }
  const core::MessageArg os =
      host.os_pretty_name ? core::MessageArg(*host.os_pretty_name) : core::MessageArg(core::Message(N_("unknown OS")));
  const core::MessageArg kernel =
      host.kernel_release ? core::MessageArg(*host.kernel_release) : core::MessageArg(core::Message(N_("unknown")));
  note(f, "host",
       from(core::Message(N_("{0}, kernel {1}"), os, kernel),
            name + (report->script_version ? ", nvidia-bug-report.sh " + *report->script_version : std::string())));
}

}  // namespace

namespace {

tl::unexpected<core::Error> unknown_kind(const std::string& name) {
  return core::fail(
      core::ErrorCode::kUnsupported, name,
      core::Message(N_(
          "unknown kind of file: expected an nvidia-bug-report log, nvidia-smi -q text or XML, nvidia-smi "
          "--query-gpu CSV with its header, lspci -vvv output or an nvidia-smi topo -m matrix (gzip-compressed or not)")));
}

// A reader's error inside the named file: "NAME: WHERE: MESSAGE".
tl::unexpected<core::Error> in_file(const std::string& name, core::Error e) {
  if (!e.place.empty()) e.place = core::Message(N_("{0}: {1}"), name, std::move(e.place));
  e.where = e.where.empty() ? name : name + ": " + e.where;
  return tl::unexpected<core::Error>(std::move(e));
}

// What kind detection inflates of a gzip'd file: detect_kind looks at the
// first 4096 characters, which UTF-16 makes 8192 bytes.
constexpr size_t kDetectBytes = 16384;

}  // namespace

core::Result<report::Report> import_inputs(const std::vector<Input>& inputs, std::vector<std::string>* warnings) {
  core::Stopwatch watch;
  Facts f;
  std::vector<std::string> names;
  for (const auto& in : inputs) {
    names.push_back(in.name);
    std::string inflated;
    std::string_view text = in.bytes;
    std::optional<core::Message> cut_note;
    if (is_gzip(text)) {
      // The kind first, from the head alone: a gzip bomb (a few MB of
      // zeros that inflate to GBs) costs a few kB here, not the whole inflate.
      std::optional<core::Error> head_cut;
      auto head = gunzip_head(text, kDetectBytes, &head_cut);
      if (!head) return in_file(in.name, head.error());
      const auto head_utf8 = utf16_to_utf8(*head);
      if (detect_kind(head_utf8 ? *head_utf8 : *head) == FileKind::kUnknown) {
        // Cut short before anything recognisable: the cut is what to say.
        if (head_cut) return in_file(in.name, *head_cut);
        return unknown_kind(in.name);
      }
      std::string partial;
      auto out = gunzip(text, kMaxTextBytes, &partial);
      if (out) {
        inflated = std::move(*out);
      } else if (out.error().code == core::ErrorCode::kParse && !partial.empty()) {
        // A bug report whose last gzip members are cut or corrupt: what came
        // before is still evidence; the rest was not examined.
        const core::Error& e = out.error();
        const core::MessageArg what = e.text.empty() ? core::MessageArg(e.message) : core::MessageArg(e.text);
        const core::MessageArg at = e.place.empty() ? core::MessageArg(e.where) : core::MessageArg(e.place);
        // TRANSLATORS: "cut short: " starts the text in the snapshot (doctor
        // reads it there in English); {1} says what is wrong with the gzip
        // data, {2} where ("offset 123").
        cut_note = core::Message(N_("cut short: the end of {0} ({1} at {2}; read the first {3} bytes of text)"),
                                 in.name, what, at, partial.size());
        inflated = std::move(partial);
      } else {
        return in_file(in.name, out.error());
      }
      text = inflated;
    }
    if (cut_note) problem(f, "host", std::move(*cut_note));
    // nvidia-smi output saved by Windows PowerShell's `>` is UTF-16.
    if (auto utf8 = utf16_to_utf8(text)) {
      inflated = std::move(*utf8);
      text = inflated;
    }
    const FileKind kind = detect_kind(text);
    switch (kind) {
      case FileKind::kBugReport: import_bug_report(text, in.name, f); break;
      case FileKind::kNvidiaSmiText:
        apply_smi_text(text, in.name, f, true);
        apply_capture_sections(text, in.name, f);
        break;
      case FileKind::kNvidiaSmiXml: apply_smi_xml(text, in.name, f); break;
      case FileKind::kNvidiaSmiCsv: apply_smi_csv(text, in.name, f); break;
      case FileKind::kLspci: apply_lspci(text, in.name, f, true); break;
      case FileKind::kTopo: apply_topo(text, in.name, f); break;
      case FileKind::kNvlink: apply_nvlink(text, in.name, f); break;
      case FileKind::kProcNvidiaVersion: apply_version_file(text, in.name, f); break;
      case FileKind::kProcGpuInformation: apply_gpu_information(text, in.name, in.name, f); break;
      case FileKind::kUnknown: return unknown_kind(in.name);
    }
  }
  if (warnings != nullptr) *warnings = f.warnings;
  return merge_facts(f, names, watch.seconds());
}

core::Result<report::Report> import_files(const std::vector<std::string>& paths, std::vector<std::string>* warnings) {
  if (paths.empty()) return core::fail(core::ErrorCode::kInvalidArgument, "FILE", _("at least one file to import"));
  std::vector<Input> inputs;
  // The files come from another machine: read them as plain files, never
  // under --root; "-" is stdin and a pipe (<(zcat x.gz)) is read too, with
  // the same cap; directories and devices are refused (core/input_file.h).
  for (const auto& p : paths) {
    auto bytes = TFRIG_TRY(core::read_input_file(p, size_t{64} << 20));
    inputs.push_back(Input{p, std::move(bytes)});
  }
  return import_inputs(inputs, warnings);
}

}  // namespace tfrig::importer

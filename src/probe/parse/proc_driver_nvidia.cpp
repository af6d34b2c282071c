#include "probe/parse/proc_driver_nvidia.h"

#include <cctype>

#include "core/i18n.h"
#include "core/text.h"

namespace tfrig::probe::parse {

namespace {

// "Key: value" with any run of spaces and tabs after the colon.
std::optional<std::pair<std::string_view, std::string_view>> key_value(std::string_view line) {
  const size_t colon = line.find(':');
  if (colon == std::string_view::npos) return std::nullopt;
  return std::make_pair(core::trim(line.substr(0, colon)), core::trim(line.substr(colon + 1)));
}

}  // namespace

core::Result<NvidiaVersionFile> parse_nvidia_version(std::string_view text) {
  NvidiaVersionFile out;
  bool found = false;
  for (auto line : core::split_lines(text)) {
    auto kv = key_value(line);
    if (!kv) continue;
    if (kv->first == "NVRM version") {
      const auto words = core::split_ws(kv->second);
      // The version is the first word shaped like "NNN.NN[.NN]" after "Module".
      bool after_module = false;
      for (size_t i = 0; i < words.size(); ++i) {
        const auto w = words[i];
        if (w == "Open") out.flavor = "open";
        if (w == "x86_64" || w == "aarch64" || w == "ppc64le" || w == "arm64") out.arch = std::string(w);
        if (w == "Module") {
          after_module = true;
          continue;
        }
        if (!after_module || found) continue;
        if (w == "for") continue;
        if (!w.empty() && std::isdigit(static_cast<unsigned char>(w[0])) && w.find('.') != std::string_view::npos) {
          bool ok = true;
          for (char c : w) ok = ok && (std::isdigit(static_cast<unsigned char>(c)) || c == '.');
          if (ok) {
            out.version = std::string(w);
            found = true;
          }
        }
      }
      if (out.flavor.empty()) out.flavor = "proprietary";
    } else if (kv->first == "GCC version" && !kv->second.empty()) {
      out.gcc_version = std::string(kv->second);
    }
  }
  if (!found) {
    return core::fail(
        core::ErrorCode::kParse, "NVRM version",
        core::Message(N_("expected a line like 'NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.113.01 ...'")));
  }
  return out;
}

// What the module prints when it does not know a value ("Model: Unknown"
// for a GPU newer than the driver's name table): null, never a value.
namespace {
bool placeholder_value(std::string_view v) {
  if (v.size() >= 2 && v.front() == '[' && v.back() == ']') v = v.substr(1, v.size() - 2);
  return v == "Unknown" || v == "N/A" || v == "Not Found" || v == "Not Supported" || v == "??.??.??.??.??";
}
}  // namespace

core::Result<NvidiaGpuInformation> parse_nvidia_gpu_information(std::string_view text) {
  NvidiaGpuInformation out;
  int fields = 0;
  for (auto line : core::split_lines(text)) {
    auto kv = key_value(line);
    if (!kv || kv->second.empty()) continue;
    const auto key = kv->first;
    const std::string value(kv->second);
    ++fields;
    if (placeholder_value(value)) continue;
    if (key == "Model") {
      out.model = value;
    } else if (key == "GPU UUID") {
      out.uuid = value;
    } else if (key == "Bus Location") {
      out.bus_location = core::normalize_pci_bus_id(value);
    } else if (key == "Device Minor") {
      if (auto v = core::parse_u64(value); v && *v < 1024) out.device_minor = static_cast<int>(*v);
    } else if (key == "Video BIOS") {
      out.video_bios = value;
    } else if (key == "Bus Type") {
      out.bus_type = value;
    } else if (key == "GPU Firmware") {
      out.firmware = value;
    } else if (key == "GPU Excluded" || key == "Blacklisted") {
      // Renamed from "Blacklisted" to "GPU Excluded" in the 460-series drivers.
      out.excluded = value == "Yes";
    } else {
      --fields;
    }
  }
  if (fields == 0) {
    return core::fail(core::ErrorCode::kParse, "information",
                      core::Message(N_("no 'Model:', 'GPU UUID:' or 'Bus Location:' line")));
  }
  return out;
}

std::set<std::string, std::less<>> parse_proc_modules(std::string_view text) {
  // "nvidia_uvm 1437696 2 - Live 0x0000000000000000 (POE)": the name is the first field.
  std::set<std::string, std::less<>> out;
  for (auto line : core::split_lines(text)) {
    auto fields = core::split_ws(line);
    if (!fields.empty()) out.emplace(fields[0]);
  }
  return out;
}

}  // namespace tfrig::probe::parse

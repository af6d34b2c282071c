#include "report/probe_detail.h"

#include <optional>
#include <regex>
#include <vector>

#include <fmt/args.h>
#include <fmt/format.h>

#include "core/i18n.h"
#include "core/message.h"
#include "core/units.h"

namespace tfrig::report {

namespace {

std::string translate_whole(const std::string& text, bool* matched, int depth = 0);

// The fallback for texts stored without their message (probe.h): inventory
// fields (a GPU's driver problem, NVML's detail, a data path's error), the
// evidence sources the rules write, and NVML's errors in the nvml probe's
// summary (gpulib's errors are English text, not messages). The probes' and
// the importer's summaries and problems, and the parsers' and SysRoot's errors
// in them (core::Error carries its message), are not here: a snapshot
// written by a tfrig older than those messages shows them as stored, in
// English.
//
// One stored English shape: the pattern the importer or a parser writes, and
// the catalog message with a field for each captured group. A nested shape's
// last group is itself a stored text (an NVML error inside "NVML unavailable").
struct Shape {
  std::regex pattern;
  const char* message;
  bool nested = false;
};

const std::vector<Shape>& shapes() {
  static const std::vector<Shape> table = [] {
    std::vector<Shape> t;
    auto add = [&t](const char* re, const char* message) { t.push_back({std::regex(re), message}); };
    auto add_nested = [&t](const char* re, const char* message) { t.push_back({std::regex(re), message, true}); };
    // Tests build inventories by hand; their probes say so.
    add("built for tests", N_("built for tests"));
    // NVML's detail in the inventory (src/probe/nvml_probe.cpp), also the nvml probe's summary.
    add("(\\d+) GPUs? via (.+)", N_("{0} GPUs via {1}"));
    add("NVML initialised but reports no GPU", N_("NVML initialised but reports no GPU"));
    add("NVML reads only the live machine; --root (.+) given", N_("NVML reads only the live machine; --root {} given"));
    add("NVML reads only the live machine; (.+) is a capture \\(NVML answers are not in it\\)",
        N_("NVML reads only the live machine; {} is a capture (NVML answers are not in it)"));
    add("libnvidia-ml\\.so\\.1 not found by the dynamic loader \\(no NVIDIA driver installed\\?\\): (.+)",
        N_("libnvidia-ml.so.1 not found by the dynamic loader (no NVIDIA driver installed?): {}"));
    add("TFRIG_NVML_LIBRARY (.+) could not be loaded: (.+)", N_("TFRIG_NVML_LIBRARY {0} could not be loaded: {1}"));
    add("required NVML entry point (\\S+) missing from (\\S+) \\(library too old, or not NVML\\)",
        N_("required NVML entry point {0} missing from {1} (library too old, or not NVML)"));
    add("NVML could not open GPU (\\d+) \\(see the probe's problems\\)", N_("NVML could not open GPU {} (see the probe's problems)"));
    add_nested("NVML unavailable \\((\\S+)\\): (.+)", N_("NVML unavailable ({0}): {1}"));
    // A GPU without a working driver (nvidia_driver probe's driver_problem).
    add("excluded by the NVIDIA driver \\(NVreg_ExcludedGpus or a failed init\\)", N_("excluded by the NVIDIA driver (NVreg_ExcludedGpus or a failed init)"));
    add("bound to nouveau, the open-source driver: CUDA needs the NVIDIA driver", N_("bound to nouveau, the open-source driver: CUDA needs the NVIDIA driver"));
    add("bound to vfio-pci: passed through to a virtual machine", N_("bound to vfio-pci: passed through to a virtual machine"));
    add("bound to driver '(.+)', not nvidia", N_("bound to driver '{}', not nvidia"));
    add("no driver bound: the nvidia module is loaded but did not take this GPU \\(unsupported by this driver branch\\?\\)",
        N_("no driver bound: the nvidia module is loaded but did not take this GPU (unsupported by this driver branch?)"));
    add("no driver bound; nouveau is loaded", N_("no driver bound; nouveau is loaded"));
    add("no driver bound: the NVIDIA kernel module is not loaded", N_("no driver bound: the NVIDIA kernel module is not loaded"));
    add("bound to nvidia but absent from /proc/driver/nvidia/gpus", N_("bound to nvidia but absent from /proc/driver/nvidia/gpus"));
    // The importer's inventory fields (NVML's detail, a GPU's driver problem).
    add("imported from (.+)", N_("imported from {}"));
    add("kernel log: NVRM API mismatch, client (\\S+) vs kernel module (\\S+)",
        N_("kernel log: NVRM API mismatch, client {0} vs kernel module {1}"));
    add("the driver could not initialise it: (.+)", N_("the driver could not initialise it: {}"));
    add("lspci: the device's config space reads all 1s \\(rev ff\\)", N_("lspci: the device's config space reads all 1s (rev ff)"));
    // Evidence sources the rules write (src/rules/*): JSON keeps them English.
    // An Xid read from an earlier boot's log (inventory::kEarlierBoot after its source).
    add_nested("(.+) \\(an earlier boot\\)", N_("{} (an earlier boot)"));
    add("knowledge (\\S+) \\[(.+)\\]", N_("knowledge {0} [{1}]"));
    add("knowledge (\\S+)", N_("knowledge {}"));
    add("dynamic loader order \\(ld\\.so\\(8\\)\\)", N_("dynamic loader order (ld.so(8))"));
    add("loader search", N_("loader search"));
    add("access\\(2\\) as the current user", N_("access(2) as the current user"));
    add("the file libcuda\\.so\\.1 resolves to", N_("the file libcuda.so.1 resolves to"));
    add("tfrig target resolution", N_("tfrig target resolution"));
    add("NVML topology / P2P status", N_("NVML topology / P2P status"));
    add("nvidia-smi, kernel log, lspci", N_("nvidia-smi, kernel log, lspci"));
    add("kernel log", N_("kernel log"));
    add("environment", N_("environment"));
    add("/proc/cpuinfo flags", N_("/proc/cpuinfo flags"));
    add("(\\S+) or (\\S+)", N_("{0} or {1}"));
    add("lspci LnkSta / sysfs current_link_width of (\\S+)", N_("lspci LnkSta / sysfs current_link_width of {}"));
    add("lspci LnkCap / sysfs max_link_width of (\\S+)", N_("lspci LnkCap / sysfs max_link_width of {}"));
    add("the GPU's link capability \\(lspci LnkCap / sysfs max_link_width\\)", N_("the GPU's link capability (lspci LnkCap / sysfs max_link_width)"));
    // Why NVML did not start (src/gpulib/nvml.cpp); the call and its return code stay.
    add("the user-space driver library and the loaded kernel module are different versions \\(driver upgraded without a reboot, or two drivers installed\\)",
        N_("the user-space driver library and the loaded kernel module are different versions (driver upgraded without a reboot, or two drivers installed)"));
    add("this user cannot open /dev/nvidia\\*", N_("this user cannot open /dev/nvidia*"));
    add("the nvidia kernel module is not loaded", N_("the nvidia kernel module is not loaded"));
    // TRANSLATORS: an NVML call and its return code ("nvmlInit_v2 returned NVML_ERROR_NO_PERMISSION (Insufficient Permissions)").
    add("(\\w+) returned (\\w+) \\(([^()]*)\\)", N_("{0} returned {1} ({2})"));
    add("(\\w+) returned (\\w+)", N_("{0} returned {1}"));
    add("present on the PCI bus but not listed by NVML", N_("present on the PCI bus but not listed by NVML"));
    // What the probes themselves found malformed.
    add("(.+): failed", N_("{}: failed"));
    // What core::SysRoot says of a data path it could not read (inventory data_paths[].error).
    add("larger than the (\\d+) bytes expected", N_("larger than the {} bytes expected"));
    add("binary data \\(NUL byte at offset (\\d+)\\), expected one line of text",
        N_("binary data (NUL byte at offset {}), expected one line of text"));
    // Where --data lies (storage probe, inventory data_paths[].error).
    add("cannot resolve the root", N_("cannot resolve the root"));
    add("(\\S+) resolves to (\\S+), outside the root (\\S+)", N_("{0} resolves to {1}, outside the root {2}"));
    add("no mount point contains (.+)", N_("no mount point contains {}"));
    return t;
  }();
  return table;
}

// The NVML states the inventory stores (gpulib::failure_state_name).
std::optional<std::string> with_state(const std::string& text) {
  static const std::regex re("(ok|not_tried|library_missing|symbol_missing|driver_mismatch|no_permission|driver_not_loaded|no_device|error): (.+)");
  std::smatch m;
  if (!std::regex_match(text, m, re)) return std::nullopt;
  bool matched = false;
  return nvml_state(m[1].str()) + _(": ") + translate_whole(m[2].str(), &matched);
}

// core::errno_error's "ACTION failed: REASON" ("open failed: No such file or
// directory"): the action and the system's reason as the catalog has them.
std::optional<std::string> file_failure(const std::string& text) {
  static const std::regex re("([A-Za-z_ ]+) failed: (.+?)( \\(symlink loop\\))?");
  std::smatch m;
  if (!std::regex_match(text, m, re)) return std::nullopt;
  const std::string action = C_("file operation", m[1].str());
  const std::string reason(core::i18n::translate(m[2].str()));
  if (action == m[1].str() && reason == m[2].str()) return std::nullopt;
  std::string out = trf("{0} failed: {1}", action, reason);
  if (m[3].matched) out += _(" (symlink loop)");
  return out;
}

// "PATH: MESSAGE" (core::Error::to_string in an inventory field): the message
// must be a known shape; the path stays. The first few ": " of at most three
// levels are tried.
std::optional<std::string> translate_prefixed(const std::string& text, int depth) {
  if (depth >= 3) return std::nullopt;
  int tries = 0;
  for (size_t at = text.find(": "); at != std::string::npos && tries < 3; at = text.find(": ", at + 2), ++tries) {
    bool matched = false;
    std::string rest = translate_whole(text.substr(at + 2), &matched, depth + 1);
    if (!matched) continue;
    // The part before: a known shape ("nvmlInit_v2 returned ...") or a path kept as is.
    const std::string label = translate_whole(text.substr(0, at), &matched, 3);
    return label + _(": ") + rest;
  }
  return std::nullopt;
}

std::string translate_whole(const std::string& text, bool* matched, int depth) {
  std::smatch m;
  for (const auto& s : shapes()) {
    if (!std::regex_match(text, m, s.pattern)) continue;
    fmt::dynamic_format_arg_store<fmt::format_context> args;
    for (size_t i = 1; i < m.size(); ++i) {
      std::string v = m[i].str();
      if (s.nested && i + 1 == m.size()) {
        bool inner = false;
        args.push_back(translate_whole(v, &inner, depth + 1));
        continue;
      }
      // A nested shape's other fields are NVML state keys ("NVML unavailable (driver_mismatch)").
      if (s.nested) {
        args.push_back(nvml_state(v));
        continue;
      }
      args.push_back(v);
    }
    *matched = true;
    return core::i18n::format_translated(core::i18n::translate(s.message), s.message, args);
  }
  if (auto st = with_state(text)) {
    *matched = true;
    return *st;
  }
  if (auto f = file_failure(text)) {
    *matched = true;
    return *f;
  }
  // After a path: a message the catalog holds as it is ("is a directory, expected a file").
  if (depth > 0) {
    const std::string_view t = core::i18n::translate(text);
    if (t != text) {
      *matched = true;
      return std::string(t);
    }
  }
  if (auto p = translate_prefixed(text, depth)) {
    *matched = true;
    return *p;
  }
  *matched = false;
  return text;
}

// Splits at "; " outside parentheses.
std::vector<std::string> segments(std::string_view text) {
  std::vector<std::string> out;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '(') ++depth;
    if (text[i] == ')' && depth > 0) --depth;
    if (depth == 0 && text.compare(i, 2, "; ") == 0) {
      out.emplace_back(text.substr(start, i - start));
      start = i + 2;
      ++i;
    }
  }
  out.emplace_back(text.substr(start));
  return out;
}

// One segment, perhaps with the importer's " (file:line (section))" after it.
std::string translate_segment(const std::string& seg) {
  bool matched = false;
  std::string out = translate_whole(seg, &matched);
  if (matched || seg.empty() || seg.back() != ')') return out;
  int depth = 0;
  for (size_t i = seg.size(); i-- > 0;) {
    if (seg[i] == ')') ++depth;
    if (seg[i] == '(' && --depth == 0) {
      if (i == 0 || seg[i - 1] != ' ') return seg;
      const std::string head = translate_whole(seg.substr(0, i - 1), &matched);
      return matched ? head + " " + seg.substr(i) : seg;
    }
  }
  return seg;
}

}  // namespace

std::string nvml_state(const std::string& state) {
  // TRANSLATORS: NVML states; English shows the inventory's key as it is.
  if (state == "ok") return C_("NVML state", "ok");
  if (state == "not_tried") return C_("NVML state", "not_tried");
  if (state == "library_missing") return C_("NVML state", "library_missing");
  if (state == "symbol_missing") return C_("NVML state", "symbol_missing");
  if (state == "driver_mismatch") return C_("NVML state", "driver_mismatch");
  if (state == "no_permission") return C_("NVML state", "no_permission");
  if (state == "driver_not_loaded") return C_("NVML state", "driver_not_loaded");
  if (state == "no_device") return C_("NVML state", "no_device");
  if (state == "error") return C_("NVML state", "error");
  return state;
}

std::string status_detail(const probe::ProbeStatus& s) {
  if (s.detail_message) return core::render(*s.detail_message, core::i18n::language());
  return probe_detail(s.detail);
}

std::string status_problem(const probe::ProbeStatus& s, size_t i) {
  if (i < s.problem_messages.size() && s.problem_messages[i]) return core::render(*s.problem_messages[i], core::i18n::language());
  return i < s.problems.size() ? probe_detail(s.problems[i]) : std::string();
}

std::string probe_detail(std::string_view english) {
  if (english.empty() || core::i18n::language() == "en") return std::string(english);
  const std::string whole(english);
  bool matched = false;
  std::string out = translate_whole(whole, &matched);
  if (matched) return out;
  // Segments joined by "; ": translated ones get the reader's separator; a
  // text none of whose parts is known stays exactly as stored.
  out.clear();
  bool any = false;
  for (const auto& seg : segments(english)) {
    if (!out.empty()) out += _("; ");
    std::string t = translate_segment(seg);
    any = any || t != seg;
    out += t;
  }
  return any ? out : whole;
}

}  // namespace tfrig::report

#include "report/probe_detail.h"

#include <optional>
#include <utility>
#include <regex>
#include <vector>

#include <fmt/format.h>

#include "core/i18n.h"
#include "core/message.h"
#include "core/units.h"

namespace tfrig::report {

namespace {

std::optional<core::Message> translate_whole(const std::string& text, int depth);

// The fallback for texts stored without their message (probe.h). What still
// needs it, and why (issue 31 part 5; docs/i18n.md):
//  - inventory fields, in every snapshot, new or old: NVML's detail
//    (driver.nvml.detail, the English twin of the nvml probe's summary), a
//    GPU's driver problem and a lost GPU's evidence (nvidia_driver and nvml
//    probes, the importer), a data path's error (core::SysRoot, the storage
//    probe). The inventory stores them as English strings without messages,
//    so these shapes are live for a snapshot written today;
//  - the evidence sources the rules write as literals ("kernel log",
//    "knowledge FILE [ID]") and the HTML page, which reads a finding's source
//    from the JSON;
//  - old snapshots only: a probe's summary and problems written before
//    ProbeStatus carried detail_message / problem_messages (status_detail and
//    status_problem render the message when there is one, and fall back to
//    this table only then). "built for tests" is one: the hand-made test
//    snapshots in tests/data/snapshots predate the messages.
// The table builds the message of such a text (probe_detail_message), so a
// rule that quotes one keeps its English and its message. The probes' and the
// importer's summaries and problems, the parsers' and SysRoot's errors in
// them (core::Error carries its message) and NVML's errors (gpulib::NvmlError
// carries one) are not here: a snapshot written by a tfrig older than those
// messages shows them as stored, in English.
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

// A text as a message argument: its message when it is a known shape, else as it is.
core::MessageArg shape_or_text(const std::string& text, int depth) {
  if (auto m = translate_whole(text, depth)) return *m;
  return text;
}

// The NVML states the inventory stores (gpulib::failure_state_name).
std::optional<core::Message> with_state(const std::string& text) {
  static const std::regex re("(ok|not_tried|library_missing|symbol_missing|driver_mismatch|no_permission|driver_not_loaded|no_device|error): (.+)");
  std::smatch m;
  if (!std::regex_match(text, m, re)) return std::nullopt;
  return core::Message(N_("{0}: {1}"), nvml_state_message(m[1].str()), shape_or_text(m[2].str(), 0));
}

// core::errno_error's "ACTION failed: REASON" ("open failed: No such file or
// directory"): the action and the system's reason as the catalog has them.
std::optional<core::Message> file_failure(const std::string& text) {
  static const std::regex re("([A-Za-z_ ]+) failed: (.+?)( \\(symlink loop\\))?");
  std::smatch m;
  if (!std::regex_match(text, m, re)) return std::nullopt;
  core::Message action(m[1].str());
  action.context = "file operation";
  const core::Message reason(m[2].str());
  const bool action_known = core::known_message(action);
  const bool reason_known = core::known_message(reason);
  if (!action_known && !reason_known) return std::nullopt;
  core::Message out(N_("{0} failed: {1}"), action_known ? core::MessageArg(action) : core::MessageArg(m[1].str()),
                    reason_known ? core::MessageArg(reason) : core::MessageArg(m[2].str()));
  if (m[3].matched) out = core::Message(N_("{0}{1}"), std::move(out), core::Message(N_(" (symlink loop)")));
  return out;
}

// "PATH: MESSAGE" (core::Error::to_string in an inventory field): the message
// must be a known shape; the path stays. The first few ": " of at most three
// levels are tried.
std::optional<core::Message> translate_prefixed(const std::string& text, int depth) {
  if (depth >= 3) return std::nullopt;
  int tries = 0;
  for (size_t at = text.find(": "); at != std::string::npos && tries < 3; at = text.find(": ", at + 2), ++tries) {
    auto rest = translate_whole(text.substr(at + 2), depth + 1);
    if (!rest) continue;
    // The part before: a known shape ("nvmlInit_v2 returned ...") or a path kept as is.
    return core::Message(N_("{0}: {1}"), shape_or_text(text.substr(0, at), 3), std::move(*rest));
  }
  return std::nullopt;
}

std::optional<core::Message> translate_whole(const std::string& text, int depth) {
  std::smatch m;
  for (const auto& s : shapes()) {
    if (!std::regex_match(text, m, s.pattern)) continue;
    core::Message out(s.message);
    for (size_t i = 1; i < m.size(); ++i) {
      std::string v = m[i].str();
      if (s.nested && i + 1 == m.size()) {
        out.args.push_back(shape_or_text(v, depth + 1));
      } else if (s.nested) {
        // A nested shape's other fields are NVML state keys ("NVML unavailable (driver_mismatch)").
        out.args.emplace_back(nvml_state_message(v));
      } else {
        out.args.emplace_back(std::move(v));
      }
    }
    return out;
  }
  if (auto st = with_state(text)) return st;
  if (auto f = file_failure(text)) return f;
  // After a path: a message the catalog holds as it is ("is a directory, expected a file").
  if (depth > 0) {
    core::Message as_is(text);
    if (core::known_message(as_is)) return as_is;
  }
  return translate_prefixed(text, depth);
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
std::optional<core::Message> translate_segment(const std::string& seg) {
  if (auto whole = translate_whole(seg, 0)) return whole;
  if (seg.empty() || seg.back() != ')') return std::nullopt;
  int depth = 0;
  for (size_t i = seg.size(); i-- > 0;) {
    if (seg[i] == ')') ++depth;
    if (seg[i] == '(' && --depth == 0) {
      if (i == 0 || seg[i - 1] != ' ') return std::nullopt;
      auto head = translate_whole(seg.substr(0, i - 1), 0);
      if (!head) return std::nullopt;
      return core::Message(N_("{0} {1}"), std::move(*head), seg.substr(i));
    }
  }
  return std::nullopt;
}

}  // namespace

core::Message nvml_state_message(const std::string& state) {
  // TRANSLATORS: NVML states; English shows the inventory's key as it is.
  static const std::pair<const char*, const char*> kStates[] = {
      NC_("NVML state", "ok"),           NC_("NVML state", "not_tried"),       NC_("NVML state", "library_missing"),
      NC_("NVML state", "symbol_missing"), NC_("NVML state", "driver_mismatch"), NC_("NVML state", "no_permission"),
      NC_("NVML state", "driver_not_loaded"), NC_("NVML state", "no_device"), NC_("NVML state", "error"),
  };
  for (const auto& known : kStates) {
    if (state == known.second) return core::Message::in_context(known);
  }
  return core::Message("{}", state);  // not a catalog pattern: the key shows as it is
}

std::optional<core::Message> probe_detail_message(std::string_view english) {
  if (english.empty()) return std::nullopt;
  const std::string whole(english);
  std::optional<core::Message> out = translate_whole(whole, 0);
  if (!out) {
    // Segments joined by "; ": a text none of whose parts is known has no message.
    bool any = false;
    for (const auto& seg : segments(english)) {
      auto t = translate_segment(seg);
      any = any || t.has_value();
      core::MessageArg part = t ? core::MessageArg(std::move(*t)) : core::MessageArg(seg);
      out = out ? core::Message(N_("{0}; {1}"), std::move(*out), std::move(part)) : core::Message("{}", std::move(part));
    }
    if (!any) return std::nullopt;
  }
  // The message must say exactly the stored English (it is its JSON's twin).
  if (core::english(*out) != whole) return std::nullopt;
  return out;
}

std::string nvml_state(const std::string& state) { return core::render(nvml_state_message(state), core::i18n::language()); }

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
  if (auto m = probe_detail_message(english)) return core::render(*m, core::i18n::language());
  return std::string(english);
}

}  // namespace tfrig::report

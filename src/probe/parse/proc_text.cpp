#include "probe/parse/proc_text.h"

#include <algorithm>
#include <cctype>
#include <set>

#include "core/i18n.h"
#include "core/text.h"

namespace tfrig::probe::parse {

using core::ErrorCode;
using core::fail;
using core::Message;

namespace {

// Undoes os-release's shell-like quoting: "..." with \" \\ \$ \` escapes, or '...'.
std::string unquote(std::string_view v) {
  if (v.size() >= 2 && v.front() == '\'' && v.back() == '\'') return std::string(v.substr(1, v.size() - 2));
  if (v.size() >= 2 && v.front() == '"' && v.back() == '"') {
    v = v.substr(1, v.size() - 2);
    std::string out;
    for (size_t i = 0; i < v.size(); ++i) {
      if (v[i] == '\\' && i + 1 < v.size()) {
        ++i;
      }
      out += v[i];
    }
    return out;
  }
  return std::string(v);
}

std::string decode_octal_escapes(std::string_view s) {
  auto is_oct = [](char c) { return c >= '0' && c <= '7'; };
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 3 < s.size() && is_oct(s[i + 1]) && is_oct(s[i + 2]) && is_oct(s[i + 3])) {
      out += static_cast<char>(((s[i + 1] - '0') << 6) | ((s[i + 2] - '0') << 3) | (s[i + 3] - '0'));
      i += 3;
      continue;
    }
    out += s[i];
  }
  return out;
}

std::optional<uint64_t> parse_limit_value(std::string_view v) {
  v = core::trim(v);
  if (v == "unlimited" || v == "infinity" || v == "-1") return inventory::Limit::kUnlimited;
  return core::parse_u64(v);
}

}  // namespace

OsRelease parse_os_release(std::string_view text) {
  OsRelease out;
  int line_no = 0;
  for (std::string_view line : core::split_lines(text)) {
    ++line_no;
    line = core::trim(line);
    if (line.empty() || line.front() == '#') continue;
    size_t eq = line.find('=');
    bool valid_key = eq != std::string_view::npos && eq > 0;
    for (size_t i = 0; valid_key && i < eq; ++i) {
      char c = line[i];
      valid_key = std::isalnum(static_cast<unsigned char>(c)) || c == '_';
    }
    if (!valid_key) {
      out.bad_lines.push_back(line_no);
      continue;
    }
    out.values[std::string(line.substr(0, eq))] = unquote(core::trim(line.substr(eq + 1)));
  }
  return out;
}

namespace {

// What reading /proc/cpuinfo keeps from one "processor" block to the next.
struct CpuinfoScan {
  CpuinfoSummary out;
  std::set<std::string> packages;
  std::set<std::pair<std::string, std::string>> cores;
  std::optional<int> cores_per_socket;
  std::string physical_id;
  bool in_first = true;
  bool seen_processor = false;
  std::optional<std::string> arm_part;
  std::optional<std::string> power_model;  // ppc64le: "cpu : POWER9, altivec supported"
  int with_core_id = 0;                    // processors that carry both physical id and core id
  bool has_physical = false, has_core = false;
  int fields_first = 0, fields_current = 0;

  void end_processor() {
    if (has_physical && has_core) ++with_core_id;
  }

  // "processor : N" starts a CPU's block; arm64 prints a bare one per CPU
  // too, older arm a model line.
  void processor(std::string_view value) {
    if (!core::parse_u64(value)) {
      if (!out.model_name) out.model_name = std::string(value);
      return;
    }
    if (seen_processor) {
      end_processor();
      if (in_first) fields_first = fields_current - 1;
      in_first = false;
    }
    seen_processor = true;
    ++out.logical_cpus;
    physical_id.clear();
    has_physical = has_core = false;
    fields_current = 1;
  }

  // One "key : value" line of a block.
  void field(std::string_view key, std::string_view value) {
    ++fields_current;
    if (key == "processor") {
      processor(value);
    } else if (key == "cpu" && !power_model && !core::parse_u64(value)) {
      power_model = std::string(value);
    } else if (key == "vendor_id" && !out.vendor) {
      out.vendor = std::string(value);
    } else if (key == "CPU implementer" && !out.vendor) {
      out.vendor = "arm implementer " + std::string(value);
    } else if (key == "CPU part" && !arm_part) {
      arm_part = std::string(value);
    } else if ((key == "model name" || key == "Hardware") && !out.model_name) {
      out.model_name = std::string(value);
    } else if (key == "physical id") {
      physical_id = std::string(value);
      packages.insert(physical_id);
      has_physical = true;
    } else if (key == "core id") {
      cores.emplace(physical_id, std::string(value));
      has_core = true;
    } else if (key == "cpu cores" && !cores_per_socket) {
      if (auto n = core::parse_u64(value)) cores_per_socket = static_cast<int>(*n);
    } else if ((key == "flags" || key == "Features") && in_first) {
      for (auto f : core::split_ws(value)) out.flags.emplace(f);
    } else if (key == "cpu MHz" && in_first && !out.mhz) {
      out.mhz = core::parse_double(value);
    }
  }

  // After the last line: truncation, the model name of other architectures,
  // sockets and cores.
  void finish(std::string_view text) {
    if (seen_processor) end_processor();
    if (in_first) fields_first = fields_current;
    out.truncated = (!text.empty() && text.back() != '\n') || (out.logical_cpus > 1 && fields_current < fields_first);
    if (!out.model_name && power_model) out.model_name = *power_model;
    if (!out.model_name && arm_part) out.model_name = "ARM CPU part " + *arm_part;
    if (!packages.empty()) out.sockets = static_cast<int>(packages.size());
    // Core ids count cores only when every processor has one; a cut capture
    // would undercount.
    if (!cores.empty() && with_core_id == out.logical_cpus) {
      out.physical_cores = static_cast<int>(cores.size());
    } else if (cores_per_socket && out.sockets) {
      out.physical_cores = *cores_per_socket * *out.sockets;
    }
    out.has_hypervisor_flag = out.flags.count("hypervisor") > 0;
  }
};

}  // namespace

core::Result<CpuinfoSummary> parse_cpuinfo(std::string_view text) {
  if (!core::looks_like_text(text))
    return fail(ErrorCode::kParse, "", Message(N_("binary data, expected /proc/cpuinfo text")));
  CpuinfoScan scan;
  for (std::string_view line : core::split_lines(text)) {
    size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    scan.field(core::trim(line.substr(0, colon)), core::trim(line.substr(colon + 1)));
  }
  if (scan.out.logical_cpus == 0)
    return fail(ErrorCode::kParse, "", Message(N_("no 'processor' entries, expected /proc/cpuinfo text")));
  scan.finish(text);
  return std::move(scan.out);
}

core::Result<std::map<std::string, uint64_t, std::less<>>> parse_meminfo(std::string_view text) {
  std::map<std::string, uint64_t, std::less<>> out;
  int line_no = 0;
  for (std::string_view line : core::split_lines(text)) {
    ++line_no;
    if (core::trim(line).empty()) continue;
    // Per-node files prefix "Node 0 ": drop it.
    if (core::starts_with(line, "Node ")) {
      auto fields = core::split_ws(line);
      if (fields.size() < 3) continue;
      line = line.substr(static_cast<size_t>(fields[2].data() - line.data()));
    }
    size_t colon = line.find(':');
    if (colon == std::string_view::npos) {
      return fail(ErrorCode::kParse, Message(N_("line {}"), line_no),
                  Message(N_("expected 'Key: value [kB]', got '{}'"), core::printable(line)));
    }
    std::string_view key = core::trim(line.substr(0, colon));
    auto fields = core::split_ws(line.substr(colon + 1));
    if (fields.empty()) continue;
    auto value = core::parse_u64(fields[0]);
    if (!value) {
      return fail(ErrorCode::kParse, Message(N_("line {}"), line_no),
                  Message(N_("expected a number for {}"), std::string(key)));
    }
    uint64_t v = *value;
    if (fields.size() > 1 && (fields[1] == "kB" || fields[1] == "KB")) {
      if (v > UINT64_MAX / 1024)
        return fail(ErrorCode::kParse, Message(N_("line {}"), line_no), Message(N_("value too large")));
      v *= 1024;
    }
    out[std::string(key)] = v;
  }
  if (out.empty()) return fail(ErrorCode::kParse, "", Message(N_("empty, expected 'MemTotal: N kB' lines")));
  return out;
}

core::Result<std::vector<int>> parse_cpulist(std::string_view text) {
  std::vector<int> out;
  // Raw sysfs files may end in "\n\0" padding.
  while (!text.empty() && (text.back() == '\0' || text.back() == '\n' || text.back() == ' ')) text.remove_suffix(1);
  text = core::trim(text);
  if (text.empty()) return out;
  for (std::string_view part : core::split(text, ',')) {
    part = core::trim(part);
    size_t dash = part.find('-');
    auto first = core::parse_u64(part.substr(0, dash));
    auto last = dash == std::string_view::npos ? first : core::parse_u64(part.substr(dash + 1));
    // 65536 CPUs bounds what one range may expand to (Linux NR_CPUS max is 8192).
    if (!first || !last || *last < *first || *last >= 65536) {
      return fail(ErrorCode::kParse, "", Message(N_("bad CPU range '{}', expected N or N-M"), core::printable(part)));
    }
    for (uint64_t c = *first; c <= *last; ++c) out.push_back(static_cast<int>(c));
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

core::Result<std::vector<int>> parse_cpumask(std::string_view text) {
  while (!text.empty() && (text.back() == '\0' || text.back() == '\n' || text.back() == ' ')) text.remove_suffix(1);
  text = core::trim(text);
  std::vector<int> out;
  if (text.empty()) return out;
  auto words = core::split(text, ',');
  // 2048 words = 65536 CPUs, the same bound as parse_cpulist.
  if (words.size() > 2048) return fail(ErrorCode::kParse, "", Message(N_("CPU mask too long")));
  for (size_t w = 0; w < words.size(); ++w) {
    auto value = core::parse_u64(core::trim(words[w]), 16);
    if (!value || *value > 0xffffffffULL) {
      return fail(ErrorCode::kParse, "",
                  Message(N_("bad CPU mask word '{}', expected 8 hex digits"), core::printable(words[w])));
    }
    const size_t base = (words.size() - 1 - w) * 32;
    for (int bit = 0; bit < 32; ++bit) {
      if (*value & (1ULL << bit)) out.push_back(static_cast<int>(base) + bit);
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::optional<std::string> parse_bracket_choice(std::string_view text) {
  size_t open = text.find('[');
  size_t close = text.find(']', open == std::string_view::npos ? 0 : open);
  if (open == std::string_view::npos || close == std::string_view::npos || close <= open + 1) {
    auto t = core::trim(text);
    // Some kernels print the single active value without brackets.
    if (!t.empty() && t.find(' ') == std::string_view::npos) return std::string(t);
    return std::nullopt;
  }
  return std::string(text.substr(open + 1, close - open - 1));
}

MountInfo parse_mountinfo(std::string_view text) {
  MountInfo out;
  int line_no = 0;
  for (std::string_view line : core::split_lines(text)) {
    ++line_no;
    if (core::trim(line).empty()) continue;
    auto f = core::split_ws(line);
    // 36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/root rw,errors=continue
    auto sep = std::find(f.begin(), f.end(), std::string_view("-"));
    if (f.size() < 7 || sep == f.end() || sep - f.begin() < 6 || f.end() - sep < 3) {
      out.bad_lines.push_back(line_no);
      continue;
    }
    MountInfoEntry e;
    auto id = core::parse_u64(f[0]);
    auto parent = core::parse_u64(f[1]);
    size_t colon = f[2].find(':');
    auto major = colon == std::string_view::npos ? std::nullopt : core::parse_u64(f[2].substr(0, colon));
    auto minor = colon == std::string_view::npos ? std::nullopt : core::parse_u64(f[2].substr(colon + 1));
    if (!id || !parent || !major || !minor || *id > INT32_MAX || *parent > INT32_MAX || *major > UINT32_MAX ||
        *minor > UINT32_MAX) {
      out.bad_lines.push_back(line_no);
      continue;
    }
    e.mount_id = static_cast<int>(*id);
    e.parent_id = static_cast<int>(*parent);
    e.major = static_cast<unsigned>(*major);
    e.minor = static_cast<unsigned>(*minor);
    e.root = decode_octal_escapes(f[3]);
    e.mount_point = decode_octal_escapes(f[4]);
    e.options = std::string(f[5]);
    e.fs_type = std::string(sep[1]);
    e.source = decode_octal_escapes(sep[2]);
    if (f.end() - sep >= 4) e.super_options = std::string(sep[3]);
    out.entries.push_back(std::move(e));
  }
  return out;
}

MountInfo parse_proc_mounts(std::string_view text) {
  MountInfo out;
  int line_no = 0;
  for (std::string_view line : core::split_lines(text)) {
    ++line_no;
    if (core::trim(line).empty()) continue;
    auto f = core::split_ws(line);
    if (f.size() < 4) {
      out.bad_lines.push_back(line_no);
      continue;
    }
    MountInfoEntry e;
    e.source = decode_octal_escapes(f[0]);
    e.mount_point = decode_octal_escapes(f[1]);
    e.fs_type = std::string(f[2]);
    e.options = std::string(f[3]);
    out.entries.push_back(std::move(e));
  }
  return out;
}

bool is_network_filesystem(std::string_view fs_type) {
  static const std::set<std::string_view> kNetwork = {
      "nfs",   "nfs4",   "cifs",  "smb3", "smbfs",    "ncpfs", "afs",  "ceph",  "glusterfs", "lustre", "gpfs", "beegfs",
      "fhgfs", "wekafs", "panfs", "9p",   "orangefs", "ocfs2", "gfs2", "davfs", "coda",      "pvfs2",  "cvfs"};
  if (kNetwork.count(fs_type)) return true;
  // FUSE: sshfs, s3fs, gcsfuse, rclone, juicefs, ... all go through a daemon,
  // most over a network. lxcfs and the portal are local.
  if (core::starts_with(fs_type, "fuse.")) {
    return fs_type != "fuse.lxcfs" && fs_type != "fuse.portal" && fs_type != "fuse.gvfsd-fuse";
  }
  return false;
}

core::Result<std::map<std::string, ProcLimit, std::less<>>> parse_proc_limits(std::string_view text) {
  std::map<std::string, ProcLimit, std::less<>> out;
  auto lines = core::split_lines(text);
  if (lines.empty() || !core::starts_with(core::trim(lines[0]), "Limit")) {
    return fail(ErrorCode::kParse, Message(N_("line {}"), 1),
                Message(N_("expected the header 'Limit  Soft Limit  Hard Limit  Units'")));
  }
  for (size_t i = 1; i < lines.size(); ++i) {
    std::string_view line = lines[i];
    if (core::trim(line).empty()) continue;
    // Columns are fixed-width but names contain spaces: take the name as the
    // words before the first value-looking field.
    auto f = core::split_ws(line);
    size_t v = 0;
    while (v < f.size() && !parse_limit_value(f[v])) ++v;
    if (v == 0 || v + 1 >= f.size()) {
      return fail(ErrorCode::kParse, Message(N_("line {}"), i + 1),
                  Message(N_("expected 'Name  soft  hard  [units]', got '{}'"), core::printable(line)));
    }
    std::string name;
    for (size_t k = 0; k < v; ++k) {
      if (k) name += ' ';
      name += std::string(f[k]);
    }
    out[name] = ProcLimit{parse_limit_value(f[v]), parse_limit_value(f[v + 1])};
  }
  return out;
}

LimitsConf parse_limits_conf(std::string_view text, const std::string& file_name) {
  LimitsConf out;
  int line_no = 0;
  for (std::string_view line : core::split_lines(text)) {
    ++line_no;
    size_t hash = line.find('#');
    if (hash != std::string_view::npos) line = line.substr(0, hash);
    line = core::trim(line);
    if (line.empty()) continue;
    auto f = core::split_ws(line);
    auto problem = [&](core::Message what) {
      core::Message m(N_("{0}: {1}"), file_name + ":" + std::to_string(line_no), std::move(what));
      out.problems.push_back(core::english(m));
      out.problem_messages.push_back(std::move(m));
    };
    if (f.size() != 4) {
      problem(core::Message(N_("expected '<domain> <type> <item> <value>', got '{}'"), core::printable(line)));
      continue;
    }
    if (f[1] != "soft" && f[1] != "hard" && f[1] != "-") {
      problem(core::Message(N_("type must be soft, hard or -, got '{}'"), core::printable(f[1])));
      continue;
    }
    // pam_limits takes a number, or unlimited/infinity/-1 for no limit
    // (priority and nice may be negative).
    if (!parse_limit_value(f[3]) && !core::parse_i64(f[3])) {
      problem(core::Message(N_("value must be a number or 'unlimited', got '{}'"), core::printable(f[3])));
      continue;
    }
    out.entries.push_back(inventory::LimitsConfEntry{file_name, line_no, std::string(f[0]), std::string(f[1]),
                                                     std::string(f[2]), std::string(f[3])});
  }
  return out;
}

std::optional<double> parse_link_speed(std::string_view text) {
  auto f = core::split_ws(core::trim(text));
  if (f.size() < 2 || f[1] != "GT/s") return std::nullopt;
  auto v = core::parse_double(f[0]);
  if (!v || *v <= 0) return std::nullopt;
  return v;
}

void apply_os_release(const OsRelease& os, inventory::HostInfo& host) {
  auto get = [&os](const char* key) -> std::optional<std::string> {
    auto it = os.values.find(key);
    if (it == os.values.end() || it->second.empty()) return std::nullopt;
    return it->second;
  };
  host.os_id = get("ID");
  host.os_name = get("NAME");
  host.os_version_id = get("VERSION_ID");
  host.os_pretty_name = get("PRETTY_NAME");
  host.os_codename = get("VERSION_CODENAME");
  if (!host.os_codename) host.os_codename = get("UBUNTU_CODENAME");
}

void apply_cpuinfo(const CpuinfoSummary& info, inventory::CpuInfo& cpu) {
  cpu.vendor = info.vendor;
  cpu.model_name = info.model_name;
  cpu.threads = info.logical_cpus;
  cpu.sockets = info.sockets;
  cpu.physical_cores = info.physical_cores;
  auto has = [&](const char* flag) { return info.flags.count(flag) > 0; };
  const bool x86 = has("sse2") || info.vendor.value_or("").find("Intel") != std::string::npos ||
                   info.vendor.value_or("").find("AMD") != std::string::npos;
  if (x86) {
    cpu.flags.avx = has("avx");
    cpu.flags.avx2 = has("avx2");
    cpu.flags.fma = has("fma");
    cpu.flags.avx512f = has("avx512f");
    cpu.flags.amx = has("amx_tile");
  }
}

void apply_meminfo(const std::map<std::string, uint64_t, std::less<>>& info, inventory::MemoryInfo& mem) {
  auto get = [&](const char* key) -> std::optional<uint64_t> {
    auto it = info.find(key);
    if (it == info.end()) return std::nullopt;
    return it->second;
  };
  mem.total_bytes = get("MemTotal");
  mem.available_bytes = get("MemAvailable");
  mem.swap_total_bytes = get("SwapTotal");
  if (auto total = get("SwapTotal"), free = get("SwapFree"); total && free && *free <= *total) {
    mem.swap_used_bytes = *total - *free;
  }
  mem.hugepages_total = get("HugePages_Total");
  mem.hugepage_size_bytes = get("Hugepagesize");
}

}  // namespace tfrig::probe::parse

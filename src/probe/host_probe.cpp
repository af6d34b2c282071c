// host: OS release, kernel, virtualization, container and WSL hints.
#include <sys/utsname.h>

#include "core/text.h"
#include "probe/parse/proc_text.h"
#include "probe/probe.h"
#include "probe/probes.h"
#include "probe/region.h"

namespace tfrig::probe {

namespace {

// DMI strings that name a hypervisor (systemd's detect-virt keys on the same ones).
std::optional<std::string> virt_from_dmi(const std::string& vendor, const std::string& product) {
  const std::string v = core::to_lower(vendor);
  const std::string p = core::to_lower(product);
  if (v.find("qemu") != std::string::npos || p.find("kvm") != std::string::npos ||
      p.find("standard pc") != std::string::npos)
    return "kvm";
  if (v.find("vmware") != std::string::npos) return "vmware";
  if (v.find("innotek") != std::string::npos || p.find("virtualbox") != std::string::npos) return "virtualbox";
  if (v.find("xen") != std::string::npos) return "xen";
  if (v.find("microsoft") != std::string::npos && p.find("virtual") != std::string::npos) return "hyperv";
  if (v.find("amazon ec2") != std::string::npos) return "amazon";
  if (v.find("google") != std::string::npos && p.find("compute engine") != std::string::npos) return "google";
  return std::nullopt;
}

// os-release(5): /etc/os-release, falling back to /usr/lib/os-release.
void read_os_release(const core::SysRoot& root, inventory::HostInfo& host, ProblemLog& problems) {
  auto os_text = root.read_text("etc/os-release", 1 << 16);
  std::string os_path = "etc/os-release";
  if (!os_text && os_text.error().code == core::ErrorCode::kNotFound) {
    os_text = root.read_text("usr/lib/os-release", 1 << 16);
    os_path = "usr/lib/os-release";
  }
  if (os_text && !core::looks_like_text(*os_text)) {
    problems.add(root.full_path(os_path), core::Message(N_("binary data, expected KEY=value lines")));
  } else if (os_text) {
    auto os = parse::parse_os_release(*os_text);
    parse::apply_os_release(os, host);
    for (int line : os.bad_lines) {
      problems.add(root.full_path(os_path) + ":" + std::to_string(line), core::Message(N_("expected KEY=value")));
    }
  } else {
    problems.add(os_text.error());
  }
}

// The kernel's release and version, WSL's marks, the hostname.
void read_kernel(const core::SysRoot& root, inventory::HostInfo& host, ProblemLog& problems) {
  if (auto rel = root.read_line("proc/sys/kernel/osrelease")) {
    host.kernel_release = *rel;
  } else if (rel.error().code != core::ErrorCode::kNotFound) {
    problems.add(rel.error());
  }
  auto ver = root.read_line("proc/version");
  if (!ver && ver.error().code != core::ErrorCode::kNotFound) problems.add(ver.error());
  if (ver) {
    host.kernel_version = *ver;
    if (!host.kernel_release) {
      // "Linux version 6.1.0-18-amd64 (...)"
      auto f = core::split_ws(*ver);
      if (f.size() >= 3 && f[0] == "Linux" && f[1] == "version") host.kernel_release = std::string(f[2]);
    }
    const std::string lower = core::to_lower(*ver);
    host.wsl = lower.find("microsoft") != std::string::npos || lower.find("wsl") != std::string::npos;
  }
  if (root.exists("proc/sys/fs/binfmt_misc/WSLInterop")) host.wsl = true;
  if (auto name = root.read_line("proc/sys/kernel/hostname")) {
    host.hostname = *name;
  } else if (name.error().code != core::ErrorCode::kNotFound) {
    problems.add(name.error());
  }
}

// The architecture: uname on the live machine; a captured tree has none, but
// the Debian/Ubuntu kernel name often says it.
void read_architecture(const core::SysRoot& root, inventory::HostInfo& host) {
  if (root.is_live()) {
    struct utsname uts {};
    if (::uname(&uts) == 0) {
      host.architecture = uts.machine;
      if (!host.hostname) host.hostname = uts.nodename;
    }
  } else if (host.kernel_release) {
    // A captured tree has no uname; the Debian/Ubuntu kernel name often says it.
    const auto& k = *host.kernel_release;
    if (k.find("amd64") != std::string::npos || k.find("x86_64") != std::string::npos) host.architecture = "x86_64";
    if (k.find("arm64") != std::string::npos || k.find("aarch64") != std::string::npos) host.architecture = "aarch64";
    if (k.find("ppc64le") != std::string::npos) host.architecture = "ppc64le";
  }
}

// Virtualization: DMI first, then Xen's sysfs node, then the CPU flag.
void detect_virtualization(const core::SysRoot& root, inventory::HostInfo& host) {
  auto vendor = root.read_line("sys/class/dmi/id/sys_vendor");
  auto product = root.read_line("sys/class/dmi/id/product_name");
  if (vendor || product) {
    host.virtualization = virt_from_dmi(vendor.value_or(""), product.value_or(""));
  }
  if (!host.virtualization) {
    if (auto hv = root.read_line("sys/hypervisor/type"); hv && !hv->empty()) host.virtualization = *hv;
  }
  bool hypervisor_flag = false;
  if (auto cpuinfo = root.read_text("proc/cpuinfo")) {
    if (auto parsed = parse::parse_cpuinfo(*cpuinfo)) hypervisor_flag = parsed->has_hypervisor_flag;
  }
  if (!host.virtualization) {
    if (hypervisor_flag)
      host.virtualization = "unknown hypervisor";
    else if (vendor || root.exists("proc/cpuinfo"))
      host.virtualization = "none";
  }
}

// Container: the marker files the runtimes create, then PID 1's cgroup.
void detect_container(const core::SysRoot& root, inventory::HostInfo& host) {
  if (root.exists(".dockerenv")) {
    host.container = "docker";
  } else if (root.exists("run/.containerenv")) {
    host.container = "podman";
  } else if (auto cg = root.read_text("proc/1/cgroup", 1 << 16)) {
    if (cg->find("kubepods") != std::string::npos)
      host.container = "kubernetes";
    else if (cg->find("/docker") != std::string::npos)
      host.container = "docker";
    else if (cg->find("/lxc") != std::string::npos)
      host.container = "lxc";
    else
      host.container = "none";
  }
  if (root.env("KUBERNETES_SERVICE_HOST") && root.is_live()) host.container = "kubernetes";
}

class HostProbe final : public Probe {
 public:
  std::string_view id() const override { return "host"; }
  ProbeStatus run(const Context& ctx, inventory::Inventory& out) const override {
    const core::SysRoot& root = ctx.root;
    ProblemLog problems;
    auto& host = out.host;
    read_os_release(root, host, problems);
    read_kernel(root, host, problems);
    read_architecture(root, host);
    detect_virtualization(root, host);
    detect_container(root, host);
    // Locale, time zone and download mirrors (probe/region.cpp).
    std::vector<core::Message> region_problems;
    out.region = read_region(root, region_problems);
    for (auto& p : region_problems) problems.add(std::move(p));

    ProbeStatus status;
    problems.into(status);
    if (!host.os_id && !host.kernel_release) {
      status.state = State::kError;
      status.set_detail(core::Message(N_("neither os-release nor the kernel version could be read")));
    } else {
      status.state = State::kOk;
      const auto os = host.os_pretty_name ? host.os_pretty_name : host.os_id;
      const core::MessageArg os_arg = os ? core::MessageArg(*os) : core::MessageArg(core::Message(N_("unknown OS")));
      const core::MessageArg kernel =
          host.kernel_release ? core::MessageArg(*host.kernel_release) : core::MessageArg(core::Message(N_("unknown")));
      if (!problems.empty()) {
        status.set_detail(
            core::Message(N_("{0}, kernel {1} ({2} problems)"), os_arg, kernel, problems.problems().size()));
      } else {
        status.set_detail(core::Message(N_("{0}, kernel {1}"), os_arg, kernel));
      }
    }
    return status;
  }

  void merge(inventory::Inventory& into, inventory::Inventory&& from) const override {
    into.host = std::move(from.host);
    into.region = std::move(from.region);
  }
};

}  // namespace

std::shared_ptr<const Probe> make_host_probe() { return std::make_shared<HostProbe>(); }

}  // namespace tfrig::probe

// Driver rules: the kernel module, the user-space libraries that must match
// it, and its version against the CUDA the target TensorFlow was built with.
#include <fmt/format.h>

#include "core/i18n.h"
#include "core/text.h"
#include "rules/areas.h"
#include "rules/util.h"

namespace tfrig::rules {

namespace {

namespace u = util;
using core::Version;

// nvidia-smi's own words, as evidence: the exact line and the file it came from.
Evidence smi_said(const inventory::DriverInfo& d) {
  return {core::Message(N_("nvidia-smi printed")), d.nvidia_smi_error.value_or("?"),
          u::nvidia_smi_source(d).value_or("nvidia-smi")};
}

// nvidia-smi (an import) said this about the whole driver.
bool smi_says(const inventory::DriverInfo& d, const char* state) { return d.nvidia_smi_error && d.nvml.state == state; }

Check not_loaded(const Context& ctx) {
  if (smi_says(ctx.inv.driver, "driver_not_loaded")) {
    const auto& d = ctx.inv.driver;
    // nouveau owning the GPU is its own rule.
    for (const auto* p : u::pci_gpus(ctx)) {
      if (p->driver && *p->driver == "nouveau") return Check::pass();
    }
    std::vector<Evidence> ev{smi_said(d)};
    if (d.module_nvidia)
      ev.push_back({core::Message(N_("nvidia in /proc/modules")), u::yes_no(*d.module_nvidia), "/proc/modules"});
    if (d.kernel_module_version)
      ev.push_back({core::Message(N_("kernel module")), *d.kernel_module_version, "/proc/driver/nvidia/version"});
    for (const auto* p : u::pci_gpus(ctx))
      ev.push_back({core::Message(N_("driver bound to {}"), p->address),
                    p->driver ? Text(*p->driver) : Text(core::Message(N_("none"))), "lspci -k / sysfs"});
    Check c;
    c.add(Hit{
        "host",
        core::Message(
            N_("nvidia-smi could not communicate with the NVIDIA kernel driver: the nvidia module is not loaded (not "
               "installed, not built for this kernel, or refused by Secure Boot), so CUDA finds no device.")),
        ev,
        "",
        {}});
    return c;
  }
  if (!u::gpu_presence_known(ctx)) return Check::skip(core::Message(N_("PCI device list")));
  const auto pci = u::pci_gpus(ctx);
  if (pci.empty() && ctx.inv.gpus.empty()) return Check::skip(core::Message(N_("an NVIDIA GPU (none found)")));
  const auto& d = ctx.inv.driver;
  // NVML answering is proof the driver works, whatever sysfs showed.
  if (!ctx.inv.gpus.empty() && d.nvml.state == "ok") return Check::pass();
  bool unbound = !pci.empty();
  for (const auto* p : pci) {
    if (p->driver && *p->driver == "nvidia") unbound = false;
  }
  const bool module_missing = d.loaded == false || d.module_nvidia == false;
  if (!d.loaded && !d.module_nvidia && pci.empty())
    return Check::skip(core::Message(N_("whether the nvidia kernel module is loaded")));
  if (!module_missing && !unbound) return Check::pass();
  // nouveau owning the GPU is its own rule.
  for (const auto* p : pci) {
    if (p->driver && *p->driver == "nouveau") return Check::pass();
  }
  std::vector<Evidence> ev;
  if (d.loaded)
    ev.push_back({core::Message(N_("nvidia module loaded")), u::yes_no(*d.loaded),
                  "/proc/driver/nvidia/version, /proc/modules"});
  for (const auto* p : pci)
    ev.push_back({core::Message(N_("driver bound to {}"), p->address),
                  p->driver ? Text(*p->driver) : Text(core::Message(N_("none"))),
                  "/sys/bus/pci/devices/" + p->address + "/driver"});
  Check c;
  c.add(Hit{"host",
            core::Message(N_("{} NVIDIA GPU(s) but the nvidia kernel driver is not loaded: CUDA finds no device "
                             "(\"CUDA_ERROR_NO_DEVICE\", nvidia-smi \"couldn't communicate with the NVIDIA driver\")."),
                          std::max<size_t>(pci.size(), ctx.inv.gpus.size())),
            ev,
            "",
            {}});
  return c;
}

Check nouveau_bound(const Context& ctx) {
  const auto pci = u::pci_gpus(ctx);
  const auto& d = ctx.inv.driver;
  bool known = d.module_nouveau.has_value();
  std::vector<Evidence> ev;
  for (const auto* p : pci) {
    if (!p->driver) continue;
    known = true;
    if (*p->driver == "nouveau")
      ev.push_back({core::Message(N_("driver bound to {}"), p->address), "nouveau",
                    "/sys/bus/pci/devices/" + p->address + "/driver"});
  }
  if (!known) return Check::skip(core::Message(N_("kernel modules and PCI driver bindings")));
  if (d.module_nouveau.value_or(false))
    ev.push_back({core::Message(N_("nouveau module loaded")), core::Message(N_("yes")), "/proc/modules"});
  if (ev.empty()) return Check::pass();
  Check c;
  c.add(
      Hit{"host",
          core::Message(N_("The open-source nouveau driver is loaded or owns the GPU: the NVIDIA driver cannot bind it "
                           "and CUDA cannot use it.")),
          ev,
          "",
          {}});
  return c;
}

bool has_loader_lib(const Context& ctx, const std::string& soname) { return u::would_load(ctx, soname) != nullptr; }

Check library_unresolvable(const Context& ctx) {
  if (smi_says(ctx.inv.driver, "library_missing")) {
    Check c;
    c.add(Hit{"libnvidia-ml.so.1",
              core::Message(N_(
                  "nvidia-smi could not load libnvidia-ml.so: the driver's user-space libraries are missing or not on "
                  "the loader's path, so NVML and libcuda.so.1 (every CUDA program, TensorFlow included) fail.")),
              {smi_said(ctx.inv.driver)},
              "",
              {}});
    return c;
  }
  if (u::gpu_count(ctx) == 0) return Check::skip(core::Message(N_("an NVIDIA GPU (none found)")));
  if (!ctx.probed("cuda_libs"))
    return Check::skip(core::Message(N_("loader search results (the cuda_libs probe did not run)")));
  Check c;
  for (const char* soname : {"libcuda.so.1", "libnvidia-ml.so.1"}) {
    if (has_loader_lib(ctx, soname)) continue;
    core::Message detail(N_("not in LD_LIBRARY_PATH, /etc/ld.so.cache or the default directories"));
    if (std::string(soname) == "libnvidia-ml.so.1" && ctx.inv.driver.nvml.state == "library_missing") {
      const auto& nvml = ctx.inv.driver.nvml;
      detail = core::Message(
          N_("{0}; {1}"), std::move(detail),
          core::Message(N_("{0}: {1}"), "NVML", as_message_arg(text_of(nvml.detail, nvml.detail_message))));
    }
    c.add(Hit{soname,
              core::Message(
                  N_("{} cannot be resolved by the dynamic loader: {} fails (\"libcuda not found\")."), soname,
                  core::Message(std::string(soname) == "libcuda.so.1" ? N_("every CUDA program, TensorFlow included,")
                                                                      : N_("nvidia-smi and NVML monitoring"))),
              {{soname, detail, "/etc/ld.so.cache, LD_LIBRARY_PATH"}},
              core::Message(N_(
                  "Install the driver's user-space libraries of the same version as the kernel module "
                  "(`sudo apt install libnvidia-compute-<branch>` or the full `nvidia-driver-<branch>[-server]`), then "
                  "`sudo ldconfig`.")),
              {}});
  }
  return c;
}

std::optional<std::string> libcuda_version(const Context& ctx) {
  if (const auto* l = u::would_load(ctx, "libcuda.so.1"); l && l->version) return l->version;
  return std::nullopt;
}

Check library_mismatch(const Context& ctx) {
  const auto& d = ctx.inv.driver;
  if (d.nvml.state == "driver_mismatch") {
    Check c;
    std::vector<Evidence> ev;
    if (smi_says(d, "driver_mismatch")) {
      ev.push_back(smi_said(d));
    } else {
      ev.push_back({core::Message(N_("NVML init")),
                    d.nvml.detail.empty() ? std::string("Driver/library version mismatch")
                                          : "Driver/library version mismatch: " + d.nvml.detail,
                    "nvmlInit_v2"});
    }
    if (d.kernel_module_version)
      ev.push_back({core::Message(N_("kernel module")), *d.kernel_module_version, "/proc/driver/nvidia/version"});
    if (auto lv = libcuda_version(ctx))
      ev.push_back(
          {core::Message(N_("user-space libcuda")), *lv, core::Message(N_("the file libcuda.so.1 resolves to"))});
    c.add(Hit{"host",
              core::Message(N_("The NVIDIA user-space libraries and the loaded kernel module are different versions "
                               "(the driver was upgraded without a reboot): NVML and CUDA refuse to start.")),
              ev,
              "",
              {}});
    return c;
  }
  if (!d.kernel_module_version)
    return Check::skip(core::Message(N_("kernel module version (/proc/driver/nvidia/version)")));
  auto lv = libcuda_version(ctx);
  if (!lv) {
    if (d.nvml.state == "ok") return Check::pass();
    return Check::skip(
        core::Message(N_("user-space driver version (libcuda.so.1 version unknown, NVML not initialised)")));
  }
  auto kv = Version::parse(*d.kernel_module_version);
  auto uv = Version::parse(*lv);
  if (!kv || !uv || *kv == *uv) return Check::pass();
  Check c;
  c.add(Hit{"host",
            core::Message(N_("The kernel module is {} but libcuda.so.1 is {}: the driver was upgraded without a reboot "
                             "(\"Failed to initialize NVML: Driver/library version mismatch\")."),
                          *d.kernel_module_version, *lv),
            {{core::Message(N_("kernel module")), *d.kernel_module_version, "/proc/driver/nvidia/version"},
             {core::Message(N_("user-space libcuda")), *lv, core::Message(N_("the file libcuda.so.1 resolves to"))}},
            "",
            {}});
  return c;
}

Check too_old_for_cuda(const Context& ctx) {
  const auto& d = ctx.inv.driver;
  auto text = d.version ? d.version : d.kernel_module_version;
  if (!text)
    return Check::skip(u::gpu_count(ctx) ? core::Message(N_("driver version (no driver loaded)"))
                                         : core::Message(N_("driver version (no driver: no GPU)")));
  auto drv = Version::parse(*text);
  if (!drv) return Check::skip(core::Message(N_("driver version (unparsable: {})"), *text));
  if (!ctx.target.build)
    return Check::skip(core::Message(N_("the CUDA version {} was built with (not in the tested-build table)"),
                                     ctx.target.label_message()));
  auto cuda = Version::parse(ctx.target.build->cuda);
  if (!cuda) return Check::skip(core::Message(N_("the CUDA version of {}"), ctx.target.label_message()));
  auto min = ctx.k.min_driver_for_cuda(*cuda);
  if (!min || !min->min_linux) return Check::skip(core::Message(N_("the minimum driver for CUDA {}"), cuda->text()));
  auto minv = Version::parse(*min->min_linux);
  if (!minv || *drv >= *minv) return Check::pass();
  Check c;
  c.add(Hit{
      "host",
      core::Message(N_("Driver {} is older than {} that CUDA {} needs, and {} was built with CUDA {}: \"CUDA driver "
                       "version is insufficient for CUDA runtime version\"."),
                    drv->text(), minv->text(), min->cuda, ctx.target.label_message(), cuda->text()),
      {{core::Message(N_("driver")), drv->text(),
        !d.version                                      ? "/proc/driver/nvidia/version"
        : d.nvml.detail.rfind("imported from ", 0) == 0 ? "nvidia-smi (" + d.nvml.detail.substr(14) + ")"
                                                        : std::string("NVML")},
       {core::Message(N_("CUDA of the target")), cuda->text(),
        u::knowledge_source("tf_builds.json", ctx.target.build->source)},
       {core::Message(N_("minimum driver for CUDA {}"), min->cuda),
        u::uncertain_value(minv->text(), min->uncertain, core::Message(N_("NVIDIA prints only the branch"))),
        u::knowledge_source("cuda_drivers.json", min->source)}},
      core::Message(
          N_("Upgrade the driver to {} or newer (`sudo ubuntu-drivers install --gpgpu`; a long-term branch such "
             "as nvidia-driver-580-server also runs older CUDA), or use an older TF whose CUDA this driver "
             "supports (`tfrig compat --driver {}`)."),
          minv->text(), drv->text()),
      {}});
  return c;
}

// "No devices were found": the driver answered but drives no GPU.
Check no_devices(const Context& ctx) {
  const auto& d = ctx.inv.driver;
  // Live, NVML counting no device on a machine without an NVIDIA GPU is no problem.
  if (!smi_says(d, "no_device") && !(d.nvml.state == "no_device" && !u::pci_gpus(ctx).empty())) {
    if (d.nvml.state == "ok" && !ctx.inv.gpus.empty()) return Check::pass();
    if (d.nvml.state == "not_tried") return Check::skip(core::Message(N_("nvidia-smi's or NVML's answer")));
    return Check::pass();
  }
  std::vector<Evidence> ev;
  if (smi_says(d, "no_device")) ev.push_back(smi_said(d));
  std::vector<std::string> bus;
  for (const auto* p : u::pci_gpus(ctx)) {
    bus.push_back(p->address);
    ev.push_back({core::Message(N_("NVIDIA GPU on the bus {}"), p->address),
                  core::Message(N_("driver bound: {}"),
                                p->driver ? core::MessageArg(*p->driver) : core::MessageArg(core::Message(N_("none")))),
                  "lspci -k / sysfs"});
  }
  core::Message message =
      bus.empty()
          ? core::Message(N_(
                "nvidia-smi found no devices: the NVIDIA driver is loaded but drives no GPU; which GPUs are on the bus "
                "was not captured (`lspci -nnk -d 10de:` shows them)."))
          : core::Message::plural(
                NP_("nvidia-smi found no devices: the NVIDIA driver is loaded but drives no GPU; the bus holds {0} NVIDIA GPU "
                    "({1}) that the nvidia driver does not drive.",
                    "nvidia-smi found no devices: the NVIDIA driver is loaded but drives no GPU; the bus holds {0} NVIDIA GPUs "
                    "({1}) that the nvidia driver does not drive."),
                bus.size(), bus.size(), u::listed(bus));
  Check c;
  c.add(Hit{"host", message, ev, "", {}});
  return c;
}

Check device_permissions(const Context& ctx) {
  const auto& nodes = ctx.inv.driver.device_nodes;
  if (nodes.empty())
    return Check::skip(u::gpu_count(ctx) ? core::Message(N_("/dev/nvidia* device nodes (none listed)"))
                                         : core::Message(N_("an NVIDIA GPU (none found)")));
  Check c;
  std::vector<Evidence> ev;
  for (const auto& n : nodes) {
    if (n.readable == false || n.writable == false) {
      ev.push_back({n.path,
                    core::Message(N_("readable {}, writable {}"),
                                  n.readable ? core::MessageArg(u::yes_no(*n.readable)) : core::MessageArg("?"),
                                  n.writable ? core::MessageArg(u::yes_no(*n.writable)) : core::MessageArg("?")),
                    core::Message(N_("access(2) as the current user"))});
    }
  }
  if (ev.empty()) return Check::pass();
  c.add(Hit{"host",
            core::Message(N_("The current user cannot open the NVIDIA device nodes: CUDA sees no GPU for this user.")),
            ev,
            "",
            {}});
  return c;
}

}  // namespace

std::vector<Rule> driver_rules() {
  return {
      {"driver.not_loaded",
       "driver",
       Severity::kError,
       N_("GPU present but the NVIDIA driver is not loaded"),
       N_("The nvidia kernel module and the driver bound to each NVIDIA GPU on the PCI bus."),
       N_("Without the module CUDA finds no device; usual causes: no driver, a kernel upgrade without DKMS or prebuilt "
          "modules, Secure Boot rejecting the module (GoogleCloudPlatform/compute-gpu-installation#18)."),
       N_("`sudo ubuntu-drivers install --gpgpu` (or `sudo apt install nvidia-driver-<branch>-server`), check Secure "
          "Boot with `mokutil --sb-state`, reboot; `sudo modprobe nvidia` to load it now."),
       {"https://documentation.ubuntu.com/server/how-to/graphics/install-nvidia-drivers/"},
       not_loaded},
      {"driver.nouveau_bound",
       "driver",
       Severity::kError,
       N_("nouveau owns the GPU"),
       N_("The nouveau module in /proc/modules and the driver bound to each NVIDIA GPU."),
       N_("With nouveau bound the NVIDIA driver cannot probe the device (\"NVRM: The NVIDIA probe routine was not "
          "called\"); DCGM fails its Denylist test."),
       N_("`printf 'blacklist nouveau\\noptions nouveau modeset=0\\n' | sudo tee /etc/modprobe.d/disable-nouveau.conf && "
          "sudo update-initramfs -u && sudo reboot`"),
       {"https://documentation.ubuntu.com/server/how-to/graphics/install-nvidia-drivers/"},
       nouveau_bound},
      {"driver.library_unresolvable",
       "driver",
       Severity::kError,
       N_("libcuda.so.1 or libnvidia-ml.so.1 not resolvable"),
       N_("Whether the dynamic loader finds the driver's user-space libraries (LD_LIBRARY_PATH, ld.so.cache, default "
          "dirs)."),
       N_("TF dlopens libcuda.so.1 (never shipped by pip); DCGM fails when libnvidia-ml.so.1 cannot be loaded."),
       N_("Install the driver's user-space package of the module's version and run `sudo ldconfig`."),
       {"https://github.com/NVIDIA/DCGM/blob/master/nvvs/src/Software.cpp"},
       library_unresolvable},
      {"driver.library_mismatch",
       "driver",
       Severity::kError,
       N_("Driver user space and kernel module differ"),
       N_("NVML's init status and the kernel module version against the libcuda.so.1 version."),
       N_("After a user-space upgrade without reboot NVML fails with \"Driver/library version mismatch\" "
          "(https://documentation.ubuntu.com/server/how-to/graphics/install-nvidia-drivers/; NVIDIA/ubuntu-packaging-nvidia-driver#3)."),
       N_("Reboot (or unload and reload the nvidia modules); then `sudo apt-mark hold` the driver packages so "
          "unattended upgrades do not repeat it."),
       {"https://github.com/NVIDIA/ubuntu-packaging-nvidia-driver/issues/3"},
       library_mismatch},
      {"driver.too_old_for_cuda",
       "driver",
       Severity::kError,
       N_("Driver too old for the CUDA of the target TensorFlow"),
       N_("The driver version against the minor-version-compatibility minimum of the CUDA the target TF was built with."),
       N_("CUDA 11.x needs >= 450.80.02, 12.x >= 525.60.13, 13.x >= 580 (NVIDIA CUDA compatibility guide; "
          "https://docs.nvidia.com/deploy/cuda-compatibility/)."),
       N_("Upgrade the driver, or use a TF release whose CUDA the driver supports (`tfrig compat --driver VERSION`)."),
       {"https://docs.nvidia.com/deploy/cuda-compatibility/minor-version-compatibility.html"},
       too_old_for_cuda},
      {"driver.no_devices",
       "driver",
       Severity::kError,
       N_("The driver drives no GPU (\"No devices were found\")"),
       N_("nvidia-smi's \"No devices were found\" (or NVML counting no device) next to the NVIDIA GPUs on the PCI bus and "
          "the driver bound to each."),
       N_("The module is loaded but no GPU came up under it: the GPU is bound to another driver (vfio-pci for a VM, "
          "nouveau), the driver is too old or too new for the GPU (the open module needs Turing or newer), or the "
          "GPU failed to initialise (NVRM RmInitAdapter failed in the kernel log)."),
       N_("`lspci -nnk -d 10de:` shows which driver holds each GPU; `sudo dmesg | grep NVRM` says why the nvidia "
          "driver did not take it; install a driver branch that supports the GPU and reboot."),
       {"https://github.com/NVIDIA/open-gpu-kernel-modules#compatible-gpus"},
       no_devices},
      {"driver.device_permissions",
       "driver",
       Severity::kError,
       N_("NVIDIA device nodes not accessible"),
       N_("Read/write access of the current user to /dev/nvidia*."),
       N_("DCGM's 'Permissions and OS Blocks' test fails when /dev/nvidia* is not accessible."),
       N_("Add the user to the group owning /dev/nvidia* (often `video`/`render`) or fix the udev rule / container "
          "device mapping."),
       {"https://github.com/NVIDIA/DCGM/blob/master/nvvs/src/Software.cpp"},
       device_permissions},
  };
}

}  // namespace tfrig::rules

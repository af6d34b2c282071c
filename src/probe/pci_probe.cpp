// pci: every device in /sys/bus/pci/devices with its link; NVIDIA GPUs are
// found here even when no NVIDIA driver is loaded (the bound driver says
// nvidia / nouveau / vfio-pci / none).
#include "core/text.h"
#include "probe/parse/proc_text.h"
#include "probe/probe.h"
#include "probe/probes.h"

namespace tfrig::probe {

namespace {

// PCI vendor ids: the PCI-SIG registry (pcisig.com/membership/member-companies).
std::optional<std::string> vendor_name(uint32_t id) {
  switch (id) {
    case kPciVendorNvidia: return "NVIDIA";
    case 0x8086: return "Intel";
    case 0x1022: return "AMD";
    case 0x1002: return "AMD/ATI";
    case 0x15b3: return "Mellanox";
    case 0x14e4: return "Broadcom";
    case 0x1000: return "Broadcom/LSI";
    case 0x144d: return "Samsung";
    case 0x1af4: return "Red Hat (virtio)";
    case 0x1b36: return "Red Hat (QEMU)";
    case 0x1d0f: return "Amazon";
    case 0x1414: return "Microsoft";
    case 0x15ad: return "VMware";
    default: return std::nullopt;
  }
}

// Class names from the PCI Code and ID Assignment Specification (base class, subclass).
std::optional<std::string> class_name(uint32_t class_code) {
  const uint32_t base = class_code >> 16;
  const uint32_t sub = (class_code >> 8) & 0xff;
  switch (base) {
    case 0x01:
      if (sub == 0x08) return "NVMe controller";
      if (sub == 0x06) return "SATA controller";
      if (sub == 0x07) return "SAS controller";
      if (sub == 0x04) return "RAID controller";
      return "Mass storage controller";
    case 0x02:
      if (sub == 0x00) return "Ethernet controller";
      if (sub == 0x07) return "InfiniBand controller";
      return "Network controller";
    case 0x03:
      if (sub == 0x00) return "VGA compatible controller";
      if (sub == 0x02) return "3D controller";
      return "Display controller";
    case 0x04: return "Multimedia controller";
    case 0x05: return "Memory controller";
    case 0x06:
      if (sub == 0x00) return "Host bridge";
      if (sub == 0x01) return "ISA bridge";
      if (sub == 0x04) return "PCI bridge";
      return "Bridge";
    case 0x07: return "Communication controller";
    case 0x08: return "System peripheral";
    case 0x0b:
      if (sub == 0x40) return "Co-processor";
      return "Processor";
    case 0x0c:
      if (sub == 0x03) return "USB controller";
      if (sub == 0x06) return "InfiniBand controller";
      if (sub == 0x05) return "SMBus";
      return "Serial bus controller";
    case 0x12: return "Processing accelerator";
    case 0x13: return "Non-essential instrumentation";
    default: return std::nullopt;
  }
}

class PciProbe final : public Probe {
 public:
  std::string_view id() const override { return "pci"; }
  ProbeStatus run(const Context& ctx, inventory::Inventory& out) const override {
    const core::SysRoot& root = ctx.root;
    ProblemLog problems;
    auto names = root.list_dir("sys/bus/pci/devices");
    ProbeStatus status;
    if (!names) {
      status.state = names.error().code == core::ErrorCode::kNotFound ? State::kAbsent : State::kError;
      if (names.error().code == core::ErrorCode::kNotFound) {
        status.set_detail(
            core::Message(N_("no PCI bus in sysfs ({} missing): container or non-PCI machine"), names.error().where));
      } else {
        status.detail = names.error().to_string();
      }
      return status;
    }
    for (const auto& addr : *names) {
      inventory::PciDevice dev;
      dev.address = addr;
      const std::string base = "sys/bus/pci/devices/" + addr + "/";
      auto hex = [&](const char* attr) -> std::optional<uint32_t> {
        auto text = root.read_line(base + attr);
        if (!text) {
          if (text.error().code != core::ErrorCode::kNotFound) problems.add(text.error());
          return std::nullopt;
        }
        auto v = core::parse_hex(*text);
        if (!v || *v > 0xffffffu) {
          problems.add(root.full_path(base + attr),
                       core::Message(N_("expected a hex id like 0x10de, got '{}'"), core::printable(*text)));
          return std::nullopt;
        }
        return static_cast<uint32_t>(*v);
      };
      dev.vendor_id = hex("vendor");
      dev.device_id = hex("device");
      dev.subsystem_vendor_id = hex("subsystem_vendor");
      dev.subsystem_device_id = hex("subsystem_device");
      dev.class_code = hex("class");
      if (dev.vendor_id) dev.vendor_name = vendor_name(*dev.vendor_id);
      if (dev.class_code) dev.class_name = class_name(*dev.class_code);
      if (auto drv = root.read_link(base + "driver")) {
        auto parts = core::split(*drv, '/');
        dev.driver = std::string(parts.back());
      }
      if (auto numa = root.read_line(base + "numa_node")) {
        // -1: the platform does not say (single node, or firmware without _PXM).
        if (auto v = core::parse_i64(*numa); v && *v >= 0 && *v < 4096) dev.numa_node = static_cast<int>(*v);
      }
      if (auto s = root.read_line(base + "current_link_speed"))
        dev.link_speed_current_gts = parse::parse_link_speed(*s);
      if (auto s = root.read_line(base + "max_link_speed")) dev.link_speed_max_gts = parse::parse_link_speed(*s);
      auto width = [&](const char* attr) -> std::optional<int> {
        auto text = root.read_line(base + attr);
        if (!text) return std::nullopt;
        // 0 = link down; 255 = the kernel's "unknown" on some bridges.
        auto v = core::parse_u64(*text);
        if (!v || *v == 0 || *v > 32) return std::nullopt;
        return static_cast<int>(*v);
      };
      dev.link_width_current = width("current_link_width");
      dev.link_width_max = width("max_link_width");
      // NVIDIA display (0x0300) or 3D (0x0302) controllers are the GPUs.
      dev.is_gpu = dev.vendor_id == kPciVendorNvidia && dev.class_code && (*dev.class_code >> 16) == 0x03;
      out.pci.devices.push_back(std::move(dev));
    }
    problems.into(status);
    int gpus = 0;
    for (const auto& d : out.pci.devices) gpus += d.is_gpu ? 1 : 0;
    status.state = out.pci.devices.empty() ? State::kAbsent : State::kOk;
    status.set_detail(core::Message(N_("{0} PCI devices, {1} NVIDIA GPUs"), out.pci.devices.size(), gpus));
    return status;
  }

  void merge(inventory::Inventory& into, inventory::Inventory&& from) const override { into.pci = std::move(from.pci); }
};

}  // namespace

std::shared_ptr<const Probe> make_pci_probe() { return std::make_shared<PciProbe>(); }

}  // namespace tfrig::probe

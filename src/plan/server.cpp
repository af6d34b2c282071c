#include "plan/server.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "core/i18n.h"
#include "core/units.h"
#include "plan/prices.h"

namespace tfrig::plan {

namespace {

// ImageNet-1k (ILSVRC2012) training set: 1,281,167 images (Russakovsky et
// al. 2015, IJCV, Table 2); its training archive is ~138 GB, ~108 kB per JPEG.
constexpr uint64_t kImageNetSamples = 1281167;
constexpr uint64_t kImageNetJpegBytes = 108000;
// ASSUMED for text: one million sequences of 4-byte token ids.
constexpr uint64_t kTextSamples = 1000000;

// Per-core JPEG decode + augmentation rate, ASSUMED 300 images/s: a single
// thread decodes ImageNet validation JPEGs at 596 images/s with TensorFlow
// on an AMD EPYC 9B14 and 689 on a Xeon Platinum 8581C (imread-benchmark,
// Iglovikov & Kosarevsky 2026, arXiv:2605.08731, single-thread table);
// random-resized-crop, flip and normalisation roughly double the work.
constexpr double kImageDecodePerCore = 300.0;
// ASSUMED for text: parsing pre-tokenised TFRecords, 5000 sequences/s per core.
constexpr double kTextParsePerCore = 5000.0;
// The configuration guide (docs/guide.md): "at least 16 cores / 32 threads".
constexpr int kGuideMinCores = 16;

struct CpuClass {
  const char* name;
  int max_lanes;  // usable PCIe lanes from the CPU(s)
  int max_cores;
  int channels;  // DDR5 channels
  int dimms_per_channel;
  double tdp_w;
};

// Vendor specifications: AMD Ryzen 9 7950X (16 cores, 28 PCIe 5.0 lanes of
// which 24 usable, 2 DDR5 channels, 2 DIMMs each, 170 W TDP); AMD Ryzen
// Threadripper PRO 7995WX (96 cores, 128 PCIe 5.0 lanes, 8 DDR5 channels,
// 350 W); AMD EPYC 9654 (96 cores, 128 PCIe 5.0 lanes, 12 DDR5 channels,
// 360 W); two sockets give 160 usable lanes in 2P configurations (AMD EPYC
// 9004 platform brief) and PCIe switches fan out beyond.
constexpr CpuClass kCpuClasses[] = {
    {N_("desktop (e.g. AMD Ryzen 9 7950X: 16 cores, 24 usable PCIe 5.0 lanes, 2 DDR5 channels)"), 24, 16, 2, 2, 170},
    {N_("workstation (e.g. AMD Threadripper PRO 7000 WX: up to 96 cores, 128 PCIe 5.0 lanes, 8 DDR5 channels)"), 128,
     96, 8, 1, 350},
    {N_("1-socket server (e.g. AMD EPYC 9004: up to 96 cores, 128 PCIe 5.0 lanes, 12 DDR5 channels)"), 128, 96, 12, 1,
     360},
    {N_("2-socket server (e.g. 2x AMD EPYC 9004: 160 usable PCIe lanes, 24 DDR5 channels), PCIe switches beyond"), 160,
     192, 24, 1, 720},
};

// DDR5 RDIMM/UDIMM capacities on the market (JEDEC DDR5 densities 16-64 Gb
// give 16, 24, 32, 48, 64, 96, 128 and 256 GB modules).
constexpr uint64_t kDimmGiB[] = {16, 24, 32, 48, 64, 96, 128, 256};

// U.2/U.3 data-centre NVMe capacities (1.92/3.84/7.68/15.36 TB, decimal).
constexpr uint64_t kNvmeBytes[] = {1920000000000, 3840000000000, 7680000000000, 15360000000000};
// One NVMe drive's small-read rate: kNvmeSmallReadBytesPerS (server.h).
constexpr double kNvmeReadPerDrive = kNvmeSmallReadBytesPerS;

constexpr int kEthernetGbits[] = {10, 25, 40, 100, 200, 400};

// ASSUMED: 100 W for memory, drives, fans and board; 25% PSU headroom for
// GPU power transients above TDP.
constexpr double kBaseWatts = 100;
constexpr double kPsuHeadroom = 1.25;
constexpr int kPsuWatts[] = {850, 1000, 1200, 1300, 1600, 2000};

core::Message duration(double seconds) {
  if (seconds >= 3600) return core::Message(N_("{:.1f} h"), seconds / 3600);
  if (seconds >= 60) return core::Message(N_("{:.1f} min"), seconds / 60);
  return core::verbatim(core::format_seconds(seconds));
}

}  // namespace

bool image_input(const Workload& w) {
  return w.family == Family::kCnn || (w.transformer && w.transformer->kind == TransformerKind::kVision);
}

uint64_t default_dataset_samples(const Workload& w) { return image_input(w) ? kImageNetSamples : kTextSamples; }

uint64_t default_sample_bytes(const Workload& w) {
  return image_input(w) ? kImageNetJpegBytes : 4 * static_cast<uint64_t>(std::max(1, w.seq_len));
}

std::optional<DimmLayout> dimm_layout_for(uint64_t need, int channels, int max_dpc) {
  std::optional<DimmLayout> best;
  for (int dpc = 1; dpc <= max_dpc; ++dpc) {
    for (uint64_t gib : kDimmGiB) {
      const uint64_t total = static_cast<uint64_t>(channels) * static_cast<uint64_t>(dpc) * gib * core::kGiB;
      if (total < need) continue;
      if (!best || total < best->total_bytes) {
        best = DimmLayout{channels, channels * dpc, gib * core::kGiB, total};
      }
      break;
    }
  }
  return best;
}

namespace {

// What the steps of balance_server decide besides the plan's own fields: the
// parts the table lines name, as messages.
struct ServerParts {
  uint64_t drive_bytes = 0;
  int nic_lanes = 0;
  const CpuClass* cpu_class = nullptr;
  double gpu_watts = 0;
};

// CPU: decode + augment at the GPUs' rate, plus one core per GPU for the
// framework's host threads (ASSUMED), at least the configuration guide's 16.
void size_server_cpu(ServerPlan& p, const DataOptions& data) {
  if (data.decode_rate_per_core && *data.decode_rate_per_core > 0) {
    p.per_core_rate = *data.decode_rate_per_core;
    p.per_core_basis =
        "measured (" + (data.decode_rate_source.empty() ? std::string("given") : data.decode_rate_source) + ")";
    p.per_core_basis_text = data.decode_rate_source.empty()
                                ? core::Message(N_("measured (given)"))
                                : core::Message(N_("measured ({0})"), data.decode_rate_source);
  } else {
    p.per_core_rate = p.image_input ? kImageDecodePerCore : kTextParsePerCore;
    p.per_core_basis = "assumed";
    p.per_core_basis_text = core::Message::in_context(NC_("plan", "assumed"));
  }
  p.cpu_cores_needed = static_cast<int>(std::ceil(p.samples_per_s / p.per_core_rate)) + p.gpus;
  p.cpu_cores = std::max(kGuideMinCores, p.cpu_cores_needed);
}

// Data on disk and the read rate the GPUs pull; returns one drive's size.
uint64_t size_server_storage(ServerPlan& p, const Workload& w, const DataOptions& data) {
  p.dataset_assumed = !data.dataset_samples || !data.sample_bytes;
  p.dataset_samples = data.dataset_samples.value_or(default_dataset_samples(w));
  p.sample_bytes = data.sample_bytes.value_or(default_sample_bytes(w));
  p.read_bytes_per_s = p.samples_per_s * static_cast<double>(p.sample_bytes);
  const double dataset_bytes = static_cast<double>(p.dataset_samples) * static_cast<double>(p.sample_bytes);
  // ASSUMED: twice the dataset: the packed TFRecord copy and checkpoints.
  const double need_nvme = 2.0 * dataset_bytes;
  const uint64_t largest_drive = kNvmeBytes[std::size(kNvmeBytes) - 1];
  int drives_for_capacity = static_cast<int>(std::ceil(need_nvme / static_cast<double>(largest_drive)));
  int drives_for_rate = static_cast<int>(std::ceil(p.read_bytes_per_s / kNvmeReadPerDrive));
  p.nvme_drives = std::max({1, drives_for_capacity, drives_for_rate});
  uint64_t drive = largest_drive;
  for (uint64_t d : kNvmeBytes) {
    if (static_cast<double>(d) * p.nvme_drives >= need_nvme) {
      drive = d;
      break;
    }
  }
  p.nvme_bytes = drive * static_cast<uint64_t>(p.nvme_drives);
  return drive;
}

// The configuration guide's case study: storage separate from compute, 10 GbE inside
// the network so data arrives faster than the GPU consumes it. ASSUMED
// 30% headroom over the payload for protocol overhead and bursts.
void size_server_network(ServerPlan& p, const DataOptions& data) {
  if (!data.storage_separate) return;
  p.network_gbits = p.read_bytes_per_s * 8.0 / 1e9 * 1.3;
  p.nic = "400 GbE or several NICs";
  for (int g : kEthernetGbits) {
    if (g >= *p.network_gbits) {
      p.nic = std::to_string(g) + " GbE";
      break;
    }
  }
}

// The smallest CPU class with the lanes, cores and memory channels the plan
// needs, and the RAM's modules on it.
void choose_server_platform(ServerPlan& p, const GpuChoice& choice, ServerParts& parts) {
  // RAM: at least 2x the total GPU memory (the configuration guide, docs/guide.md: "A100 80 GB -> 256 GB").
  p.ram_min_bytes = 2 * choice.gpu.memory_bytes * static_cast<uint64_t>(p.gpus);

  const CpuClass* cls = &kCpuClasses[std::size(kCpuClasses) - 1];
  std::optional<DimmLayout> layout;
  for (const CpuClass& c : kCpuClasses) {
    if (p.pcie_lanes > c.max_lanes || p.cpu_cores > c.max_cores) continue;
    layout = dimm_layout_for(p.ram_min_bytes, c.channels, c.dimms_per_channel);
    if (!layout) continue;
    cls = &c;
    break;
  }
  if (!layout) layout = dimm_layout_for(p.ram_min_bytes, cls->channels, 2);
  p.cpu_class = cls->name;
  parts.cpu_class = cls;
  if (layout) {
    p.ram_bytes = layout->total_bytes;
    p.dimm_layout = core::Message::plural(
        // TRANSLATORS: {0} modules of {1} GB on {2} memory channels, {3} module(s) per channel.
        NP_("{0} x {1} GB DDR5 ({2} channel, {3} per channel)", "{0} x {1} GB DDR5 ({2} channels, {3} per channel)"),
        layout->channels, layout->dimms, layout->dimm_bytes / core::kGiB, layout->channels,
        layout->dimms / layout->channels);
  } else {
    p.ram_bytes = p.ram_min_bytes;
    p.dimm_layout = core::Message(N_("more than one 2-socket server holds: split the job over nodes"));
  }
}

// Power: GPU TDPs + CPU TDP + the rest, with headroom.
void size_server_power(ServerPlan& p, const GpuChoice& choice, ServerParts& parts) {
  parts.gpu_watts = choice.gpu.tdp_watts.value_or(300.0) * p.gpus;
  const double watts = (parts.gpu_watts + parts.cpu_class->tdp_w + kBaseWatts) * kPsuHeadroom;
  p.psu_watts = static_cast<int>(std::ceil(watts));
  const int redundant_supplies = static_cast<int>(std::ceil(watts / 2000.0));
  // TRANSLATORS: {0} power supplies of 2000 W each.
  p.psu = core::Message(N_("{0} x 2000 W (redundant server supplies)"), redundant_supplies);
  for (int size : kPsuWatts) {
    if (size >= watts) {
      p.psu = core::verbatim(fmt::format("{} W", size));
      break;
    }
  }
}

// The table rows `tfrig plan` prints, as messages.
void add_server_lines(ServerPlan& p, const DataOptions& data, const ServerParts& parts) {
  const long long together = std::llround(p.samples_per_s);
  p.lines.push_back({core::verbatim("GPU"), core::verbatim(fmt::format("{} x {}", p.gpus, p.gpu_name)),
                     core::Message(N_("{0} samples/s together"), together)});
  p.lines.push_back(
      // TRANSLATORS: {0} physical cores, {1} hardware threads.
      {core::verbatim("CPU"), core::Message(N_("{0} cores / {1} threads"), p.cpu_cores, 2 * p.cpu_cores),
       // TRANSLATORS: {0} samples/s of all GPUs, {1} samples/s one core decodes, {2} how that is known (assumed/measured), {3} the cores needed.
       core::Message(N_("{0:.0f} samples/s / {1:.0f} per core ({2}) + 1 per GPU = {3}; docs/guide.md minimum 16"),
                     p.samples_per_s, p.per_core_rate, p.per_core_basis_text, p.cpu_cores_needed)});
  p.lines.push_back({core::Message::in_context(NC_("server part", "CPU class")), core::Message(parts.cpu_class->name),
                     parts.nic_lanes ? core::Message(N_("{0} PCIe lanes: x16 per GPU, x4 per NVMe, NIC"), p.pcie_lanes)
                                     : core::Message(N_("{0} PCIe lanes: x16 per GPU, x4 per NVMe"), p.pcie_lanes)});
  p.lines.push_back(
      {core::Message::in_context(NC_("server part", "RAM")),
       // TRANSLATORS: {0} the memory size, {1} its modules and channels.
       core::Message(N_("{0} ({1})"), core::format_bytes_binary(p.ram_bytes), p.dimm_layout),
       core::Message(N_("at least 2 x total GPU memory = {0}"), core::format_bytes_binary(p.ram_min_bytes))});
  p.lines.push_back(
      {core::verbatim("NVMe"),
       // TRANSLATORS: {0} drives of {1} each, {2} in all.
       core::Message(N_("{0} x {1} ({2} in all)"), p.nvme_drives, core::format_bytes_decimal(parts.drive_bytes),
                     core::format_bytes_decimal(p.nvme_bytes)),
       p.dataset_assumed
           // TRANSLATORS: twice the dataset of {0} samples of {1} each; {2} the read rate the GPUs pull.
           ? core::Message(N_("2 x dataset ({0} samples x {1}, assumed); reads {2}"), p.dataset_samples,
                           core::format_bytes_decimal(p.sample_bytes), core::format_rate(p.read_bytes_per_s))
           : core::Message(N_("2 x dataset ({0} samples x {1}); reads {2}"), p.dataset_samples,
                           core::format_bytes_decimal(p.sample_bytes), core::format_rate(p.read_bytes_per_s))});
  if (p.network_gbits) {
    const core::Message nic_text =
        p.nic == "400 GbE or several NICs" ? core::Message(N_("400 GbE or several NICs")) : core::verbatim(p.nic);
    p.lines.push_back({core::Message::in_context(NC_("server part", "Network")), nic_text,
                       core::Message(N_("storage is separate: {0:.1f} Gbit/s payload + 30% headroom"),
                                     p.read_bytes_per_s * 8 / 1e9)});
  }
  p.lines.push_back(
      {core::Message::in_context(NC_("server part", "PSU")), p.psu,
       // TRANSLATORS: the power supply: ({0} W for the GPUs + {1} W CPU + {2} W the rest) x headroom {3} = {4} W.
       core::Message(N_("({0:.0f} W GPUs + {1:.0f} W CPU + {2:.0f} W rest) x {3:.2f} = {4} W"), parts.gpu_watts,
                     parts.cpu_class->tdp_w, kBaseWatts, kPsuHeadroom, p.psu_watts)});
  if (p.epoch_seconds > 0) {
    p.lines.push_back(
        {core::Message::in_context(NC_("server part", "Epoch")), duration(p.epoch_seconds),
         p.cost_per_epoch
             ?  // TRANSLATORS: {0} the epoch's cost, {1} the price of one GPU-hour; both with their currency ("¥3.20").
             core::Message(N_("costs {0} at {1} per GPU-hour"), format_money(*p.cost_per_epoch, data.price_currency),
                           format_money(*data.price_per_gpu_hour, data.price_currency))
             : core::Message(N_("--price-per-hour gives its cost"))});
  }
}

}  // namespace

// The server around the chosen GPUs, part by part: the CPU that feeds them,
// the drives and network that keep up with their reads, the lanes of all that,
// the platform and RAM, the power, then one epoch's time and cost.
ServerPlan balance_server(const Workload& w, const GpuChoice& choice, const DataOptions& data) {
  ServerPlan p;
  p.gpu_name = choice.gpu.name;
  p.gpus = std::max(1, choice.gpus_needed);
  p.samples_per_s = choice.est_samples_per_s;
  p.image_input = image_input(w);

  ServerParts parts;
  size_server_cpu(p, data);
  parts.drive_bytes = size_server_storage(p, w, data);
  size_server_network(p, data);

  // PCIe lanes: x16 per GPU (docs/guide.md), x4 per NVMe drive (NVMe over
  // PCIe x4, the U.2/M.2 form factors), x16 for a 100 GbE+ NIC, x8 below.
  parts.nic_lanes = data.storage_separate ? (p.network_gbits && *p.network_gbits > 40 ? 16 : 8) : 0;
  p.pcie_lanes = 16 * p.gpus + 4 * p.nvme_drives + parts.nic_lanes;

  choose_server_platform(p, choice, parts);
  size_server_power(p, choice, parts);

  if (p.samples_per_s > 0) {
    p.epoch_seconds = static_cast<double>(p.dataset_samples) / p.samples_per_s;
    if (data.price_per_gpu_hour) {
      p.cost_per_epoch = p.epoch_seconds / 3600.0 * *data.price_per_gpu_hour * p.gpus;
      p.cost_currency = data.price_currency;
    }
  }
  add_server_lines(p, data, parts);
  return p;
}

}  // namespace tfrig::plan

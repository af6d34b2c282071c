#include "plan/render.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "core/table.h"
#include "core/units.h"

namespace tfrig::plan {

namespace {

std::string millions(uint64_t n) {
  if (n >= 1000000000) return fmt::format("{:.2f}B", static_cast<double>(n) / 1e9);
  if (n >= 1000000) return fmt::format("{:.1f}M", static_cast<double>(n) / 1e6);
  if (n >= 1000) return fmt::format("{:.1f}k", static_cast<double>(n) / 1e3);
  return std::to_string(n);
}

std::string grouped(uint64_t n) {
  std::string s = std::to_string(n);
  for (int i = static_cast<int>(s.size()) - 3; i > 0; i -= 3) s.insert(static_cast<size_t>(i), ",");
  return s;
}

std::string rate(double r) { return r >= 100 ? fmt::format("{:.0f}", r) : fmt::format("{:.1f}", r); }

// "1234 (990-1500)": the rate with its uncertainty band.
std::string rate_band(const GpuChoice& c) {
  return fmt::format("{} ({}-{})", rate(c.est_samples_per_s), rate(c.est_samples_per_s_low), rate(c.est_samples_per_s_high));
}

std::string activation_formula(const Workload& w, uint64_t batch) {
  const uint64_t e = activation_element_bytes(w.precision);
  if (w.family == Family::kTransformer && w.transformer) {
    const TransformerConfig& c = *w.transformer;
    const char* per_layer = w.recompute == Recompute::kFull ? "e*sbh (full recomputation)"
                            : w.xla ? (w.recompute == Recompute::kSelective ? "sbh*(16e+2) (XLA-fused, selective recomputation)"
                                                                            : "sbh*(16e+2) + as^2b*(2e+1) (XLA-fused)")
                                    : (w.recompute == Recompute::kSelective ? "sbh*(10e+4f+7e*ffn/h) (op by op, selective recomputation)"
                                                                            : "sbh*(10e+4f+7e*ffn/h) + as^2b*(2f+e if mixed) (op by op, no XLA)");
    return fmt::format("{} layers x {} with s={} b={} h={} a={} e={} f=4 (docs/plan.md)", c.layers + c.decoder_layers, per_layer,
                       w.seq_len, batch, c.hidden, c.heads, e);
  }
  return fmt::format("sum over {} layers of the outputs kept for backward x batch {} x {} B", w.layers.size(), batch, e);
}

}  // namespace

std::vector<MemoryRow> memory_rows(const PlanResult& r) {
  const Workload& w = r.workload;
  const MemoryBreakdown& m = r.memory;
  const bool mixed = w.precision != Precision::kFp32;
  std::vector<MemoryRow> rows;
  rows.push_back({"weights", m.weights_bytes,
                  fmt::format("{} params x {} B ({})", millions(w.params), mixed ? 2 : 4, mixed ? "16-bit copies compute reads" : "float32 variables")});
  if (mixed) rows.push_back({"master weights", m.master_weights_bytes, fmt::format("{} params x 4 B (float32 variables)", millions(w.params))});
  rows.push_back({"gradients", m.gradients_bytes,
                  m.gradients_bytes > w.trainable_params * 4
                      ? fmt::format("{} trainable x 4 B (float32) x 2: the unscaled/clipped copy TensorFlow makes", millions(w.trainable_params))
                      : fmt::format("{} trainable x 4 B (float32)", millions(w.trainable_params))});
  rows.push_back({fmt::format("optimizer ({})", optimizer_name(w.optimizer)), m.optimizer_bytes,
                  w.optimizer == Optimizer::kAdafactor ? std::string("factored second moments ~ 2/width of the parameters x 4 B")
                                                       : fmt::format("{} trainable x {} B of slots{}", millions(w.trainable_params),
                                                                     w.optimizer == Optimizer::kSgd        ? 0
                                                                     : w.optimizer == Optimizer::kMomentum ? 4
                                                                                                           : 8,
                                                                     w.xla ? "" : " x 2 (the update's new slot values, without XLA)")});
  rows.push_back({"activations", m.activations_bytes, activation_formula(w, m.batch_per_gpu)});
  rows.push_back({"workspace", m.workspace_bytes, w.family == Family::kTransformer ? "cuBLAS workspace" : "cuDNN workspace: largest layer output, 64 MiB..4 GiB"});
  rows.push_back({"CUDA context + runtime", m.context_bytes, "assumed"});
  rows.push_back({"allocator slack", m.fragmentation_bytes, "5% of the tensors (assumed)"});
  return rows;
}

std::string render_text(const PlanResult& r, const RenderOptions& o) {
  const Workload& w = r.workload;
  std::string out;
  out += fmt::format("tfrig plan: {}, batch {}{}, {}, {}\n", w.display_name, w.batch,
                     w.gpus > 1 ? fmt::format(" over {} GPUs", w.gpus) : std::string(), precision_name(w.precision), optimizer_name(w.optimizer));
  out += fmt::format("  {} parameters ({} trainable); {}\n", grouped(w.params), grouped(w.trainable_params), w.params_source);
  if (w.family == Family::kTransformer) {
    out += fmt::format("  sequence {} tokens; recomputation {}\n", w.seq_len, recompute_name(w.recompute));
  } else if (w.image_size > 0) {
    out += fmt::format("  input {} x {} px\n", w.image_size, w.image_size);
  }

  out += fmt::format("\nGPU memory of one replica (batch {} per GPU)\n", r.batch_per_gpu);
  core::Table mem({"term", "size", "formula"}, {core::Table::Align::kLeft, core::Table::Align::kRight, core::Table::Align::kLeft});
  for (const MemoryRow& row : memory_rows(r)) mem.add_row({row.term, core::format_bytes_binary(row.bytes), row.formula});
  mem.add_row({"total", core::format_bytes_binary(r.memory.total_bytes), ""});
  mem.add_row({"uncertainty", core::format_bytes_binary(r.memory.uncertainty_bytes), "10% of the total: 'fits' only when total + this fits"});
  out += mem.render();

  out += fmt::format("\nGPUs ranked by {}\n", rank_by_name(r.rank_by));
  core::Table gt({"#", "GPU", "memory", "GPUs", "max batch/GPU", "samples/s", "basis", "per $1k", "tier"},
                 {core::Table::Align::kRight, core::Table::Align::kLeft, core::Table::Align::kRight, core::Table::Align::kRight,
                  core::Table::Align::kRight, core::Table::Align::kRight, core::Table::Align::kLeft, core::Table::Align::kRight,
                  core::Table::Align::kLeft});
  size_t shown = 0, not_fitting = 0;
  std::vector<std::string> misfits;
  for (const GpuChoice& c : r.gpus) {
    if (!c.fits) {
      ++not_fitting;
      misfits.push_back(c.gpu.name);
      if (!o.all_gpus) continue;
    }
    if (o.top > 0 && shown >= o.top) continue;
    ++shown;
    gt.add_row({std::to_string(shown), c.gpu.name, core::format_bytes_binary(c.gpu.memory_bytes), c.fits ? std::to_string(c.gpus_needed) : "-",
                c.fits ? std::to_string(c.max_batch_per_gpu) : "0", c.per_gpu && c.fits ? rate_band(c) : "-",
                c.per_gpu ? c.per_gpu->basis : "-", c.samples_per_s_per_kusd ? rate(*c.samples_per_s_per_kusd) : "-",
                std::string(tier_name(c.tier)) + "/" + std::string(segment_name(c.gpu.segment))});
  }
  out += gt.empty() ? "  no GPU of the catalog fits\n" : gt.render();
  if (not_fitting > 0 && !o.all_gpus) {
    out += fmt::format("  {} do not fit even one sample (--all lists them)\n", not_fitting);
  }
  out += "  samples/s: all the GPUs together, with the uncertainty band in brackets; per $1k: one GPU's samples/s per 1000 USD of launch price\n";

  if (r.server) {
    const ServerPlan& s = *r.server;
    out += fmt::format("\nBalanced server around {} x {}\n", s.gpus, s.gpu_name);
    core::Table st({"part", "choice", "why"});
    for (const ServerLine& l : s.lines) st.add_row({l.component, l.value, l.reason});
    out += st.render();
  }

  if (r.machine) {
    const MachineVerdict& m = *r.machine;
    out += fmt::format("\nThe barrel on {}\n", m.source);
    core::Table bt({"stave", "have", "need", "verdict"});
    for (const Stave& s : m.staves) bt.add_row({s.name, s.have, s.need, s.verdict});
    out += bt.render();
    const auto unknown = std::count_if(m.staves.begin(), m.staves.end(), [](const Stave& s) { return s.verdict == "unknown"; });
    if (!m.shortest.empty()) {
      out += fmt::format("  shortest stave: {}\n", m.shortest);
    } else if (unknown > 0) {
      out += fmt::format("  no stave known to be short for this workload; {} unknown\n", unknown);
    } else {
      out += "  no stave is short for this workload\n";
    }
    for (const std::string& n : m.notes) out += "  note: " + n + "\n";
  }

  std::vector<std::string> notes = w.notes;
  if (!r.gpus.empty() && r.gpus.front().fits) {
    const GpuChoice& top = r.gpus.front();
    for (const std::string& n : top.notes) notes.push_back(top.gpu.name + ": " + n);
    if (top.per_gpu) notes.push_back(top.gpu.name + " rate: " + top.per_gpu->detail);
  }
  if (!notes.empty()) {
    out += "\nNotes\n";
    for (const std::string& n : notes) out += "  - " + n + "\n";
  }
  out += "\nFormulas and sources: docs/plan.md\n";
  return out;
}

std::string render_markdown(const PlanResult& r, const RenderOptions& o) {
  const Workload& w = r.workload;
  std::string out;
  out += fmt::format("# Training server plan: {}\n\n", w.display_name);
  out += fmt::format("- Batch {} ({} per GPU), {}, optimizer {}\n", w.batch, r.batch_per_gpu, precision_name(w.precision), optimizer_name(w.optimizer));
  out += fmt::format("- {} parameters ({})\n", grouped(w.params), w.params_source);
  if (w.family == Family::kTransformer) out += fmt::format("- Sequence length {}\n", w.seq_len);
  out += "\n## GPU memory per replica\n\n| term | size | formula |\n| --- | ---: | --- |\n";
  for (const MemoryRow& row : memory_rows(r)) out += fmt::format("| {} | {} | {} |\n", row.term, core::format_bytes_binary(row.bytes), row.formula);
  out += fmt::format("| **total** | **{}** | |\n", core::format_bytes_binary(r.memory.total_bytes));
  out += fmt::format("\n## GPUs that fit, ranked by {}\n\n| # | GPU | memory | GPUs | max batch/GPU | samples/s | basis | per $1k |\n| ---: | --- | ---: | ---: | ---: | ---: | --- | ---: |\n",
                     rank_by_name(r.rank_by));
  size_t shown = 0;
  for (const GpuChoice& c : r.gpus) {
    if (!c.fits && !o.all_gpus) continue;
    if (o.top > 0 && shown >= o.top) break;
    ++shown;
    out += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} |\n", shown, c.gpu.name, core::format_bytes_binary(c.gpu.memory_bytes),
                       c.fits ? std::to_string(c.gpus_needed) : "-", c.max_batch_per_gpu, c.per_gpu && c.fits ? rate_band(c) : "-",
                       c.per_gpu ? c.per_gpu->basis : "-", c.samples_per_s_per_kusd ? rate(*c.samples_per_s_per_kusd) : "-");
  }
  if (r.server) {
    out += fmt::format("\n## Server: {} x {}\n\n| part | choice | why |\n| --- | --- | --- |\n", r.server->gpus, r.server->gpu_name);
    for (const ServerLine& l : r.server->lines) out += fmt::format("| {} | {} | {} |\n", l.component, l.value, l.reason);
  }
  if (r.machine) {
    out += fmt::format("\n## The barrel on {}\n\n| stave | have | need | verdict |\n| --- | --- | --- | --- |\n", r.machine->source);
    for (const Stave& s : r.machine->staves) out += fmt::format("| {} | {} | {} | {} |\n", s.name, s.have, s.need, s.verdict);
    out += r.machine->shortest.empty() ? "\nNo stave is short.\n" : fmt::format("\nShortest stave: **{}**.\n", r.machine->shortest);
  }
  out += "\nEstimates by `tfrig plan`; formulas and sources in docs/plan.md.\n";
  return out;
}

nlohmann::json to_json(const PlanResult& r) {
  using nlohmann::json;
  const Workload& w = r.workload;
  json j;
  j["schema_version"] = 1;
  j["model"] = {{"id", w.model_id},
                {"name", w.display_name},
                {"family", family_name(w.family)},
                {"params", w.params},
                {"trainable_params", w.trainable_params},
                {"params_source", w.params_source},
                {"image_size", w.image_size > 0 ? json(w.image_size) : json(nullptr)},
                {"seq_len", w.seq_len > 0 ? json(w.seq_len) : json(nullptr)}};
  j["batch"] = w.batch;
  j["gpus_requested"] = w.gpus;
  j["precision"] = precision_name(w.precision);
  j["optimizer"] = optimizer_name(w.optimizer);
  j["recompute"] = recompute_name(w.recompute);
  j["rank_by"] = rank_by_name(r.rank_by);
  const MemoryBreakdown& m = r.memory;
  j["memory"] = {{"batch_per_gpu", m.batch_per_gpu},
                 {"total_bytes", m.total_bytes},
                 {"weights_bytes", m.contract_weights()},
                 {"gradients_bytes", m.gradients_bytes},
                 {"optimizer_bytes", m.optimizer_bytes},
                 {"activations_bytes", m.activations_bytes},
                 {"overhead_bytes", m.contract_overhead()},
                 {"detail",
                  {{"compute_weights_bytes", m.weights_bytes},
                   {"master_weights_bytes", m.master_weights_bytes},
                   {"workspace_bytes", m.workspace_bytes},
                   {"context_bytes", m.context_bytes},
                   {"fragmentation_bytes", m.fragmentation_bytes},
                   {"uncertainty_bytes", m.uncertainty_bytes}}}};
  json gpus = json::array();
  for (const GpuChoice& c : r.gpus) {
    json g;
    g["id"] = c.gpu.id;
    g["name"] = c.gpu.name;
    g["memory_bytes"] = c.gpu.memory_bytes;
    g["fits"] = c.fits;
    g["gpus_needed"] = c.gpus_needed;
    g["max_batch_per_gpu"] = c.max_batch_per_gpu;
    g["batch_per_gpu"] = c.fits ? json(c.batch_per_gpu) : json(nullptr);
    g["total_bytes_per_gpu"] = c.memory.total_bytes;
    g["est_samples_per_s"] = c.fits && c.per_gpu ? json(c.est_samples_per_s) : json(nullptr);
    g["est_samples_per_s_per_gpu"] = c.per_gpu ? json(c.per_gpu->samples_per_s) : json(nullptr);
    g["est_samples_per_s_low"] = c.fits && c.per_gpu ? json(c.est_samples_per_s_low) : json(nullptr);
    g["est_samples_per_s_high"] = c.fits && c.per_gpu ? json(c.est_samples_per_s_high) : json(nullptr);
    g["math"] = c.per_gpu ? json(c.per_gpu->math) : json(nullptr);
    g["bound"] = c.per_gpu && !c.per_gpu->bound.empty() ? json(c.per_gpu->bound) : json(nullptr);
    g["uncertainty_bytes_per_gpu"] = c.memory.uncertainty_bytes;
    g["basis"] = c.per_gpu ? c.per_gpu->basis : "estimated";
    g["basis_detail"] = c.per_gpu ? json(c.per_gpu->detail) : json("no compute figures for this GPU");
    g["scaling_efficiency"] = c.scaling;
    g["samples_per_s_per_kusd"] = c.samples_per_s_per_kusd ? json(*c.samples_per_s_per_kusd) : json(nullptr);
    g["launch_price_usd"] = c.gpu.launch_price_usd ? json(*c.gpu.launch_price_usd) : json(nullptr);
    g["tier"] = tier_name(c.tier);
    g["segment"] = segment_name(c.gpu.segment);
    g["notes"] = c.notes;
    gpus.push_back(std::move(g));
  }
  j["gpus"] = std::move(gpus);
  if (r.server) {
    const ServerPlan& s = *r.server;
    j["server"] = {{"gpu", s.gpu_name},
                   {"gpus", s.gpus},
                   {"samples_per_s", s.samples_per_s},
                   {"cpu_cores_needed", s.cpu_cores_needed},
                   {"cpu_cores", s.cpu_cores},
                   {"cpu_per_core_rate", s.per_core_rate},
                   {"cpu_per_core_basis", s.per_core_basis},
                   {"cpu_class", s.cpu_class},
                   {"pcie_lanes", s.pcie_lanes},
                   {"ram_min_bytes", s.ram_min_bytes},
                   {"ram_bytes", s.ram_bytes},
                   {"dimm_layout", s.dimm_layout},
                   {"dataset_samples", s.dataset_samples},
                   {"sample_bytes", s.sample_bytes},
                   {"dataset_assumed", s.dataset_assumed},
                   {"nvme_bytes", s.nvme_bytes},
                   {"nvme_drives", s.nvme_drives},
                   {"read_bytes_per_s", s.read_bytes_per_s},
                   {"network_gbits", s.network_gbits ? json(*s.network_gbits) : json(nullptr)},
                   {"nic", s.nic.empty() ? json(nullptr) : json(s.nic)},
                   {"psu_watts", s.psu_watts},
                   {"psu", s.psu},
                   {"epoch_seconds", s.epoch_seconds},
                   {"cost_per_epoch", s.cost_per_epoch ? json(*s.cost_per_epoch) : json(nullptr)}};
  } else {
    j["server"] = nullptr;
  }
  if (r.machine) {
    json staves = json::array();
    for (const Stave& s : r.machine->staves) {
      staves.push_back({{"name", s.name}, {"have", s.have}, {"need", s.need}, {"verdict", s.verdict},
                         {"ratio", s.verdict == "unknown" ? json(nullptr) : json(s.ratio)}});
    }
    json mine = json::array();
    for (const GpuChoice& c : r.machine->gpus) {
      mine.push_back({{"name", c.gpu.name}, {"memory_bytes", c.gpu.memory_bytes}, {"fits", c.fits}, {"max_batch_per_gpu", c.max_batch_per_gpu}});
    }
    j["machine"] = {{"source", r.machine->source},
                    {"gpus", std::move(mine)},
                    {"staves", std::move(staves)},
                    {"shortest_stave", r.machine->shortest.empty() ? json(nullptr) : json(r.machine->shortest)},
                    {"notes", r.machine->notes}};
  }
  j["notes"] = w.notes;
  return j;
}

}  // namespace tfrig::plan

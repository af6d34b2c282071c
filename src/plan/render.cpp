#include "plan/render.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "core/display_width.h"
#include "core/i18n.h"
#include "core/table.h"
#include "core/terminal_text.h"
#include "core/units.h"

namespace tfrig::plan {

namespace {

// The plan's texts are messages, rendered in the output's language (the
// RenderOptions' or to_json's); the renderer's own words (headings, table
// headers) are in the process's language, the reader's.
std::string rendered(const core::Message& m, std::string_view language) { return core::render(m, language); }

std::vector<std::string> rendered(const std::vector<core::Message>& ms, std::string_view language) {
  std::vector<std::string> out;
  out.reserve(ms.size());
  for (const core::Message& m : ms) out.push_back(core::render(m, language));
  return out;
}

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
std::string rate_band_text(const GpuChoice& c) {
  return fmt::format("{} ({}-{})", rate(c.est_samples_per_s), rate(c.est_samples_per_s_low),
                     rate(c.est_samples_per_s_high));
}

std::string activation_formula(const Workload& w, uint64_t batch) {
  const uint64_t e = activation_element_bytes(w.precision);
  if (w.family == Family::kTransformer && w.transformer) {
    const TransformerConfig& c = *w.transformer;
    const char* per_layer =
        // TRANSLATORS: the activation memory of one layer; keep the formula, translate the words in brackets.
        w.recompute == Recompute::kFull ? N_("e*sbh (full recomputation)")
        : w.xla
            ? (w.recompute == Recompute::kSelective ? N_("sbh*(8e+2f+3e*ffn/h) (XLA-fused, selective recomputation)")
                                                    : N_("sbh*(8e+2f+3e*ffn/h) + as^2b*3e (XLA-fused)"))
            : (w.recompute == Recompute::kSelective
                   ? N_("sbh*(10e+4f+4e*ffn/h) (op by op, selective recomputation)")
                   : N_("sbh*(10e+4f+4e*ffn/h) + as^2b*(3f+e mixed, 4f fp32) (op by op, no XLA)"));
    // TRANSLATORS: {0} layers, {1} the per-layer formula, then the letters of the formula.
    return trf("{0} layers x {1} with s={2} b={3} h={4} a={5} e={6} f=4 (docs/plan.md)", c.layers + c.decoder_layers,
               _(per_layer), w.seq_len, batch, c.hidden, c.heads, e);
  }
  // TRANSLATORS: {0} layers, {1} the batch size, {2} bytes per element.
  return trf("sum over {0} layers of the outputs kept for backward x batch {1} x {2} B", w.layers.size(), batch, e);
}

std::string tier_text(Tier t) {
  switch (t) {
    case Tier::kEntry: return C_("GPU tier", "entry");
    case Tier::kMainstream: return C_("GPU tier", "mainstream");
    case Tier::kEnterprise: return C_("GPU tier", "enterprise");
  }
  return std::string(tier_name(t));
}

std::string segment_text(Segment s) {
  switch (s) {
    case Segment::kConsumer: return C_("GPU segment", "consumer");
    case Segment::kWorkstation: return C_("GPU segment", "workstation");
    case Segment::kDatacenter: return C_("GPU segment", "datacenter");
  }
  return std::string(segment_name(s));
}

// The staves of judge_machine (plan.cpp); their names stay English in JSON.
std::string stave_text(std::string_view name) {
  static constexpr const char* kStaves[] = {N_("GPU memory"), N_("GPU count"), N_("GPU"),    N_("CPU cores"),
                                            N_("RAM"),        N_("PCIe"),      N_("storage")};
  for (const char* s : kStaves) {
    if (name == s) return _(s);
  }
  return std::string(name);
}

}  // namespace

// Values that are JSON contract words ("measured", "short") are translated
// only where the terminal shows them.
std::string basis_text(std::string_view basis) {
  if (basis == "measured") return C_("throughput basis", "measured");
  if (basis == "estimated") return C_("throughput basis", "estimated");
  if (basis == "calibrated") return C_("throughput basis", "calibrated");
  return std::string(basis);
}

std::string rank_by_text(RankBy b) {
  switch (b) {
    case RankBy::kPricePerformance: return C_("rank by", "price-performance");
    case RankBy::kSpeed: return C_("rank by", "speed");
    case RankBy::kMemory: return C_("rank by", "memory");
  }
  return std::string(rank_by_name(b));
}

std::string stave_verdict_text(std::string_view verdict) {
  if (verdict == "ok") return C_("stave verdict", "ok");
  if (verdict == "short") return C_("stave verdict", "short");
  if (verdict == "unknown") return C_("stave verdict", "unknown");
  return std::string(verdict);
}

std::vector<MemoryRow> memory_rows(const PlanResult& r) {
  const Workload& w = r.workload;
  const MemoryBreakdown& m = r.memory;
  const bool mixed = w.precision != Precision::kFp32;
  std::vector<MemoryRow> rows;
  rows.push_back({_("weights"), m.weights_bytes,
                  // TRANSLATORS: {0} is a parameter count such as 25.6M.
                  mixed ? trf("{0} params x 2 B (16-bit copies compute reads)", millions(w.params))
                        : trf("{0} params x 4 B (float32 variables)", millions(w.params))});
  if (mixed)
    rows.push_back(
        {_("master weights"), m.master_weights_bytes, trf("{0} params x 4 B (float32 variables)", millions(w.params))});
  // The accumulators of gradient accumulation are part of gradients_bytes
  // (the JSON contract's five terms); the text shows them on a line of their own.
  const uint64_t accumulators = w.accumulation_steps > 1 ? w.trainable_params * 4 : 0;
  const uint64_t gradients = m.gradients_bytes - std::min(accumulators, m.gradients_bytes);
  rows.push_back({_("gradients"), gradients,
                  gradients > w.trainable_params * 4
                      ? trf("{0} trainable x 4 B (float32) x 2: the unscaled/clipped copy TensorFlow makes",
                            millions(w.trainable_params))
                      : trf("{0} trainable x 4 B (float32)", millions(w.trainable_params))});
  if (accumulators > 0) {
    rows.push_back({_("gradient accumulators"), accumulators,
                    // TRANSLATORS: {0} a parameter count such as 335M, {1} the number of batches per update.
                    trf("{0} trainable x 4 B (float32), summed over {1} batches per update",
                        millions(w.trainable_params), w.accumulation_steps)});
  }
  const int slot_bytes = w.optimizer == Optimizer::kSgd ? 0 : w.optimizer == Optimizer::kMomentum ? 4 : 8;
  // TRANSLATORS: {0} is the optimizer's name (adam, sgd ...), left as it is.
  rows.push_back({trf("optimizer ({0})", optimizer_name(w.optimizer)), m.optimizer_bytes,
                  w.optimizer == Optimizer::kAdafactor ? _("factored second moments ~ 2/width of the parameters x 4 B")
                  : w.xla || !w.separate_update_ops
                      ? trf("{0} trainable x {1} B of slots", millions(w.trainable_params), slot_bytes)
                      : trf("{0} trainable x {1} B of slots x 2 (the update's new slot values, without XLA)",
                            millions(w.trainable_params), slot_bytes)});
  rows.push_back({_("activations"), m.activations_bytes, activation_formula(w, m.batch_per_gpu)});
  rows.push_back({_("workspace"), m.workspace_bytes,
                  w.family == Family::kTransformer ? _("cuBLAS workspace")
                                                   : _("cuDNN workspace: largest layer output, 64 MiB..4 GiB")});
  rows.push_back({_("CUDA context + runtime"), m.context_bytes, C_("plan", "assumed")});
  rows.push_back({_("allocator slack"), m.fragmentation_bytes, _("5% of the tensors (assumed)")});
  return rows;
}

namespace {

// The workload: model, batch, precision, optimizer, parameters, input.
std::string plan_text_workload(const Workload& w, std::string_view language) {
  const std::string name = rendered(w.display_name, language);
  std::string out;
  // TRANSLATORS: {0} the model, {1} the batch size, {2} the precision policy (mixed_float16), {3} the optimizer (adam); left as they are.
  out += w.gpus > 1 ? trnf("tfrig plan: {0}, batch {1} over {4} GPU, {2}, {3}",
                           "tfrig plan: {0}, batch {1} over {4} GPUs, {2}, {3}", static_cast<uint64_t>(w.gpus), name,
                           w.batch, precision_name(w.precision), optimizer_name(w.optimizer), w.gpus)
                    : trf("tfrig plan: {0}, batch {1}, {2}, {3}", name, w.batch, precision_name(w.precision),
                          optimizer_name(w.optimizer));
  out += "\n";
  out += "  " +
         // TRANSLATORS: {0} parameters, {1} of them trainable, {2} where the count comes from (a paper or Keras).
         trf("{0} parameters ({1} trainable); {2}", grouped(w.params), grouped(w.trainable_params),
             rendered(w.params_source, language)) +
         "\n";
  if (w.family == Family::kTransformer) {
    // TRANSLATORS: {1} is the value of --recompute (none, selective, full), left as it is.
    out += "  " + trf("sequence {0} tokens; recomputation {1}", w.seq_len, recompute_name(w.recompute)) + "\n";
  } else if (w.image_size > 0) {
    out += "  " + trf("input {0} x {1} px", w.image_size, w.image_size) + "\n";
  }
  return out;
}

// One replica's GPU memory, term by term, with the total and its uncertainty.
std::string plan_text_memory(const PlanResult& r, const RenderOptions& o) {
  std::string out;
  out += "\n" + trf("GPU memory of one replica (batch {0} per GPU)", r.batch_per_gpu) + "\n";
  core::Table mem({_("term"), _("size"), _("formula")},
                  {core::Table::Align::kLeft, core::Table::Align::kRight, core::Table::Align::kLeft});
  for (const MemoryRow& row : memory_rows(r))
    mem.add_row({row.term, core::format_bytes_binary(row.bytes), row.formula});
  mem.add_row({_("total"), core::format_bytes_binary(r.memory.total_bytes), ""});
  mem.add_row({_("uncertainty"), core::format_bytes_binary(r.memory.uncertainty_bytes),
               _("10% of the total: 'fits' only when total + this fits")});
  out += mem.render("  ", o.width);
  return out;
}

// The catalog's GPUs ranked, those that do not fit one sample counted (or
// listed with --all), and the legend.
std::string plan_text_gpus(const PlanResult& r, const RenderOptions& o) {
  std::string out;
  out += "\n" + trf("GPUs ranked by {0}", rank_by_text(r.rank_by)) + "\n";
  core::Table gt({"#", "GPU", C_("GPU table", "memory"), C_("plan GPU table", "GPUs"), _("max batch/GPU"),
                  _("samples/s"), _("basis"), _("per $1k"), _("tier")},
                 {core::Table::Align::kRight, core::Table::Align::kLeft, core::Table::Align::kRight,
                  core::Table::Align::kRight, core::Table::Align::kRight, core::Table::Align::kRight,
                  core::Table::Align::kLeft, core::Table::Align::kRight, core::Table::Align::kLeft});
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
    gt.add_row({std::to_string(shown), c.gpu.name, core::format_bytes_binary(c.gpu.memory_bytes),
                c.fits ? std::to_string(c.gpus_needed) : "-", c.fits ? std::to_string(c.max_batch_per_gpu) : "0",
                c.per_gpu && c.fits ? rate_band_text(c) : "-", c.per_gpu ? basis_text(c.per_gpu->basis) : "-",
                c.samples_per_s_per_kusd ? rate(*c.samples_per_s_per_kusd) : "-",
                tier_text(c.tier) + "/" + segment_text(c.gpu.segment)});
  }
  out += gt.empty() ? "  " + _("no GPU of the catalog fits") + "\n" : gt.render("  ", o.width);
  if (not_fitting > 0 && !o.all_gpus) {
    out += "  " +
           trnf("{} does not fit even one sample (--all lists it)", "{} do not fit even one sample (--all lists them)",
                not_fitting, not_fitting) +
           "\n";
  }
  out +=
      "  " +
      _("samples/s: all the GPUs together, with the uncertainty band in brackets; per $1k: one GPU's samples/s per 1000 USD of launch price") +
      "\n";
  return out;
}

// The balanced server around the top GPU, part by part.
std::string plan_text_server(const ServerPlan& s, const RenderOptions& o) {
  std::string out;
  // TRANSLATORS: {0} GPUs of the model {1}.
  out += "\n" + trf("Balanced server around {0} x {1}", s.gpus, s.gpu_name) + "\n";
  core::Table st({_("part"), _("choice"), _("why")});
  for (const ServerLine& l : s.lines)
    st.add_row({rendered(l.component, o.language), rendered(l.value, o.language), rendered(l.reason, o.language)});
  out += st.render("  ", o.width);
  return out;
}

// The barrel of a machine (--snapshot or this one): its staves, the shortest, its notes.
std::string plan_text_barrel(const MachineVerdict& m, const RenderOptions& o) {
  std::string out;
  // TRANSLATORS: the barrel (木桶效应) of the machine {0} ("this machine" or "snapshot FILE").
  out += "\n" + trf("The barrel on {0}", rendered(m.source, o.language)) + "\n";
  core::Table bt({_("stave"), _("have"), _("need"), _("verdict")});
  for (const Stave& s : m.staves) {
    bt.add_row({stave_text(s.name), rendered(s.have, o.language), rendered(s.need, o.language),
                stave_verdict_text(s.verdict)});
  }
  out += bt.render("  ", o.width);
  const auto unknown =
      std::count_if(m.staves.begin(), m.staves.end(), [](const Stave& s) { return s.verdict == "unknown"; });
  if (!m.shortest.empty()) {
    out += "  " + trf("shortest stave: {0}", stave_text(m.shortest)) + "\n";
  } else if (unknown > 0) {
    out += "  " +
           trnf("no stave known to be short for this workload; {} unknown",
                "no stave known to be short for this workload; {} unknown", static_cast<uint64_t>(unknown), unknown) +
           "\n";
  } else {
    out += "  " + _("no stave is short for this workload") + "\n";
  }
  for (const core::Message& n : m.notes) out += "  " + trf("note: {0}", rendered(n, o.language)) + "\n";
  return out;
}

// The workload's notes and the top GPU's.
std::string plan_text_notes(const PlanResult& r, std::string_view language) {
  const Workload& w = r.workload;
  std::string out;
  std::vector<std::string> notes = rendered(w.notes, language);
  if (!r.gpus.empty() && r.gpus.front().fits) {
    const GpuChoice& top = r.gpus.front();
    // TRANSLATORS: {0} a GPU, {1} a note about it.
    for (const core::Message& n : top.notes) notes.push_back(trf("{0}: {1}", top.gpu.name, rendered(n, language)));
    // TRANSLATORS: {0} a GPU, {1} how its rate was found (left in English: a formula with its figures).
    if (top.per_gpu) notes.push_back(trf("{0} rate: {1}", top.gpu.name, rendered(top.per_gpu->detail, language)));
  }
  if (!notes.empty()) {
    out += "\n" + _("Notes") + "\n";
    for (const std::string& n : notes) out += "  - " + n + "\n";
  }
  return out;
}

}  // namespace

// The plan as text, one section after the other.
std::string render_text(const PlanResult& r, const RenderOptions& o) {
  std::string out = plan_text_workload(r.workload, o.language);
  out += plan_text_memory(r, o);
  out += plan_text_gpus(r, o);
  if (r.server) out += plan_text_server(*r.server, o);
  if (r.machine) out += plan_text_barrel(*r.machine, o);
  out += plan_text_notes(r, o.language);
  out += "\n" + _("Formulas and sources: docs/plan.md") + "\n";
  // Tables already fit; the other lines (notes, legends) wrap under their
  // own indent and list marker.
  return core::wrap_lines(out, o.width);
}

std::string render_markdown(const PlanResult& r, const RenderOptions& o) {
  const Workload& w = r.workload;
  // A Markdown table row of cells. A cell may hold a name or a path from a
  // snapshot of another machine: kept on its line (core::terminal_line) and
  // its pipes escaped, so it can neither end the row nor add a column.
  auto row = [](std::initializer_list<std::string> cells) {
    std::string line = "|";
    for (const std::string& c : cells) {
      std::string cell;
      for (char ch : core::terminal_line(c)) cell += ch == '|' ? std::string("\\|") : std::string(1, ch);
      line += " " + cell + " |";
    }
    return line + "\n";
  };
  std::string out;
  out += "# " + trf("Training server plan: {0}", rendered(w.display_name, o.language)) + "\n\n";
  out +=
      "- " +
      // TRANSLATORS: {0} the batch, {1} per GPU, {2} the precision policy, {3} the optimizer (identifiers, left as they are).
      trf("Batch {0} ({1} per GPU), {2}, optimizer {3}", w.batch, r.batch_per_gpu, precision_name(w.precision),
          optimizer_name(w.optimizer)) +
      "\n";
  out += "- " + trf("{0} parameters ({1})", grouped(w.params), rendered(w.params_source, o.language)) + "\n";
  if (w.family == Family::kTransformer) out += "- " + trf("Sequence length {0}", w.seq_len) + "\n";
  out += "\n## " + _("GPU memory per replica") + "\n\n" + row({_("term"), _("size"), _("formula")}) +
         "| --- | ---: | --- |\n";
  for (const MemoryRow& m : memory_rows(r)) out += row({m.term, core::format_bytes_binary(m.bytes), m.formula});
  out += fmt::format("| **{}** | **{}** | |\n", _("total"), core::format_bytes_binary(r.memory.total_bytes));
  out += "\n## " + trf("GPUs that fit, ranked by {0}", rank_by_text(r.rank_by)) + "\n\n" +
         row({"#", "GPU", C_("GPU table", "memory"), C_("plan GPU table", "GPUs"), _("max batch/GPU"), _("samples/s"),
              _("basis"), _("per $1k")}) +
         "| ---: | --- | ---: | ---: | ---: | ---: | --- | ---: |\n";
  size_t shown = 0;
  for (const GpuChoice& c : r.gpus) {
    if (!c.fits && !o.all_gpus) continue;
    if (o.top > 0 && shown >= o.top) break;
    ++shown;
    out += row({std::to_string(shown), c.gpu.name, core::format_bytes_binary(c.gpu.memory_bytes),
                c.fits ? std::to_string(c.gpus_needed) : "-", std::to_string(c.max_batch_per_gpu),
                c.per_gpu && c.fits ? rate_band_text(c) : "-", c.per_gpu ? basis_text(c.per_gpu->basis) : "-",
                c.samples_per_s_per_kusd ? rate(*c.samples_per_s_per_kusd) : "-"});
  }
  if (r.server) {
    out += "\n## " + trf("Server: {0} x {1}", r.server->gpus, r.server->gpu_name) + "\n\n" +
           row({_("part"), _("choice"), _("why")}) + "| --- | --- | --- |\n";
    for (const ServerLine& l : r.server->lines)
      out += row({rendered(l.component, o.language), rendered(l.value, o.language), rendered(l.reason, o.language)});
  }
  if (r.machine) {
    out += "\n## " + trf("The barrel on {0}", rendered(r.machine->source, o.language)) + "\n\n" +
           row({_("stave"), _("have"), _("need"), _("verdict")}) + "| --- | --- | --- | --- |\n";
    for (const Stave& s : r.machine->staves)
      out += row({stave_text(s.name), rendered(s.have, o.language), rendered(s.need, o.language),
                  stave_verdict_text(s.verdict)});
    out += "\n" +
           (r.machine->shortest.empty() ? _("No stave is short.")
                                        : trf("Shortest stave: **{0}**.", stave_text(r.machine->shortest))) +
           "\n";
  }
  out += "\n" + _("Estimates by `tfrig plan`; formulas and sources in docs/plan.md.") + "\n";
  return out;
}

namespace {

using nlohmann::json;

// One ranked GPU: its fit, rate with its band and basis, price-performance, notes.
json gpu_choice_json(const GpuChoice& c, std::string_view language) {
  json g;
  g["id"] = c.gpu.id;
  g["name"] = c.gpu.name;
  g["memory_bytes"] = c.gpu.memory_bytes;
  g["fits"] = c.fits;
  g["gpus_needed"] = c.gpus_needed;
  g["max_batch_per_gpu"] = c.max_batch_per_gpu;
  // The batch asked for, per GPU on the GPUs asked: "fits" only with its
  // uncertainty; "borderline" inside it (max_batch_per_gpu is the largest safe batch).
  g["requested_batch_per_gpu"] = c.requested_batch_per_gpu;
  g["requested_memory_verdict"] = std::string(memory_verdict_name(c.requested_verdict));
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
  g["basis_detail"] =
      rendered(c.per_gpu ? c.per_gpu->detail : core::Message(N_("no compute figures for this GPU")), language);
  g["scaling_efficiency"] = c.scaling;
  g["samples_per_s_per_kusd"] = c.samples_per_s_per_kusd ? json(*c.samples_per_s_per_kusd) : json(nullptr);
  g["launch_price_usd"] = c.gpu.launch_price_usd ? json(*c.gpu.launch_price_usd) : json(nullptr);
  g["tier"] = tier_name(c.tier);
  g["segment"] = segment_name(c.gpu.segment);
  g["notes"] = rendered(c.notes, language);
  return g;
}

// The balanced server, part by part.
json server_plan_json(const ServerPlan& s, std::string_view language) {
  return {{"gpu", s.gpu_name},
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
          {"dimm_layout", rendered(s.dimm_layout, language)},
          {"dataset_samples", s.dataset_samples},
          {"sample_bytes", s.sample_bytes},
          {"dataset_assumed", s.dataset_assumed},
          {"nvme_bytes", s.nvme_bytes},
          {"nvme_drives", s.nvme_drives},
          {"read_bytes_per_s", s.read_bytes_per_s},
          {"network_gbits", s.network_gbits ? json(*s.network_gbits) : json(nullptr)},
          {"nic", s.nic.empty() ? json(nullptr) : json(s.nic)},
          {"psu_watts", s.psu_watts},
          {"psu", rendered(s.psu, language)},
          {"epoch_seconds", s.epoch_seconds},
          {"cost_per_epoch", s.cost_per_epoch ? json(*s.cost_per_epoch) : json(nullptr)},
          {"cost_currency", s.cost_per_epoch ? json(s.cost_currency) : json(nullptr)}};
}

// The barrel of a machine: its GPUs, staves and the shortest one.
json machine_verdict_json(const MachineVerdict& m, std::string_view language) {
  json staves = json::array();
  for (const Stave& s : m.staves) {
    staves.push_back({{"name", s.name},
                      {"have", rendered(s.have, language)},
                      {"need", rendered(s.need, language)},
                      {"verdict", s.verdict},
                      {"ratio", s.verdict == "unknown" ? json(nullptr) : json(s.ratio)}});
  }
  json mine = json::array();
  for (const GpuChoice& c : m.gpus) {
    mine.push_back({{"name", c.gpu.name},
                    {"memory_bytes", c.gpu.memory_bytes},
                    {"fits", c.fits},
                    {"max_batch_per_gpu", c.max_batch_per_gpu}});
  }
  return {{"source", rendered(m.source, language)},
          {"gpus", std::move(mine)},
          {"staves", std::move(staves)},
          {"shortest_stave", m.shortest.empty() ? json(nullptr) : json(m.shortest)},
          {"notes", rendered(m.notes, language)}};
}

}  // namespace

nlohmann::json to_json(const PlanResult& r, std::string_view language) {
  using nlohmann::json;
  const Workload& w = r.workload;
  json j;
  j["schema_version"] = 1;
  j["model"] = {{"id", w.model_id},
                {"name", rendered(w.display_name, language)},
                {"family", family_name(w.family)},
                {"params", w.params},
                {"trainable_params", w.trainable_params},
                {"params_source", rendered(w.params_source, language)},
                {"image_size", w.image_size > 0 ? json(w.image_size) : json(nullptr)},
                {"seq_len", w.seq_len > 0 ? json(w.seq_len) : json(nullptr)}};
  j["batch"] = w.batch;
  j["gpus_requested"] = w.gpus;
  j["precision"] = precision_name(w.precision);
  j["optimizer"] = optimizer_name(w.optimizer);
  j["recompute"] = recompute_name(w.recompute);
  j["accumulation_steps"] = w.accumulation_steps;
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
  for (const GpuChoice& c : r.gpus) gpus.push_back(gpu_choice_json(c, language));
  j["gpus"] = std::move(gpus);
  j["server"] = r.server ? server_plan_json(*r.server, language) : json(nullptr);
  if (r.machine) j["machine"] = machine_verdict_json(*r.machine, language);
  j["notes"] = rendered(w.notes, language);
  return j;
}

}  // namespace tfrig::plan

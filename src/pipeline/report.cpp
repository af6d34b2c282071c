#include "pipeline/report.h"

#include <algorithm>
#include <cmath>
#include <functional>

#include <fmt/format.h>

#include "core/display_width.h"
#include "core/i18n.h"
#include "core/table.h"
#include "core/units.h"

namespace tfrig::pipeline {

Report build_report(ReportInputs in) {
  Report r;
  r.data_dir = in.data_dir;
  r.target_utilization = in.target_utilization;
  std::vector<Stage> stages = in.measured.stages;
  stages.push_back(in.demand.gpu);
  r.barrel = evaluate(std::move(stages));
  r.serial_utilization = serial_utilization(r.barrel);
  WhatIfInputs wi;
  wi.tfrecord_samples_per_s = in.measured.tfrecord_samples_per_s;
  wi.warm_storage_samples_per_s = in.measured.warm_storage_samples_per_s;
  wi.input_is_tfrecord = in.measured.input_is_tfrecord;
  wi.dataset_bytes = static_cast<double>(in.measured.bytes_total);
  // ASSUMED: a cache may use up to 80% of the memory available now.
  if (in.available_memory_bytes)
    wi.fits_in_ram = wi.dataset_bytes <= 0.8 * static_cast<double>(*in.available_memory_bytes);
  wi.avg_sample_bytes = in.measured.avg_sample_bytes;
  wi.decode_per_core = in.measured.decode_per_core;
  wi.cores = in.measured.threads;
  wi.gpu_demand_mixed = in.demand.mixed_samples_per_s;
  wi.already_mixed = in.demand.mixed;
  wi.target_utilization = in.target_utilization;
  r.what_ifs = what_ifs(r.barrel, wi);
  r.cheapest = cheapest_fix(r.barrel, wi);
  r.advice = advise(r.barrel, in.measured.input_is_tfrecord);
  if (in.dataset_size) {
    r.dataset_samples = *in.dataset_size;
    r.dataset_samples_source = core::Message("{}", "--dataset-size");
  } else if (in.measured.input_is_tfrecord) {
    // Records per byte from the sample, times the directory's bytes.
    if (in.measured.avg_sample_bytes > 0) {
      r.dataset_samples = static_cast<double>(in.measured.bytes_total) / in.measured.avg_sample_bytes;
      r.dataset_samples_source = core::Message(N_("estimated from the shards' size / the average record"));
    }
  } else {
    r.dataset_samples = static_cast<double>(in.measured.files_total);
    r.dataset_samples_source = core::Message(N_("files in {0}"), in.data_dir);
  }
  r.epoch_seconds = epoch_seconds(r.barrel, r.dataset_samples);
  r.demand = std::move(in.demand);
  r.measured = std::move(in.measured);
  return r;
}

namespace {

// The barrel as bars: each stave's rate and its share of the GPU's demand
// (the bar's '|'), where it comes from, the shortest marked.
std::string barrel_bars(const Barrel& b, size_t width) {
  std::string out;
  // The bar's '|' (the GPU's demand) at 15 characters, less on a narrow
  // output so that a stave's line still fits; longer staves are cut at 200%.
  size_t label_width = 0;
  for (const Stage& s : b.stages) {
    label_width =
        std::max(label_width, core::display_width(origin_label(s.origin)) +
                                  (s.name == b.bottleneck ? 2 + core::display_width(_("<- shortest stave")) : 0));
  }
  const size_t beside_bar = 2 + 15 + 1 + 10 + 2 + 7 + 2 + 2 + label_width;
  const size_t half = std::clamp<size_t>(width > beside_bar ? (width - beside_bar) / 2 : 0, 5, 15);
  for (const Stage& s : b.stages) {
    const double share = b.gpu_demand > 0 ? share_of_demand(b, s) : 0;
    const int len = static_cast<int>(std::lround(std::clamp(share, 0.0, 2.0) * static_cast<double>(half)));
    std::string bar(2 * half, ' ');
    for (int i = 0; i < len; ++i) bar[static_cast<size_t>(i)] = '#';
    bar[half] = len > static_cast<int>(half) ? '#' : '|';
    if (share > 2.0) bar.back() = '>';
    out += fmt::format("  {} {:>10.0f}  {:>6.0f}%  {}  {}{}\n", core::pad_right(stage_label(s.name), 15),
                       s.samples_per_s, share * 100, bar, origin_label(s.origin),
                       s.name == b.bottleneck ? "  " + _("<- shortest stave") : std::string());
  }
  return out;
}

// The what-ifs as the HTML page's table.
std::string what_if_table(const Report& r, const std::function<std::string(const core::Message&)>& text, size_t width) {
  std::string out;
  // The same columns as the HTML page's what-if table.
  core::Table whatif(
      {C_("what-if", "change"), _("GPU utilization"), _("then the pace is set by"), _("origin"), _("detail")},
      {core::Table::Align::kLeft, core::Table::Align::kRight, core::Table::Align::kLeft, core::Table::Align::kLeft,
       core::Table::Align::kLeft});
  for (const WhatIf& w : r.what_ifs) {
    whatif.add_row({text(w.change), w.applicable ? fmt::format("{:.0f}%", w.predicted_utilization * 100) : _("n/a"),
                    w.applicable ? stage_label(w.bottleneck) : std::string("-"), origin_label(w.origin),
                    text(w.detail)});
  }
  out += whatif.render("  ", width);
  return out;
}

// Whether the GPU is fed already, else the cheapest change that feeds it, or that none does.
std::string cheapest_change_line(const Report& r, const std::function<std::string(const core::Message&)>& text) {
  const Barrel& b = r.barrel;
  std::string out;
  if (b.predicted_utilization >= r.target_utilization) {
    out +=
        "\n" + trf("Already above {0:.0f}%: no change needed to keep the GPU fed.", r.target_utilization * 100) + "\n";
  } else if (r.cheapest) {
    out += "\n" +
           trf("Cheapest change above {0:.0f}%: {1} -> {2:.0f}%", r.target_utilization * 100, text(r.cheapest->change),
               r.cheapest->predicted_utilization * 100) +
           "\n";
  } else {
    out += "\n" +
           trf("No single change or pair of changes measured here reaches {0:.0f}%.", r.target_utilization * 100) +
           "\n";
  }
  return out;
}

std::string advice_lines(const Report& r, const std::function<std::string(const core::Message&)>& text) {
  std::string out;
  for (const Advice& a : r.advice) {
    out += fmt::format("  [{}] {}\n", stage_label(a.stage), text(a.problem));
    out += "    " + trf("Fix: {0}", text(a.fix)) + "\n";
    out += "    " + trf("Code: {0}", text(a.code)) + "\n";
    out += "    " + trf("Source: {0}", text(a.source)) + "\n";
  }
  return out;
}

}  // namespace

std::string render_text(const Report& r, std::string_view language, size_t width) {
  const Barrel& b = r.barrel;
  auto text = [language](const core::Message& m) { return core::render(m, language); };
  std::string out;
  // TRANSLATORS: {0} the data directory, {1} files, {2} their size, {3} where the GPU's demand comes from.
  out += trnf("tfrig pipeline: {0} ({1} file, {2}), {3}", "tfrig pipeline: {0} ({1} files, {2}), {3}",
              r.measured.files_total, r.data_dir, r.measured.files_total,
              core::format_bytes_binary(r.measured.bytes_total),
              r.demand.gpu.origin == Origin::kAssumed
                  ? trf("GPU demand given: {0:.0f} samples/s", r.demand.gpu.samples_per_s)
                  // TRANSLATORS: {0} the model, {1} the GPU.
                  : trf("{0} on {1}", r.demand.model_name, r.demand.gpu_name)) +
         "\n";
  out += "\n" + _("The barrel (samples/s; each stave's share of what the GPU consumes; the bar's '|' is 100%):") + "\n";
  out += barrel_bars(b, width);
  out += "\n";
  for (const Stage& s : b.stages) out += "  " + trf("{0}: {1}", stage_label(s.name), text(s.detail)) + "\n";
  for (const auto& n : r.measured.notes) out += "  " + trf("Note: {0}", text(n)) + "\n";
  out += "\n" + trf("Shortest stave: {0}", stage_label(b.bottleneck)) + "\n";
  out += trf("Predicted GPU utilization: {0:.0f}% (with prefetch; {1:.0f}% without: the stages add up)",
             b.predicted_utilization * 100, r.serial_utilization * 100) +
         "\n";
  if (r.epoch_seconds) {
    // TRANSLATORS: {0} a duration, {1} samples, {2} where that count comes from, {3} the training rate.
    out += trf("Time per epoch: {0} for {1:.0f} samples ({2}) at {3:.0f} samples/s",
               core::format_seconds(*r.epoch_seconds), r.dataset_samples, text(r.dataset_samples_source),
               b.training_rate) +
           "\n";
  }
  out += "\n" + _("What if:") + "\n";
  out += what_if_table(r, text, width);
  out += cheapest_change_line(r, text);
  out += "\n" + _("Advice:") + "\n";
  out += advice_lines(r, text);
  // The table fits; the other lines wrap under their own indent.
  return core::wrap_lines(out, width);
}

nlohmann::ordered_json render_json(const Report& r, std::string_view language) {
  using OJson = nlohmann::ordered_json;
  auto text = [language](const core::Message& m) { return core::render(m, language); };
  const Barrel& b = r.barrel;
  OJson j;
  j["schema_version"] = 1;
  j["data_dir"] = r.data_dir;
  j["model"] = r.demand.model_name;
  j["gpu"] = r.demand.gpu_name.empty() ? OJson(nullptr) : OJson(r.demand.gpu_name);
  OJson stages = OJson::array();
  for (const Stage& s : b.stages) {
    stages.push_back(OJson{{"name", s.name},
                           {"samples_per_s", s.samples_per_s},
                           {"origin", origin_name(s.origin)},
                           {"share_of_gpu_demand", share_of_demand(b, s)},
                           {"detail", text(s.detail)}});
  }
  j["stages"] = std::move(stages);
  j["gpu_demand_samples_per_s"] = b.gpu_demand;
  j["bottleneck"] = b.bottleneck;
  j["predicted_gpu_utilization"] = b.predicted_utilization;
  j["predicted_gpu_utilization_without_prefetch"] = r.serial_utilization;
  j["training_samples_per_s"] = b.training_rate;
  j["dataset_samples"] = r.dataset_samples;
  j["dataset_samples_source"] = core::english(r.dataset_samples_source);  // English whatever the language, as before
  j["epoch_seconds"] = r.epoch_seconds ? OJson(*r.epoch_seconds) : OJson(nullptr);
  OJson wis = OJson::array();
  for (const WhatIf& w : r.what_ifs) {
    wis.push_back(OJson{{"id", w.id},
                        {"change", text(w.change)},
                        {"predicted_gpu_utilization", w.predicted_utilization},
                        {"bottleneck", w.bottleneck},
                        {"origin", origin_name(w.origin)},
                        {"applicable", w.applicable},
                        {"detail", text(w.detail)}});
  }
  j["what_if"] = std::move(wis);
  j["target_gpu_utilization"] = r.target_utilization;
  if (r.cheapest) {
    j["cheapest_change"] = OJson{{"id", r.cheapest->id},
                                 {"change", text(r.cheapest->change)},
                                 {"predicted_gpu_utilization", r.cheapest->predicted_utilization}};
  } else {
    j["cheapest_change"] = nullptr;
  }
  OJson adv = OJson::array();
  for (const Advice& a : r.advice) {
    adv.push_back(OJson{{"stage", a.stage},
                        {"problem", text(a.problem)},
                        {"fix", text(a.fix)},
                        {"code", text(a.code)},
                        {"source", text(a.source)}});
  }
  j["advice"] = std::move(adv);
  OJson notes = OJson::array();
  for (const core::Message& n : r.measured.notes) notes.push_back(text(n));
  j["measurement"] =
      OJson{{"threads", r.measured.threads},
            {"files_total", r.measured.files_total},
            {"bytes_total", r.measured.bytes_total},
            {"files_sampled", r.measured.files_sampled},
            {"decode_failures", r.measured.decode_failures},
            {"avg_sample_bytes", r.measured.avg_sample_bytes},
            {"input", r.measured.input_is_tfrecord ? "tfrecord" : "files"},
            {"decode_per_core_samples_per_s", r.measured.decode_per_core},
            {"warm_storage_samples_per_s",
             r.measured.warm_storage_samples_per_s ? OJson(*r.measured.warm_storage_samples_per_s) : OJson(nullptr)},
            {"tfrecord_samples_per_s",
             r.measured.tfrecord_samples_per_s ? OJson(*r.measured.tfrecord_samples_per_s) : OJson(nullptr)},
            {"notes", notes}};
  return j;
}

}  // namespace tfrig::pipeline

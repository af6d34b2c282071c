// tfrig pipeline: measure each stage of the input pipeline on the user's own
// dataset against what the GPU consumes; name the shortest stave, the
// predicted GPU utilization, the what-ifs and the fix. Work is in src/pipeline/.
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <optional>
#include <string_view>

#include <fmt/format.h>

#include "bench/scratch.h"
#include "cli/command.h"
#include "cli/validate.h"
#include "cli/html_output.h"
#include "cli/inventory_source.h"
#include "cli/price_options.h"
#include "core/i18n.h"
#include "core/i18n_scope.h"
#include "core/interrupt.h"
#include "core/json_text.h"
#include "core/log.h"
#include "core/output.h"
#include "core/terminal_text.h"
#include "core/text_width.h"
#include "pipeline/demand.h"
#include "pipeline/measure.h"
#include "pipeline/report.h"
#include "pipeline/run_cost.h"
#include "plan/prices.h"
#include "plan/catalog_adapter.h"
#include "probe/probe.h"

namespace tfrig::cli {
namespace {

struct PipelineOptions {
  std::string data_dir;
  std::string model;
  double samples_per_s = 0;
  std::string gpu = "auto";
  int gpus = 1;
  std::string precision = "fp32";
  uint64_t batch = 0;
  int threads = 0;
  std::string format = "text";
  std::string output = "-";
  double dataset_size = 0;
  double seconds = 2.0;
  int files = 2000;
  std::string dir = ".";
  bool no_pack = false;
  // Time and money of the run per what-if (plan's --epochs and price options).
  double epochs = 0;
  PriceFlags price;
};

// What the GPUs need: --model or --samples-per-s on --gpus GPUs.
pipeline::DemandRequest demand_request(const PipelineOptions& o) {
  pipeline::DemandRequest req;
  if (!o.model.empty()) req.model = o.model;
  if (o.samples_per_s > 0) req.samples_per_s = o.samples_per_s;
  req.gpu = o.gpu;
  req.gpus = o.gpus;
  req.precision = o.precision;
  req.batch = o.batch;
  return req;
}

// How the stages are measured on the dataset, with the demand's estimated link.
pipeline::MeasureOptions measure_options(const PipelineOptions& o, const pipeline::Demand& demand) {
  pipeline::MeasureOptions mo;
  mo.data_dir = o.data_dir;
  mo.scratch_parent = o.dir;
  mo.threads = o.threads;
  mo.stage_seconds = o.seconds;
  mo.max_files = static_cast<size_t>(o.files);
  mo.pack_what_if = !o.no_pack;
  mo.estimated_link_bytes_per_s = demand.link_bytes_per_s;
  mo.estimated_link_detail = demand.link_detail;
  return mo;
}

// With --epochs: each what-if's run time and cost on the demand's GPU.
std::optional<pipeline::RunCostTable> run_costs(const PipelineOptions& o, const pipeline::Report& report,
                                                const std::vector<plan::GpuCandidate>& catalog,
                                                const std::string& gpu_name, const plan::PriceBook& prices) {
  if (o.epochs <= 0) return std::nullopt;
  const plan::GpuCandidate* found = pipeline::find_gpu(catalog, gpu_name);
  plan::GpuCandidate gpu = found != nullptr ? *found : plan::GpuCandidate{};
  if (found == nullptr) gpu.id = gpu.name = gpu_name.empty() ? std::string("GPU") : gpu_name;
  plan::RunSpec run;
  run.epochs = o.epochs;
  return pipeline::cost_what_ifs(report, gpu, o.gpus, run, prices);
}

nlohmann::ordered_json pipeline_result_json(const pipeline::Report& report,
                                            const std::optional<pipeline::RunCostTable>& costs,
                                            std::string_view language) {
  auto j = pipeline::render_json(report, language);
  j["run_cost"] = costs ? pipeline::run_cost_json(*costs, language) : nlohmann::ordered_json(nullptr);
  return j;
}

// The result as text or JSON (the HTML page is written by run_pipeline).
std::string render_pipeline(const PipelineOptions& o, const pipeline::Report& report,
                            const std::optional<pipeline::RunCostTable>& costs, std::string_view language) {
  if (o.format == "json") return core::json_text(pipeline_result_json(report, costs, language));
  const size_t width = core::text_width(o.output == "-" ? STDOUT_FILENO : -1);
  std::string out = pipeline::render_text(report, language, width);
  if (costs) out += pipeline::render_run_cost_text(*costs, language, width);
  return core::terminal_text(out, false);  // file names under --data are foreign bytes
}

int run_pipeline(const PipelineOptions& o, const GlobalOptions& global) {
  core::InterruptGuard guard(5.0, bench::remove_all_scratch_dirs);
  if (!o.model.empty() && o.samples_per_s > 0) {
    return failure(kExitUsage, _("give either --model or --samples-per-s, not both"));
  }
  // Texts that go into the output (the price source, the demand's and the
  // stages' details, the notes, the what-ifs, the advice) are messages,
  // rendered by the output in its language (English in JSON unless --lang);
  // errors and progress lines are the reader's. No language switch.
  auto prices = o.price.load();
  if (!prices) return failure(prices.error());
  if (o.epochs <= 0 && o.price.any_given()) {
    return failure(kExitUsage, _("--epochs: the cost of a run needs its length (--epochs E)"));
  }
  const auto catalog = plan::plan_gpus_from_catalog();
  if (auto named = check_price_names(o.price, *prices, catalog); !named) {
    core::log(core::LogLevel::kError, "{}", named.error().to_string());
    return exit_code_for(named.error());
  }
  core::SysRoot root(global.root);
  probe::Context pctx;
  pctx.root = root;
  pctx.data_paths = {o.data_dir, o.dir};
  pctx.deadline = std::chrono::milliseconds(3000);
  // The probes store English and messages (no _()): no language to choose here.
  auto inv = probe::run_probes(pctx, probe::all_probes());

  const pipeline::DemandRequest req = demand_request(o);
  auto demand = pipeline::resolve_demand(req, inv.inventory, catalog);
  if (!demand) {
    const auto code = demand.error().code;
    return failure(demand.error(), code == core::ErrorCode::kNotFound || code == core::ErrorCode::kInvalidArgument
                                       ? kExitUsage
                                       : kExitInternal);
  }

  const pipeline::MeasureOptions mo = measure_options(o, *demand);
  const bool tty = ::isatty(STDERR_FILENO) == 1 && !global.quiet;
  auto step = [tty](const std::string& s) {
    if (tty) {
      std::fprintf(stderr, "\r\033[K%s", core::terminal_line(s).c_str());  // a step may name a file under --data
      std::fflush(stderr);
    } else {
      core::log(core::LogLevel::kInfo, "{}", s);
    }
  };
  auto measured = pipeline::measure_stages(mo, inv.inventory, guard.cancelled(), step);
  if (tty) std::fprintf(stderr, "\r\033[K");
  if (int sig = guard.signal_number(); sig != 0) return 128 + sig;
  if (!measured) {
    return failure(measured.error(),
                   measured.error().code == core::ErrorCode::kNotFound ? kExitNoInput : kExitInternal);
  }
  pipeline::ReportInputs in;
  in.data_dir = o.data_dir;
  in.demand = std::move(*demand);
  in.measured = std::move(*measured);
  if (o.dataset_size > 0) in.dataset_size = o.dataset_size;
  if (inv.inventory.memory.available_bytes) in.available_memory_bytes = *inv.inventory.memory.available_bytes;
  const std::string gpu_name = in.demand.gpu_name;
  const pipeline::Report report = pipeline::build_report(std::move(in));
  const std::optional<pipeline::RunCostTable> costs = run_costs(o, report, catalog, gpu_name, *prices);
  const std::string language = core::i18n::output_language();
  if (o.format == "html") {
    const std::string json = core::json_text(pipeline_result_json(report, costs, language));
    return write_html_page(report::html::PageKind::kPipeline, nlohmann::json::parse(json),
                           "tfrig pipeline --data " + o.data_dir, o.output);
  }
  const std::string out = render_pipeline(o, report, costs, language);
  const int written = write_output(out, o.output);
  std::fflush(stdout);
  return written;
}

}  // namespace

void add_pipeline_command(CLI::App& app, RunState& state) {
  auto o = std::make_shared<PipelineOptions>();
  CLI::App* cmd = app.add_subcommand(
      "pipeline",
      _("Measure your dataset's input pipeline against the GPU's demand: the shortest stave and the predicted GPU utilization"));
  cmd->add_option("--data", o->data_dir, _("The dataset: a folder of image files, or of TFRecord shards (read only)"))
      ->type_name("DIR")
      ->required();
  cmd->add_option("--model", o->model, _("Built-in model whose GPU demand to use (default resnet50)"))
      ->type_name("NAME");
  cmd->add_option("--samples-per-s", o->samples_per_s,
                  _("The GPU's demand in samples/s, measured by you (instead of --model)"))
      ->check(in_range(1e-3, 1e9));
  cmd->add_option("--gpu", o->gpu, _("auto (this machine's GPU) or a catalog name: \"NVIDIA GeForce RTX 4090\""))
      ->default_str("auto");
  cmd->add_option("--gpus", o->gpus, _("GPUs training together (data parallel)"))
      ->check(in_range(1, 4096))
      ->default_str("1");
  cmd->add_option("--precision", o->precision, _("fp32, mixed_float16 or mixed_bfloat16"))
      ->check(one_of({"fp32", "mixed_float16", "mixed_bfloat16"}))
      ->default_str("fp32");
  cmd->add_option("--batch", o->batch, _("Global batch size (default 256 per GPU)"))->check(in_range(1, 1 << 24));
  cmd->add_option("--threads", o->threads, _("Threads for reads and decode (default: every CPU)"))
      ->check(in_range(1, 4096));
  cmd->add_option("--dataset-size", o->dataset_size, _("Samples per epoch (default: the files in --data)"))
      ->check(in_range(1.0, 1e13));
  cmd->add_option("--seconds", o->seconds, _("Time given to each measurement"))
      ->check(in_range(0.05, 600.0))
      ->default_str("2");
  cmd->add_option("--files", o->files, _("Files of the dataset sampled"))
      ->check(in_range(1, 10000000))
      ->default_str("2000");
  cmd->add_option("--dir", o->dir, _("Where the TFRecord what-if packs its sample (default: the current directory)"))
      ->type_name("DIR");
  cmd->add_flag("--no-pack", o->no_pack, _("Skip the TFRecord what-if (no scratch files)"));
  cmd->add_option("--epochs", o->epochs, _("Time and cost of a run of E epochs, as measured and after each what-if"))
      ->check(in_range(0.001, 1e6))
      ->type_name("E");
  add_price_options(cmd, o->price);
  cmd->add_option("--format", o->format, _("Output format"))
      ->check(one_of({"text", "json", "html"}))
      ->default_str("text");
  cmd->add_option("-o,--output", o->output, _("Write to FILE (atomically); '-' for stdout"))->type_name("FILE");
  cmd->callback([o, &state] { state.exit_code = run_pipeline(*o, state.global); });
}

}  // namespace tfrig::cli

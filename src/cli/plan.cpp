// tfrig plan: size a TensorFlow server for a workload (src/plan/, docs/plan.md).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <span>
#include <sstream>

#include <unistd.h>

#include <fmt/format.h>

#include "bench/storage.h"
#include "cli/command.h"
#include "cli/html_output.h"
#include "cli/inventory_source.h"
#include "cli/price_options.h"
#include "cli/validate.h"
#include "core/errno_text.h"
#include "core/try.h"
#include "core/i18n.h"
#include "core/i18n_scope.h"
#include "core/input_file.h"
#include "core/json_text.h"
#include "core/log.h"
#include "core/output.h"
#include "core/terminal_text.h"
#include "core/text.h"
#include "core/text_width.h"
#include "core/units.h"
#include "knowledge/knowledge.h"
#include "pipeline/demand.h"
#include "plan/calibrate.h"
#include "plan/catalog_adapter.h"
#include "plan/cost_report.h"
#include "plan/prices.h"
#include "plan/keras_summary.h"
#include "plan/measurements.h"
#include "plan/model_catalog.h"
#include "plan/plan.h"
#include "plan/render.h"

namespace tfrig::cli {

namespace {

struct PlanOptions {
  std::string model;
  uint64_t params = 0;
  std::string family = "transformer";
  std::string keras_summary;
  uint64_t batch = 32;  // Keras Model.fit's default batch_size
  int image_size = 0;
  int seq_len = 0;
  std::string precision = "fp32";
  std::string optimizer = "adam";
  std::string recompute = "none";
  bool xla = false;
  int accumulation_steps = 1;
  int gpus = 1;
  uint64_t dataset_size = 0;
  std::string sample_bytes;
  std::string data_dir;
  double decode_rate_per_core = 0;
  bool storage_separate = false;
  double price_per_hour = -1;
  std::string rank = "price-performance";
  std::string format = "text";
  bool here = false;
  std::string snapshot;
  bool all = false;
  size_t top = 0;
  bool list_models = false;
  // Time and money of a run (plan/cost.h).
  double epochs = 0;
  uint64_t steps = 0;
  PriceFlags price;  // --prices, --rent, --buy, --kwh, --currency, --exchange-rate (shared with pipeline)
  int runs_per_month = 0;
  std::string deadline;
  std::string pipeline_json;
  std::string calibrate;      // a Keras fit log or pipeline result of the user's run (plan/calibrate.h)
  std::string calibrate_gpu;  // the GPU that run used
  std::string output = "-";
};

// model.summary() of the largest Keras models is a few MB of text.
core::Result<std::string> read_text_file(const std::string& path) { return core::read_input_file(path, 16u << 20); }

core::Result<plan::Workload> build_workload(const PlanOptions& o) {
  const int sources = (!o.model.empty() ? 1 : 0) + (o.params > 0 ? 1 : 0) + (!o.keras_summary.empty() ? 1 : 0);
  if (sources != 1) {
    return core::fail(
        core::ErrorCode::kInvalidArgument, "plan",
        _("give exactly one of --model NAME, --params N, --keras-summary FILE (--list-models lists the catalog)"));
  }
  plan::Workload w;
  if (!o.model.empty()) {
    const plan::CatalogModel* m = plan::find_model(o.model);
    if (m == nullptr)
      return core::fail(core::ErrorCode::kInvalidArgument, "--model",
                        trf("unknown model '{}' (--list-models lists them)", o.model));
    auto built = TFRIG_TRY(plan::catalog_workload(*m, o.image_size, o.seq_len));
    w = std::move(built);
  } else if (o.params > 0) {
    if (o.family == "cnn") {
      // A CNN known only by its size: ResNet-50's layer list at the input
      // size, labelled as such (its activations per image stand in).
      const plan::CatalogModel* ref = plan::find_model("resnet50");
      auto built = TFRIG_TRY(plan::catalog_workload(*ref, o.image_size, 0));
      w = std::move(built);
      w.model_id = "params";
      w.display_name = core::Message(N_("CNN of {} parameters"), o.params);
      w.throughput_key.clear();
      w.notes.push_back(core::Message(N_(
          "activations per image are ResNet-50's (a CNN given by --params only); --keras-summary gives the real layers")));
    } else {
      const int seq = o.seq_len > 0 ? o.seq_len : 1024;
      w.family = plan::Family::kTransformer;
      w.transformer = plan::transformer_from_params(o.params, 50257);
      w.model_id = "params";
      w.seq_len = seq;
      w.display_name = core::Message(N_("transformer of {0} parameters ({1} layers, hidden {2}, {3} heads)"), o.params,
                                     w.transformer->layers, w.transformer->hidden, w.transformer->heads);
      w.notes.push_back(core::Message(N_(
          "layers, hidden size and heads derived from --params (GPT-2 shape, hidden = 64 x layers, vocabulary 50257)")));
    }
    w.params = o.params;
    w.trainable_params = o.params;
    w.params_source = core::verbatim("--params");
  } else {
    auto text = TFRIG_TRY(read_text_file(o.keras_summary));
    // What the file says is wrong is malformed input (65), named by file and
    // line, whatever code the parser gave it (an absurd shape was 64 and
    // named only "line 5").
    auto in_file = [&o](core::Error e) {
      e.where = o.keras_summary + (e.where.empty() ? "" : ": " + e.where);
      if (e.code == core::ErrorCode::kInvalidArgument) e.code = core::ErrorCode::kParse;
      return tl::unexpected(std::move(e));
    };
    auto summary = plan::parse_keras_summary(text);
    if (!summary) return in_file(summary.error());
    auto built = plan::keras_workload(*summary, o.seq_len, std::filesystem::path(o.keras_summary).filename().string());
    if (!built) return in_file(built.error());
    w = std::move(*built);
  }
  const auto precision = plan::parse_precision(o.precision);
  const auto optimizer = plan::parse_optimizer(o.optimizer);
  const auto recompute = plan::parse_recompute(o.recompute);
  if (!precision)
    return core::fail(core::ErrorCode::kInvalidArgument, "--precision",
                      _("expected fp32, mixed_float16 or mixed_bfloat16"));
  if (!optimizer)
    return core::fail(core::ErrorCode::kInvalidArgument, "--optimizer",
                      _("expected sgd, momentum, adam, adamw or adafactor"));
  if (!recompute)
    return core::fail(core::ErrorCode::kInvalidArgument, "--recompute", _("expected none, selective or full"));
  if (o.batch == 0 || o.batch > (uint64_t{1} << 32))
    return core::fail(core::ErrorCode::kInvalidArgument, "--batch", _("expected a batch size from 1 to 2^32"));
  if (o.gpus < 1 || o.gpus > 4096)
    return core::fail(core::ErrorCode::kInvalidArgument, "--gpus", _("expected 1 to 4096 GPUs"));
  w.precision = *precision;
  w.optimizer = *optimizer;
  w.recompute = *recompute;
  w.xla = o.xla;
  w.accumulation_steps = o.accumulation_steps;
  w.batch = o.batch;
  w.gpus = o.gpus;
  return w;
}

// "12h", "90min", "2d", "3600s" or plain hours: the deadline in hours.
std::optional<double> parse_deadline_hours(const std::string& text) {
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || !std::isfinite(v) || v <= 0) return std::nullopt;
  const std::string unit(end);
  if (unit.empty() || unit == "h") return v;
  if (unit == "min" || unit == "m") return v / 60;
  if (unit == "s") return v / 3600;
  if (unit == "d") return v * 24;
  return std::nullopt;
}

// The run and the prices from the options; nullopt run when the user asked
// for no time or cost (neither --epochs nor --steps).
core::Result<std::optional<plan::RunSpec>> build_run(const PlanOptions& o, const plan::DataOptions& data,
                                                     const plan::Workload& w, plan::PriceBook& prices) {
  auto book = TFRIG_TRY(o.price.load());
  prices = std::move(book);
  if (o.epochs <= 0 && o.steps == 0) {
    // --currency alone may name the currency of --price-per-hour (the server's epoch cost).
    const bool only_currency = o.price_per_hour >= 0 && o.price.prices.empty() && o.price.rent.empty() &&
                               o.price.buy.empty() && o.price.kwh < 0 && o.price.exchange_rate.empty();
    const bool asked_cost = (o.price.any_given() && !only_currency) || o.runs_per_month > 0 || !o.deadline.empty() ||
                            !o.pipeline_json.empty();
    if (asked_cost)
      return core::fail(
          core::ErrorCode::kInvalidArgument, "--epochs",
          _("time and cost need the length of the run: --epochs E (with --dataset-size N or --data DIR) or --steps S"));
    return std::optional<plan::RunSpec>{};
  }
  if (o.epochs > 0 && o.steps > 0)
    return core::fail(core::ErrorCode::kInvalidArgument, "--steps", _("give --epochs or --steps, not both"));
  plan::RunSpec run;
  if (o.epochs > 0) {
    if (!std::isfinite(o.epochs) || o.epochs > 1e6)
      return core::fail(core::ErrorCode::kInvalidArgument, "--epochs", _("expected 0 < E <= 1e6"));
    run.epochs = o.epochs;
    run.dataset_samples = data.dataset_samples.value_or(plan::default_dataset_samples(w));
  } else {
    run.steps = o.steps;
    run.batch = w.batch;
  }
  if (o.runs_per_month > 0) {
    if (o.runs_per_month > 100000)
      return core::fail(core::ErrorCode::kInvalidArgument, "--runs-per-month", _("expected 1 to 100000 runs a month"));
    run.runs_per_month = o.runs_per_month;
  }
  if (!o.deadline.empty()) {
    run.deadline_hours = parse_deadline_hours(o.deadline);
    if (!run.deadline_hours)
      return core::fail(core::ErrorCode::kInvalidArgument, "--deadline",
                        trf("expected a duration such as 12h, 90min, 2d, found '{}'", core::printable(o.deadline)));
  }
  if (!o.pipeline_json.empty()) {
    auto text = TFRIG_TRY(read_text_file(o.pipeline_json));
    auto rate = TFRIG_TRY(plan::input_rate_from_pipeline_json(text, o.pipeline_json));
    run.input_rate = rate;
    run.input_rate_source = "tfrig pipeline, " + o.pipeline_json;
  }
  return std::optional<plan::RunSpec>{run};
}

// --calibrate FILE --calibrate-gpu GPU: the model rescaled on the user's run.
core::Result<plan::ThroughputModel> calibrated_model(const PlanOptions& o, const plan::Workload& w,
                                                     std::span<const plan::GpuCandidate> catalog,
                                                     const plan::ThroughputModel& base) {
  if (o.calibrate_gpu.empty()) {
    return core::fail(core::ErrorCode::kInvalidArgument, "--calibrate-gpu",
                      _("--calibrate needs the GPU the run used (--calibrate-gpu NAME)"));
  }
  const plan::GpuCandidate* gpu = pipeline::find_gpu(catalog, o.calibrate_gpu);
  if (gpu == nullptr) {
    return core::fail(core::ErrorCode::kInvalidArgument, "--calibrate-gpu",
                      trf("'{}' is not a GPU of the catalog", core::printable(o.calibrate_gpu)));
  }
  // A Profiler trace may be large (plain JSON up to kMaxTraceBytes); a fit log
  // or pipeline result over 16 MiB is refused by parse_step_file.
  auto bytes = TFRIG_TRY(core::read_input_file(o.calibrate, plan::kMaxTraceBytes));
  auto step = TFRIG_TRY(plan::parse_step_file(bytes, o.calibrate));
  return plan::calibrate_model(base, w, *gpu, step, o.calibrate);
}

void print_models() {
  std::string out = _("Built-in models (--model):") + "\n";
  for (const plan::CatalogModel& m : plan::model_catalog()) {
    const std::string input = m.family != plan::Family::kCnn && m.default_seq_len > 0
                                  // TRANSLATORS: the input of a built-in model: its image side or its sequence length.
                                  ? trf("seq {}", m.default_seq_len)
                                  : trf("{} px", m.default_image_size);
    // TRANSLATORS: one row of --list-models: id, name, parameter count, input; keep the widths.
    out += trf("  {0:<16} {1:<16} {2:>14} params  {3}", m.id, m.display_name, m.published_params, input) + "\n";
  }
  (void)core::write_stdout(out);
}

// --deadline: "" or text that is no duration is exit 64 when read.
CLI::Validator deadline_text() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        if (!parse_deadline_hours(text))
          return trf("expected a duration such as 12h, 90min, 2d, found '{}'", core::printable(text));
        return {};
      },
      "");  // help's type column shows type_name alone
}

// What the data says (--dataset-size, --sample-bytes, --data DIR measured,
// --decode-rate-per-core, --storage-separate, --price-per-hour); --data's
// figures are noted on the workload.
core::Result<plan::DataOptions> data_options(const PlanOptions& o, plan::Workload& w) {
  plan::DataOptions data;
  if (o.dataset_size > 0) data.dataset_samples = o.dataset_size;
  if (!o.sample_bytes.empty()) {
    auto b = core::parse_size(o.sample_bytes);
    if (!b || *b == 0) {
      return core::fail(core::ErrorCode::kInvalidArgument, "--sample-bytes",
                        trf("expected a size such as 110k or 2MB, found '{}'", core::printable(o.sample_bytes)));
    }
    data.sample_bytes = *b;
  }
  if (!o.data_dir.empty()) {
    const bench::DatasetTotals stats = TFRIG_TRY(bench::dataset_totals(o.data_dir));
    if (stats.files > 0) {
      if (!data.dataset_samples) data.dataset_samples = stats.files;
      if (!data.sample_bytes) data.sample_bytes = stats.bytes / stats.files;
      w.notes.push_back(core::Message(
          N_("--data {0}: {1} files, {2} on average (one sample per file assumed; TFRecord shards hold many)"),
          o.data_dir, stats.files, core::format_bytes_decimal(stats.bytes / stats.files)));
    }
  }
  if (o.decode_rate_per_core > 0) {
    data.decode_rate_per_core = o.decode_rate_per_core;
    data.decode_rate_source = "--decode-rate-per-core";
  }
  data.storage_separate = o.storage_separate;
  if (o.price_per_hour >= 0) data.price_per_gpu_hour = o.price_per_hour;
  return data;
}

// The throughput model when it is not the built-in one: refitted on a
// --knowledge folder's measurements, then rescaled by --calibrate (its note
// added to the workload); nullopt for the built-in model.
core::Result<std::optional<plan::ThroughputModel>> throughput_model(const PlanOptions& o,
                                                                    const std::string& knowledge_dir, plan::Workload& w,
                                                                    const std::vector<plan::GpuCandidate>& catalog) {
  std::optional<plan::ThroughputModel> model;
  if (!knowledge_dir.empty()) {
    auto measured = TFRIG_TRY(plan::load_measurements(knowledge_dir));
    model = plan::make_throughput_model(measured, catalog);
  }
  if (!o.calibrate.empty()) {
    model = TFRIG_TRY(calibrated_model(o, w, catalog, model ? *model : plan::builtin_throughput_model()));
    w.notes.push_back(model->user->text);
  }
  return model;
}

// --here or --snapshot: the machine the plan judges.
core::Result<std::optional<report::Report>> plan_machine(const PlanOptions& o, const std::string& root) {
  if (!o.here && o.snapshot.empty()) return std::optional<report::Report>();
  gather::InventorySourceOptions source;
  source.root = root;
  source.snapshot = o.snapshot;
  if (!o.data_dir.empty()) source.data_paths.push_back(o.data_dir);
  auto report = TFRIG_TRY(gather::load_report(source));
  return std::optional<report::Report>(std::move(report));
}

// The plan's JSON, its texts in the output's language (English unless --lang).
nlohmann::json plan_json(const plan::PlanResult& result, const plan::ThroughputModel* use,
                         const std::optional<plan::CostTable>& costs) {
  const std::string language = core::i18n::output_language();
  nlohmann::json j = plan::to_json(result, language);
  j["calibration"] = nullptr;
  if (use != nullptr && use->user) {
    j["calibration"] = use->user->json;
    nlohmann::json& c = j["calibration"];
    c["text"] = core::render(use->user->text, language);
    if (!use->user->warning.empty()) c["warning"] = core::render(use->user->warning, language);
    c["step"]["where"] = core::render(use->user->where, language);
  }
  j["run_cost"] = costs ? nlohmann::json(plan::cost_to_json(*costs, language)) : nlohmann::json(nullptr);
  return j;
}

// The plan as text, markdown or JSON (the HTML page is written by run_plan).
std::string render_plan(const PlanOptions& o, const plan::PlanResult& result, const plan::ThroughputModel* use,
                        const std::optional<plan::CostTable>& costs) {
  plan::RenderOptions ro;
  ro.all_gpus = o.all;
  ro.top = o.top;
  ro.width = core::text_width(o.output == "-" ? STDOUT_FILENO : -1);
  ro.language = core::i18n::output_language();
  if (o.format == "json") return core::json_text(plan_json(result, use, costs));
  // Model, GPU and file names may be foreign bytes (a snapshot of another machine).
  if (o.format == "markdown") return core::terminal_text(plan::render_markdown(result, ro), false);
  std::string out = plan::render_text(result, ro);
  if (costs) out += plan::render_cost_text(*costs, o.top > 0 ? o.top : 10, ro.language, ro.width);
  return core::terminal_text(out, false);  // model and file names may be foreign bytes
}

void run_plan(const PlanOptions& o, RunState& state) {
  if (o.list_models) {
    print_models();
    state.exit_code = kExitOk;
    return;
  }
  // The plan's texts (the workload's name and notes, the plan's notes, the
  // run's cost) are messages, rendered by the output in its language
  // (English in JSON unless --lang); input errors are in the reader's.
  auto w = build_workload(o);
  if (!w) return failure(state, w.error());
  auto data = data_options(o, *w);
  if (!data) return failure(state, data.error());
  const auto rank = plan::parse_rank_by(o.rank);
  auto knowledge = knowledge::load(state.global.knowledge_dir);
  if (!knowledge) return failure(state, knowledge.error());
  const std::vector<plan::GpuCandidate> catalog = plan::plan_gpus_from_catalog(*knowledge);
  auto model = throughput_model(o, state.global.knowledge_dir, *w, catalog);
  if (!model) return failure(state, model.error());
  const plan::ThroughputModel* use = *model ? &**model : nullptr;
  plan::PriceBook prices;
  auto run = build_run(o, *data, *w, prices);
  if (!run) return failure(state, run.error());
  if (auto named = check_price_names(o.price, prices, catalog); !named) return failure(state, named.error());
  data->price_currency = prices.currency;  // --price-per-hour is in the output's currency
  auto machine = plan_machine(o, state.global.root);
  if (!machine) return failure(state, machine.error());

  plan::PlanResult result = plan::make_plan(*w, catalog, rank.value_or(plan::RankBy::kPricePerformance), *data, use);
  std::optional<plan::CostTable> costs;
  if (*run) costs = plan::cost_table(result.gpus, **run, prices);
  if (*machine) {
    core::Message where =
        o.snapshot.empty() ? core::Message(N_("this machine")) : core::Message(N_("snapshot {0}"), o.snapshot);
    result.machine = plan::judge_machine((*machine)->inventory, std::move(where), *w, catalog, *data, use);
  }
  if (o.format == "html") {
    nlohmann::json j = plan_json(result, use, costs);
    state.exit_code = write_html_page(report::html::PageKind::kPlan, std::move(j), "tfrig plan", o.output);
    return;
  }
  const std::string out = render_plan(o, result, use, costs);
  state.exit_code = write_output(out, o.output);
  std::fflush(stdout);
}

// The training job: the model, its batch, precision, optimizer, XLA and GPUs.
void add_workload_options(CLI::App* cmd, PlanOptions& o) {
  cmd->add_option("--model", o.model, _("A built-in model (--list-models)"))->type_name("NAME");
  cmd->add_option("--params", o.params, _("A model known only by its parameter count"))
      ->type_name("N")
      ->check(in_range(uint64_t{1}, uint64_t{100000000000000}));
  cmd->add_option("--family", o.family, _("With --params: cnn or transformer"))->check(one_of({"cnn", "transformer"}));
  cmd->add_option("--keras-summary", o.keras_summary, _("Plan the model whose Keras model.summary() text is in FILE"))
      ->type_name("FILE");
  cmd->add_option("--batch", o.batch, _("Global batch size (default 32, Keras fit's default)"))
      ->check(whole_in(1, 1u << 24));
  cmd->add_option("--image-size", o.image_size, _("Input side in pixels (default: the model's)"))
      ->check(in_range(1, 65536));
  cmd->add_option("--seq-len", o.seq_len, _("Sequence length in tokens (default: the model's)"))
      ->check(in_range(1, 100000000));
  cmd->add_option("--precision", o.precision, _("fp32, mixed_float16 or mixed_bfloat16"));
  cmd->add_option("--optimizer", o.optimizer, _("sgd, momentum, adam, adamw or adafactor"));
  cmd->add_option("--recompute", o.recompute, _("Activation recomputation for transformers: none, selective, full"));
  cmd->add_flag("--xla", o.xla, _("Training runs under XLA (jit_compile): fused kernels keep fewer activations"));
  cmd->add_option("--accumulation-steps", o.accumulation_steps,
                  _("Gradient accumulation: the optimizer updates once every N batches of --batch (one float32 "
                    "accumulator per variable; the update's cost spread over N)"))
      ->check(in_range(1, 1 << 20));
  cmd->add_option("--gpus", o.gpus, _("Use at least this many GPUs (data parallel)"))->check(in_range(1, 100000));
}

// The dataset and what feeds the GPUs (the balanced server and the barrel).
void add_data_options(CLI::App* cmd, PlanOptions& o) {
  cmd->add_option("--dataset-size", o.dataset_size, _("Samples in the dataset (default: ImageNet-1k for images)"))
      ->type_name("N")
      ->check(in_range(uint64_t{1}, uint64_t{1000000000000000}));
  cmd->add_option("--sample-bytes", o.sample_bytes, _("Average bytes per stored sample (e.g. 110k)"))
      ->type_name("SIZE")
      ->check(size_text("110k"));
  cmd->add_option("--data", o.data_dir, _("Measure dataset size and sample bytes from the files under DIR"))
      ->type_name("DIR");
  cmd->add_option("--decode-rate-per-core", o.decode_rate_per_core,
                  _("Samples/s one core decodes and augments (from 'tfrig bench decode')"))
      ->check(finite_in(0.001, 1e9));
  cmd->add_flag("--storage-separate", o.storage_separate, _("The data lives on another machine: size the network"));
  cmd->add_option("--price-per-hour", o.price_per_hour,
                  _("Price per GPU-hour in the output's currency (--currency, default USD), for the cost of an epoch"))
      ->check(finite_in(0, 1e6));
}

// The GPU list, the format, and the machine judged (--here, --snapshot).
void add_output_options(CLI::App* cmd, PlanOptions& o) {
  cmd->add_option("--rank", o.rank, _("Order of the GPU list"))
      ->check(one_of({"price-performance", "speed", "memory"}));
  cmd->add_option("--format", o.format, _("Output format"))->check(one_of({"text", "json", "markdown", "html"}));
  cmd->add_option("-o,--output", o.output, _("Write to FILE (atomically); '-' for stdout"))->type_name("FILE");
  cmd->add_flag("--here", o.here, _("Judge this machine: what fits, the largest batch, the short stave"));
  cmd->add_option("--snapshot", o.snapshot, _("Judge the machine of a snapshot saved by 'tfrig snapshot'"))
      ->type_name("FILE");
  cmd->add_flag("--all", o.all, _("List GPUs that do not fit too"));
  cmd->add_option("--top", o.top, _("Show only the first N GPUs"))->type_name("N")->check(whole_in(1, 100000));
  cmd->add_flag("--list-models", o.list_models, _("List the built-in models and exit"));
}

// A run's time and money.
void add_cost_options(CLI::App* cmd, PlanOptions& o) {
  cmd->add_option("--epochs", o.epochs,
                  _("Time and cost of a run of E epochs over the dataset (--dataset-size or --data)"))
      ->type_name("E")
      ->check(finite_in(0.001, 1e6));
  cmd->add_option("--steps", o.steps, _("Time and cost of a run of S steps of the global batch (instead of --epochs)"))
      ->type_name("S")
      ->check(in_range(uint64_t{1}, uint64_t{1000000000000}));
  add_price_options(cmd, o.price);
  cmd->add_option("--runs-per-month", o.runs_per_month,
                  _("Runs a month: compares instances reserved 24/7 with released after each run"))
      ->type_name("K")
      ->check(in_range(1, 100000));
  cmd->add_option("--deadline", o.deadline, _("The cheapest option that finishes within this time (12h, 90min, 2d)"))
      ->type_name("TIME")
      ->check(deadline_text());
}

// The user's own run and input pipeline: --calibrate and --pipeline.
void add_calibration_options(CLI::App* cmd, PlanOptions& o) {
  cmd->add_option(
         "--calibrate", o.calibrate,
         _("Your run's Keras fit log, TensorFlow Profiler trace (*.trace.json.gz) or 'tfrig pipeline --format json' with --samples-per-s: its "
           "step time rescales every GPU's rate"))
      ->type_name("FILE");
  cmd->add_option("--calibrate-gpu", o.calibrate_gpu, _("The GPU the --calibrate run used (catalog name or id)"))
      ->type_name("GPU");
  cmd->add_option("--pipeline", o.pipeline_json,
                  _("A 'tfrig pipeline --format json' result: its input rate caps every GPU"))
      ->type_name("FILE");
}

}  // namespace

void add_plan_command(CLI::App& app, RunState& state) {
  auto o = std::make_shared<PlanOptions>();
  CLI::App* cmd =
      app.add_subcommand("plan", _("Size a server for a training job: GPU memory, GPUs ranked, the rest balanced"));
  add_workload_options(cmd, *o);
  add_data_options(cmd, *o);
  add_output_options(cmd, *o);
  add_cost_options(cmd, *o);
  add_calibration_options(cmd, *o);
  cmd->callback([o, &state] { run_plan(*o, state); });
}

}  // namespace tfrig::cli

// `tfrig pack SRC -o OUT`: options only; the work is in tfrecord/pack.cpp.
#include <unistd.h>

#include <cstdlib>
#include <memory>
#include <optional>

#include "cli/command.h"
#include "cli/validate.h"
#include "core/escape.h"
#include "core/i18n.h"
#include "core/interrupt.h"
#include "core/log.h"
#include "core/output.h"
#include "core/text_width.h"
#include "core/units.h"
#include "tfrecord/pack.h"
#include "tfrecord/progress.h"
#include "tfrecord/slice.h"

namespace tfrig::cli {

namespace {

struct PackArgs {
  tfrecord::PackOptions options;
  std::string shard_size = "200MB";
  std::string compression = "none";
  std::string on_error = "skip";
  std::string validate = "header";
  bool no_shuffle = false;
  bool progress = false;
  bool no_progress = false;
  std::string shard_index = "0";
  std::optional<uint32_t> num_shards;
};

int exit_code_for(const tfrecord::PackError& e) { return e.output ? kExitCantCreate : core::exit_code_for(e.error); }

int run(PackArgs& a) {
  auto size = core::parse_size(a.shard_size);
  if (!size || *size == 0) {
    return failure(kExitUsage, "--shard-size: " + trf("expected a size such as 200MB, got '{}'", a.shard_size));
  }
  auto comp = tfrecord::parse_compression(a.compression);
  if (!comp) return failure(comp.error(), kExitUsage);
  auto& o = a.options;
  auto slice = tfrecord::resolve_slice(a.shard_index, a.num_shards, [](const char* name) { return std::getenv(name); });
  if (!slice) return failure(slice.error(), kExitUsage);
  o.shard_index = slice->index;
  o.num_slices = slice->count;
  if (slice->origin != "--shard-index") {
    core::log(core::LogLevel::kInfo, "{}", trf("slice {} of {} from {}", slice->index, slice->count, slice->origin));
  }
  o.plan.shard_size_bytes = *size;
  o.plan.shuffle = !a.no_shuffle;
  o.compression = *comp;
  o.on_error = a.on_error == "fail" ? tfrecord::OnError::kFail : tfrecord::OnError::kSkip;
  o.validate = a.validate == "full" ? tfrecord::Validate::kFull : tfrecord::Validate::kHeader;
  o.progress = !a.no_progress && (a.progress || tfrecord::stderr_is_terminal());
  // Ctrl-C / SIGTERM: the workers stop between records and each unfinished
  // shard's temporary file is removed; the shards already renamed into place
  // are complete and --resume keeps them. Grace: a worker may be mid-read of
  // a large file on a slow disk.
  core::InterruptGuard guard(30.0);
  o.cancel = &guard.cancelled();
  auto sum = tfrecord::run_pack(o);
  if (!sum) {
    core::log(core::LogLevel::kError, "pack: {}", core::describe(sum.error().error));
    return exit_code_for(sum.error());
  }
  if (sum->interrupted) {
    core::log(core::LogLevel::kError, "pack: {}",
              trf("interrupted by signal {}: {} shard(s) of {} are complete in {} ({} kept from an earlier run); "
                  "no temporary files are left; run the same command with --resume to finish",
                  guard.signal_number(), sum->shards_written + sum->shards_resumed, sum->shards_in_slice, o.out_dir,
                  sum->shards_resumed));
    return 128 + guard.signal_number();
  }
  (void)core::write_stdout(tfrecord::render_pack_text(*sum, o, core::text_width(STDOUT_FILENO)));
  return kExitOk;
}

}  // namespace

void add_pack_command(CLI::App& app, RunState& state) {
  auto args = std::make_shared<PackArgs>();
  auto* cmd =
      app.add_subcommand("pack", _("Pack a directory of class folders or a CSV/JSONL manifest into TFRecord shards"));
  auto& o = args->options;
  cmd->add_option("SRC", o.src, _("Directory of class sub-folders, or a CSV/JSONL manifest (path,label,extra columns)"))
      ->required();
  cmd->add_option("-o,--output", o.out_dir, _("Output directory for shards, indexes and the label map"))->required();
  cmd->add_option("--prefix", o.prefix, _("Shard name prefix: PREFIX-00000-of-00128.tfrecord"))->capture_default_str();
  cmd->add_option("--shard-size", args->shard_size, _("Target shard size (200MB, 1GiB)"))->capture_default_str();
  cmd->add_option("--seed", o.plan.seed, _("Shuffle seed (same seed, same shards)"))
      ->capture_default_str()
      ->check(whole_number());
  cmd->add_flag("--no-shuffle", args->no_shuffle, _("Keep the sorted listing order"));
  cmd->add_option(
         "--shard-index", args->shard_index,
         _("Pack only slice I of --num-shards (0-based); auto: from SLURM_ARRAY_TASK_ID or JOB_COMPLETION_INDEX"))
      ->type_name("I|auto")
      ->capture_default_str();
  cmd->add_option("--num-shards", args->num_shards, _("Number of slices the work is split into (one per machine)"))
      ->type_name("N")
      ->check(whole_in(1, 1000000));
  cmd->add_option("-j,--jobs", o.jobs, _("Parallel shard writers (0 = all cores)"))
      ->capture_default_str()
      ->check(whole_in(0, 4096));
  cmd->add_option("--compression", args->compression, _("none, gzip or zlib (as tf.io.TFRecordOptions)"))
      ->capture_default_str();
  cmd->add_option("--label-offset", o.dataset.label_offset,
                  _("First label id for named classes (1 for the ImageNet/Inception convention)"))
      ->capture_default_str()
      // Ids are label_offset + class index in an int64 Example feature: a
      // bound far below 2^63 keeps that sum from overflowing.
      ->check(whole_in(0, uint64_t{1} << 40));
  cmd->add_flag("--resume", o.resume, _("Keep complete shards from an earlier run; redo the rest"));
  cmd->add_flag("--overwrite", o.overwrite, _("Rewrite shards that already exist"));
  cmd->add_option("--on-error", args->on_error, _("Unreadable or non-image files: skip (report and count) or fail"))
      ->check(one_of({"skip", "fail"}))
      ->capture_default_str();
  cmd->add_option("--validate", args->validate,
                  _("header: read each image's header (fast); full: also decode every JPEG, skipping (or, with "
                    "--on-error fail, refusing) one that does not decode"))
      ->check(one_of({"header", "full"}))
      ->capture_default_str();
  cmd->add_flag("--progress", args->progress, _("Progress on stderr even when it is not a terminal"));
  cmd->add_flag("--no-progress", args->no_progress, _("No progress line"));
  cmd->callback([args, &state] { state.exit_code = run(*args); });
}

}  // namespace tfrig::cli

// `tfrig verify PATH...`: options only; the work is in tfrecord/verify.cpp.
#include <cstdio>
#include <filesystem>
#include <memory>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/command.h"
#include "core/escape.h"
#include "core/i18n.h"
#include "core/input_file.h"
#include "core/json_text.h"
#include "core/output.h"
#include "core/log.h"
#include "tfrecord/progress.h"
#include "tfrecord/verify.h"

namespace tfrig::cli {

namespace {

struct VerifyArgs {
  std::vector<std::string> paths;
  tfrecord::VerifyOptions options;
  std::string compression = "auto";
  bool json = false;
  bool progress = false;
};

int run(VerifyArgs& a) {
  if (a.compression != "auto") {
    auto c = tfrecord::parse_compression(a.compression);
    if (!c) {
      core::log(core::LogLevel::kError, "{}", c.error().to_string());
      return kExitUsage;
    }
    a.options.compression = *c;
  }
  a.options.progress = a.progress;
  // A path that is missing or not a file (a device never ends) is a usage
  // problem, named before anything is verified; folders are expanded.
  for (const auto& p : a.paths) {
    std::error_code ec;
    if (std::filesystem::is_directory(p, ec)) continue;
    if (auto ok = core::check_input_file(p); !ok) {
      core::log(core::LogLevel::kError, "verify: {}", ok.error().to_string());
      return kExitNoInput;
    }
  }
  auto verdicts = tfrecord::verify_paths(a.paths, a.options);
  const auto set_problems = tfrecord::check_shard_sets(a.paths);
  size_t bad = 0;
  uint64_t records = 0;
  for (const auto& v : verdicts) {
    if (!v.ok) ++bad;
    records += v.records;
  }
  if (a.json) {
    nlohmann::ordered_json j;
    j["files"] = verdicts.size();
    j["files_bad"] = bad;
    j["records"] = records;
    auto arr = nlohmann::ordered_json::array();
    for (const auto& v : verdicts) {
      nlohmann::ordered_json f;
      f["path"] = core::escape_bytes(v.path);
      f["ok"] = v.ok;
      f["compression"] = std::string(tfrecord::compression_name(v.compression));
      f["records"] = v.records;
      f["file_bytes"] = v.file_bytes;
      f["stream_bytes"] = v.stream_bytes;
      f["index"] = v.index;
      if (v.ok) {
        f["problem"] = nullptr;
      } else {
        f["problem"] = nlohmann::ordered_json{
            {"kind", v.problem}, {"record", v.record_index}, {"offset", v.offset}, {"message", core::escape_bytes(v.message)}};
      }
      arr.push_back(std::move(f));
    }
    j["results"] = std::move(arr);
    j["set_problems"] = set_problems;
    (void)core::write_stdout(core::json_text(j));
  } else {
    for (const auto& v : verdicts) std::printf("%s\n", v.to_string().c_str());
    for (const auto& p : set_problems) std::printf("INCOMPLETE %s\n", p.c_str());
    std::printf("%zu file(s), %zu bad, %llu good records%s\n", verdicts.size(), bad,
                static_cast<unsigned long long>(records),
                set_problems.empty() ? "" : fmt::format("; {} incomplete shard set(s)", set_problems.size()).c_str());
  }
  if (verdicts.empty()) return kExitNoInput;
  return bad == 0 && set_problems.empty() ? kExitOk : kExitWarnings;
}

}  // namespace

void add_verify_command(CLI::App& app, RunState& state) {
  auto args = std::make_shared<VerifyArgs>();
  auto* cmd = app.add_subcommand("verify", _("Check every record's framing and CRCs (and index) in TFRecord files"));
  cmd->add_option("PATH", args->paths, _("TFRecord files or directories of shards"))->required();
  cmd->add_option("--compression", args->compression, _("auto (sniff), none, gzip or zlib"))->capture_default_str();
  cmd->add_flag("--examples", args->options.examples, _("Also decode every record as a tf.train.Example"));
  cmd->add_flag("!--no-index", args->options.check_index, _("Ignore <shard>.index.json files"));
  cmd->add_option("-j,--jobs", args->options.jobs, _("Files verified in parallel (0 = all cores)"))->capture_default_str();
  cmd->add_flag("--json", args->json, _("JSON on stdout"));
  cmd->add_flag("--progress", args->progress, _("Progress on stderr"));
  cmd->footer("Exit status: 0 every file is good, 1 at least one is not, 66 no files.");
  cmd->callback([args, &state] { state.exit_code = run(*args); });
}

}  // namespace tfrig::cli

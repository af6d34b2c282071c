// tfrig report -o FILE.html INPUT...: several results of tfrig (a snapshot or
// doctor's JSON, plan, pipeline, bench, fleet or watch JSON, a watch
// recording) on one self-contained page (docs/report.md). Also the
// --format html writer every other command calls.
#include <memory>

#include "cli/command.h"
#include "cli/html_output.h"
#include "cli/inventory_source.h"
#include "core/i18n.h"
#include "core/try.h"
#include "core/input_file.h"
#include "core/json_text.h"
#include "core/log.h"
#include "verdict/report.h"
#include "rules/judge.h"
#include "watch/classify.h"
#include "watch/recording.h"
#include "watch/render.h"

namespace tfrig::cli {

int write_html_page(report::html::PageKind kind, nlohmann::json data, const std::string& label,
                    const std::string& output) {
  return write_output(report::html::render_documents({{kind, std::move(data), label}}), output);
}

namespace {

struct ReportOptions {
  std::vector<std::string> inputs;
  std::string output = "-";
  std::string tf;
};

// A snapshot's JSON is 0.2 MB for 8 GPUs; a week's watch recording ~350 MB.
constexpr size_t kMaxInputBytes = 512u << 20;

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// One input as a page document; a plain snapshot is judged by the rules first.
core::Result<report::html::Document> load_document(const std::string& path, const knowledge::Knowledge& k,
                                                   const rules::FindingsOptions& findings) {
  auto text = TFRIG_TRY(core::read_input_file(path, kMaxInputBytes));
  if (ends_with(path, ".jsonl") || text.rfind("{\"tfrig_watch\"", 0) == 0) {
    auto rec = TFRIG_TRY(watch::parse_recording(text, path));
    rec.info.source = "replay " + path;
    const watch::Analysis a = watch::analyse(rec);
    nlohmann::json j = nlohmann::json::parse(watch::render_json(rec, a, core::i18n::language()).dump());
    j["series"] = report::html::watch_series_json(rec);
    return report::html::Document{report::html::PageKind::kWatch, std::move(j), path, true};
  }
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    // TRANSLATORS: {0} a file, {1} the byte offset where its JSON breaks.
    return core::fail(core::ErrorCode::kParse, trf("{0}: byte {1}", path, e.byte),
                      _("not valid JSON; expected the --format json output of a tfrig command or a watch recording"));
  }
  auto kind = report::html::detect_kind(j);
  if (!kind) {
    return core::fail(
        core::ErrorCode::kParse, path,
        _("a JSON document tfrig report does not know; expected a snapshot or the --format json output of doctor, "
          "plan, pipeline, bench, watch or fleet"));
  }
  if (*kind == report::html::PageKind::kDoctor && !j.contains("findings")) {
    auto r = TFRIG_TRY(report::load_snapshot(path));
    rules::attach_findings(r, k, findings);
    j = nlohmann::json::parse(gather::report_json_text(r));
  }
  return report::html::Document{*kind, std::move(j), path, true};
}

int run(const ReportOptions& o, const GlobalOptions& global) {
  auto knowledge = knowledge::load(global.knowledge_dir);
  if (!knowledge) return failure(knowledge.error());
  rules::FindingsOptions findings{o.tf.empty() ? std::nullopt : std::optional<std::string>(o.tf), ""};
  std::vector<report::html::Document> docs;
  for (const auto& path : o.inputs) {
    auto doc = load_document(path, *knowledge, findings);
    if (!doc) return failure(doc.error());
    docs.push_back(std::move(*doc));
  }
  return write_output(report::html::render_documents(docs), o.output);
}

}  // namespace

void add_report_command(CLI::App& app, RunState& state) {
  auto opts = std::make_shared<ReportOptions>();
  CLI::App* cmd = app.add_subcommand(
      "report", _("Put results of tfrig (snapshot, doctor, plan, pipeline, bench, watch, fleet) on one HTML page"));
  cmd->add_option(
         "INPUT", opts->inputs,
         _("A snapshot, the --format json output of doctor/plan/pipeline/bench/watch/fleet, or a watch recording (.jsonl)"))
      ->required()
      ->type_name("FILE");
  cmd->add_option("-o,--output", opts->output, _("Write the page to FILE.html (atomically); '-' for stdout"))
      ->type_name("FILE");
  cmd->add_option("--tf", opts->tf, _("TensorFlow version the rules judge a plain snapshot against"))
      ->type_name("VERSION");
  cmd->callback([opts, &state] { state.exit_code = run(*opts, state.global); });
}

}  // namespace tfrig::cli

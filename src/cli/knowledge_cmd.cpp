// tfrig knowledge: what the knowledge base holds (files, versions, rows,
// sources), and tfrig rules: the rule table (--markdown writes docs/rules.md).
#include <unistd.h>

#include <cstdio>

#include <fmt/format.h>

#include "cli/command.h"
#include "cli/validate.h"
#include "cli/inventory_source.h"
#include "core/i18n.h"
#include "report/severity_paint.h"
#include "core/json_text.h"
#include "core/log.h"
#include "core/output.h"
#include "core/table.h"
#include "core/terminal_text.h"
#include "core/text_width.h"
#include "explain/signatures.h"
#include "knowledge/knowledge.h"
#include "rules/rule.h"

namespace tfrig::cli {

namespace {

void print(const std::string& s) {
  (void)core::write_stdout(s);
  std::fflush(stdout);
}

}  // namespace

void add_knowledge_command(CLI::App& app, RunState& state) {
  auto format = std::make_shared<std::string>("text");
  auto sources = std::make_shared<bool>(false);
  CLI::App* cmd =
      app.add_subcommand("knowledge", _("Show the knowledge base: files, data versions, row counts, sources"));
  cmd->add_option("--format", *format, _("Output format"))->check(one_of({"text", "json"}));
  cmd->add_flag("--sources", *sources, _("List every source of every file"));
  cmd->callback([format, sources, &state] {
    auto k = knowledge::load(state.global.knowledge_dir);
    if (!k) return failure(state, k.error());
    if (*format == "json") {
      nlohmann::json files = nlohmann::json::array();
      for (const auto& f : k->files()) {
        nlohmann::json src = nlohmann::json::array();
        for (const auto& s : f.sources) src.push_back({{"id", s.id}, {"url", s.url}, {"note", s.note}});
        files.push_back({{"file", f.name},
                         {"schema", f.schema},
                         {"data_version", f.data_version},
                         {"origin", f.origin},
                         {"rows", f.rows},
                         {"sources", src}});
      }
      print(core::json_text(nlohmann::json{{"files", files}}));
      state.exit_code = kExitOk;
      return;
    }
    std::string out = _("tfrig knowledge base") + "\n\n";
    core::Table t({C_("knowledge table", "file"), C_("knowledge table", "data version"), C_("knowledge table", "rows"),
                   C_("knowledge table", "sources"), C_("knowledge table", "origin")},
                  {core::Table::Align::kLeft, core::Table::Align::kLeft, core::Table::Align::kRight,
                   core::Table::Align::kRight, core::Table::Align::kLeft});
    for (const auto& f : k->files()) {
      t.add_row({f.name, f.data_version, std::to_string(f.rows), std::to_string(f.sources.size()),
                 f.origin == "embedded" ? C_("knowledge origin", "embedded") : f.origin});
    }
    out += t.render("  ", core::text_width(STDOUT_FILENO));
    if (const auto* n = k->newest_tf()) {
      out += "\n  " +
             trf("newest TensorFlow known: {} (CUDA {}, cuDNN {}, Python {}-{})", n->tf, n->cuda, n->cudnn,
                 n->python_min(), n->python_max()) +
             "\n";
    }
    out += "  " +
           trnf("GPU catalog: {} GPU with specifications", "GPU catalog: {} GPUs with specifications", k->gpus().size(),
                k->gpus().size()) +
           "\n";
    if (*sources) {
      for (const auto& f : k->files()) {
        out += "\n" + f.name + "\n";
        for (const auto& s : f.sources)
          out += fmt::format("  [{}] {}{}\n", s.id, s.url, s.note.empty() ? "" : "\n      " + s.note.substr(0, 200));
      }
    } else {
      out += "  " + _("(--sources lists where every fact comes from; docs/knowledge.md explains updating)") + "\n";
    }
    print(core::terminal_text(out, false));  // a --knowledge DIR is a file from elsewhere
    state.exit_code = kExitOk;
  });
}

void add_rules_command(CLI::App& app, RunState& state) {
  auto markdown = std::make_shared<bool>(false);
  CLI::App* cmd = app.add_subcommand("rules", _("List every rule doctor runs (--markdown: docs/rules.md)"));
  cmd->add_flag("--markdown", *markdown, _("Print docs/rules.md"));
  cmd->callback([markdown, &state] {
    if (*markdown) {
      // The log.* rules live in the signature table (explain), not in doctor's table.
      auto table = explain::load_signature_table(state.global.knowledge_dir);
      print(rules::rules_markdown() + (table ? explain::log_rules_markdown(*table) : std::string()));
      state.exit_code = kExitOk;
      return;
    }
    core::Table t({"id", C_("rules table", "severity"), C_("rules table", "title")});
    for (const auto& r : rules::all_rules())
      t.add_row({std::string(r.id), report::severity_label(r.severity), _(r.title)});
    print(t.render("", core::text_width(STDOUT_FILENO)) + "\n" +
          trnf("{} rule; `tfrig doctor --explain ID` explains one.",
               "{} rules; `tfrig doctor --explain ID` explains one.", rules::all_rules().size(),
               rules::all_rules().size()) +
          "\n");
    state.exit_code = kExitOk;
  });
}

}  // namespace tfrig::cli

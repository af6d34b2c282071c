// tfrig compat: any subset of --tf --driver --cuda --cudnn --gpu --python
// (the rest from this machine, or left out with --only-given); --matrix
// prints the whole table.
#include <unistd.h>

#include <cstdio>

#include "cli/command.h"
#include "cli/compat_query.h"
#include "cli/validate.h"
#include "cli/inventory_source.h"
#include "core/i18n.h"
#include "core/i18n_scope.h"
#include "core/json_text.h"
#include "core/log.h"
#include "core/output.h"
#include "core/text.h"
#include "core/text_width.h"
#include "knowledge/compat.h"
#include "rules/util.h"

namespace tfrig::cli {

namespace {

struct CompatOptions {
  std::string tf, driver, cuda, cudnn, gpu, python, os;
  bool only_given = false;
  bool matrix = false;
  std::string format = "text";
};

std::optional<std::string> given(const std::string& s) {
  return s.empty() ? std::nullopt : std::optional<std::string>(s);
}

}  // namespace

void fill_compat_from_machine(knowledge::CompatQuery& q, const inventory::Inventory& inv) {
  if (!q.driver) q.driver = inv.driver.version ? inv.driver.version : inv.driver.kernel_module_version;
  if (!q.gpu && !inv.gpus.empty()) {
    const auto& g = inv.gpus.front();
    if (g.compute_capability) {
      q.gpu = "cc:" + *g.compute_capability;
    } else if (g.name) {
      q.gpu = *g.name;
    }
  }
  const auto* env = rules::util::tf_env(inv);
  if (!q.tf && env) q.tf = env->tensorflow->version;
  if (!q.python) {
    if (env && env->python_version) {
      q.python = env->python_version;
    } else {
      for (const auto& e : inv.python.environments) {
        if (e.python_version) {
          q.python = e.python_version;
          break;
        }
      }
    }
  }
  if (!q.cuda) {
    for (const auto& t : inv.cuda.toolkits) {
      if (t.version) {
        q.cuda = t.version;
        break;
      }
    }
  }
  if (!q.cudnn) {
    for (const auto& l : inv.cuda.libraries) {
      if (l.family == "cudnn" && l.version && !core::starts_with(l.found_via, "pip_wheel:")) {
        q.cudnn = l.version;
        break;
      }
    }
  }
  if (!q.os && inv.host.wsl == true) q.os = "wsl";
}

void add_compat_command(CLI::App& app, RunState& state) {
  auto o = std::make_shared<CompatOptions>();
  CLI::App* cmd =
      app.add_subcommand("compat", _("Will TensorFlow X run with this driver, CUDA, cuDNN, GPU and Python?"));
  cmd->add_option("--tf", o->tf, _("TensorFlow version (default: installed, else the newest known)"))
      ->type_name("VERSION");
  cmd->add_option("--driver", o->driver, _("NVIDIA driver version"))
      ->type_name("VERSION")
      ->check(version_text("535.104.05"));
  cmd->add_option("--cuda", o->cuda, _("CUDA toolkit installed on the system"))
      ->type_name("VERSION")
      ->check(version_text("12.2"));
  cmd->add_option("--cudnn", o->cudnn, _("cuDNN installed on the system"))
      ->type_name("VERSION")
      ->check(version_text("8.9"));
  cmd->add_option("--gpu", o->gpu, _("GPU name, PCI id, or cc:X.Y"))->type_name("NAME");
  cmd->add_option("--python", o->python, _("Python version"))->type_name("VERSION")->check(version_text("3.11"));
  cmd->add_option("--os", o->os, _("Platform"))->check(one_of({"linux", "wsl", "windows", "macos"}));
  cmd->add_flag("--only-given", o->only_given, _("Do not fill missing parts from this machine"));
  cmd->add_flag("--matrix", o->matrix, _("Print the whole compatibility table"));
  cmd->add_option("--format", o->format, _("Output format"))->check(one_of({"text", "json"}));
  cmd->callback([o, &state] {
    auto k = knowledge::load(state.global.knowledge_dir);
    if (!k) return failure(state, k.error());
    if (!o->tf.empty()) {
      if (auto ok = known_tf_version(*k, "--tf", o->tf); !ok) return failure(state, ok.error(), kExitUsage);
    }
    std::string out;
    if (o->matrix) {
      out = o->format == "json"
                ? core::json_text(knowledge::compat_matrix_json(*k))
                : knowledge::compat_matrix_text(*k, core::i18n::output_language(), core::text_width(STDOUT_FILENO));
      (void)core::write_stdout(out);
      state.exit_code = kExitOk;
      return;
    }
    knowledge::CompatQuery q{given(o->tf),  given(o->driver), given(o->cuda), given(o->cudnn),
                             given(o->gpu), given(o->python), given(o->os)};
    if (!o->only_given) {
      gather::InventorySourceOptions source;
      source.root = state.global.root;
      auto report = gather::load_report(source);
      if (report) {
        fill_compat_from_machine(q, report->inventory);
      } else {
        core::log(core::LogLevel::kWarn, "{}",
                  trf("could not probe this machine ({}); using only the given parts", core::describe(report.error())));
      }
    }
    // The answer's reasons are messages, rendered in the output's language
    // (English in JSON unless --lang).
    const knowledge::CompatAnswer answer = knowledge::check_compat(*k, q);
    const std::string language = core::i18n::output_language();
    out = o->format == "json" ? core::json_text(knowledge::compat_to_json(answer, language))
                              : knowledge::compat_to_text(answer, language, core::text_width(STDOUT_FILENO));
    (void)core::write_stdout(out);
    std::fflush(stdout);
    state.exit_code = answer.verdict == "no" ? kExitErrors : answer.verdict == "caveats" ? kExitWarnings : kExitOk;
  });
}

}  // namespace tfrig::cli

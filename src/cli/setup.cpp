// tfrig setup: write the installation (install.sh, container files, OS
// tuning, README) for one machine and one TensorFlow version; never runs it.
// The plan is src/setup/plan.cpp, the files src/setup/render.cpp; docs/setup.md.
#include <unistd.h>

#include <cstdio>

#include "cli/command.h"
#include "cli/validate.h"
#include "cli/inventory_source.h"
#include "core/display_width.h"
#include "core/i18n.h"
#include "core/log.h"
#include "core/output.h"
#include "core/terminal_text.h"
#include "core/text_width.h"
#include "knowledge/knowledge.h"
#include "setup/plan.h"
#include "setup/render.h"
#include "setup/write.h"

namespace tfrig::cli {

namespace {

struct SetupCliOptions {
  std::vector<std::string> tf;
  std::string os;
  std::string method = "pip";
  std::string gpu = "auto";
  std::string snapshot;
  std::string output;
  bool force = false;
  setup::MirrorOptions mirrors;
};

void run_setup(const SetupCliOptions& o, RunState& state) {
  auto k = knowledge::load(state.global.knowledge_dir);
  if (!k) return failure(state, k.error());
  gather::InventorySourceOptions source;
  source.root = state.global.root;
  source.snapshot = o.snapshot;
  auto report = gather::load_report(source);
  if (!report && !o.snapshot.empty()) return failure(state, report.error());
  if (!report) {
    core::log(core::LogLevel::kWarn, "{}",
              trf("could not probe this machine ({}); planning from the options only", core::describe(report.error())));
  }
  setup::SetupOptions options;
  options.tf = o.tf;
  options.os = o.os;
  options.method = *setup::parse_method(o.method);
  options.gpu = o.gpu;
  options.mirrors = o.mirrors;
  auto outcome = setup::make_setup_plan(*k, report ? &report->inventory : nullptr, options);
  if (!outcome) return failure(state, outcome.error());  // a bad option 64, bad knowledge data 65
  if (outcome->refusal) {
    // Names from the inventory; wrapped to the width of the terminal stderr is.
    const std::string text = core::terminal_text(
        core::wrap_lines(setup::refusal_text(*outcome->refusal), core::text_width(STDERR_FILENO)), false);
    std::fwrite(text.data(), 1, text.size(), stderr);
    state.exit_code = kExitErrors;
    return;
  }
  const setup::SetupPlan& plan = *outcome->plan;
  std::string text = setup::plan_summary(plan);
  if (o.output.empty()) {
    text += _("(pass -o DIR to write install.sh and the other files)") + "\n";
  } else {
    const auto files = setup::render_all(plan, *k);
    if (auto st = setup::write_outputs(o.output, files, o.force); !st) {
      return failure(state, st.error(), kExitCantCreate);
    }
    text += trnf("Wrote {} file to {}: read README.md, then run {}/install.sh --dry-run",
                 "Wrote {} files to {}: read README.md, then run {}/install.sh --dry-run", files.size(), files.size(),
                 o.output, o.output) +
            "\n";
  }
  // The summary's long lines (sources, steps, notes) wrap to the output's width.
  (void)core::write_stdout(core::wrap_lines(text, core::text_width(STDOUT_FILENO)));
  state.exit_code = kExitOk;
}

}  // namespace

// Declared extern so that the test reaches it (a namespace-scope const is file-local otherwise).
extern const std::vector<std::string> kMirrorChoices;
const std::vector<std::string> kMirrorChoices = {"tuna",
                                                 "cn",
                                                 "ustc",
                                                 "aliyun",
                                                 "aliyun-intranet",
                                                 "tencent",
                                                 "tencent-intranet",
                                                 "huaweicloud",
                                                 "huaweicloud-intranet",
                                                 "auto"};

void add_setup_command(CLI::App& app, RunState& state) {
  auto o = std::make_shared<SetupCliOptions>();
  CLI::App* cmd = app.add_subcommand(
      "setup", _("Write the install script, container files and OS tuning for a TensorFlow version (never runs them)"));
  cmd->add_option(
         "--tf", o->tf,
         _("TensorFlow version(s), comma-separated for A/B containers (default: the newest this machine can run)"))
      ->delimiter(',')
      ->type_name("VERSION[,VERSION]");
  cmd->add_option("--os", o->os,
                  _("Target OS: ubuntu-20.04, ubuntu-22.04, ubuntu-24.04, debian-12 (default: this machine's)"))
      ->type_name("OS");
  cmd->add_option("--method", o->method, _("How TensorFlow is installed"))
      ->check(one_of({"pip", "apt", "container", "ngc"}))
      ->default_str("pip");
  cmd->add_option("--gpu", o->gpu, _("GPU: auto (this machine's), a name or PCI id, or cc:X.Y"))->default_str("auto");
  cmd->add_option("--from-snapshot", o->snapshot, _("Plan for the machine in this snapshot (tfrig snapshot -o)"))
      ->type_name("FILE");
  cmd->add_option("-o,--output", o->output, _("Write the files into DIR (without it, only the plan is printed)"))
      ->type_name("DIR");
  // setup.json's mirrors.presets, their aliases and "auto" (a test checks this list against
  // setup::mirror_choices of the built-in knowledge base; loading it here would slow every command).
  cmd->add_option(
         "--mirror", o->mirrors.preset,
         _("Download from mirrors in mainland China (OS archive, PyPI, conda, CUDA repository, Container Toolkit; "
           "docs/setup.md): tuna (= cn), ustc, aliyun, tencent, huaweicloud, their clouds' -intranet mirrors, or "
           "auto (the machine's cloud, else by its locale and time zone)"))
      ->check(one_of(kMirrorChoices))
      ->type_name("PRESET");
  cmd->add_option("--apt-mirror", o->mirrors.apt, _("The OS archive's mirror (replaces the one named in /etc/apt)"))
      ->type_name("URL");
  cmd->add_option("--pip-index", o->mirrors.pip_index,
                  _("pip's index (pip.conf in the venv; PIP_INDEX_URL in the image)"))
      ->type_name("URL");
  cmd->add_option("--docker-registry-mirror", o->mirrors.docker_registry,
                  _("A Docker Hub mirror for registry-mirrors in /etc/docker/daemon.json (container method)"))
      ->type_name("URL");
  cmd->add_option("--cuda-repo", o->mirrors.cuda_repo,
                  _("NVIDIA's CUDA repository or its mirror (the folder holding ubuntu2204/, ...)"))
      ->type_name("URL");
  cmd->add_option("--container-toolkit-repo", o->mirrors.container_toolkit,
                  _("The NVIDIA Container Toolkit repository or its mirror (the libnvidia-container folder)"))
      ->type_name("URL");
  cmd->add_flag("--force", o->force, _("Write into a DIR that is not empty (tfrig's files are replaced, others kept)"));
  cmd->callback([o, &state] { run_setup(*o, state); });
}

}  // namespace tfrig::cli

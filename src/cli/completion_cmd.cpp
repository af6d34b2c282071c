// tfrig completion bash|zsh|fish, and the hidden `tfrig man -o DIR` the build
// runs to write the manual pages: both read the command definitions (cli_docs).
#include <time.h>

#include <cstdlib>
#include <filesystem>
#include <system_error>

#include "cli/cli_docs.h"
#include "cli/command.h"
#include "cli/validate.h"
#include "core/atomic_file.h"
#include "core/i18n.h"
#include "core/log.h"
#include "core/output.h"
#include "core/text.h"

namespace tfrig::cli {

namespace {

// "December 2026": SOURCE_DATE_EPOCH when set (reproducible builds,
// reproducible-builds.org/specs/source-date-epoch/), else now; always in English.
std::string man_date() {
  time_t t = ::time(nullptr);
  if (const char* epoch = std::getenv("SOURCE_DATE_EPOCH")) {
    if (auto v = core::parse_u64(epoch)) t = static_cast<time_t>(*v);
  }
  static const char* const kMonths[] = {"January", "February", "March",     "April",   "May",      "June",
                                        "July",    "August",   "September", "October", "November", "December"};
  struct tm parts {};
  gmtime_r(&t, &parts);
  return std::string(kMonths[parts.tm_mon]) + " " + std::to_string(parts.tm_year + 1900);
}

}  // namespace

void add_completion_command(CLI::App& app, RunState& state) {
  auto shell = std::make_shared<std::string>();
  CLI::App* cmd = app.add_subcommand("completion", _("Print the shell completion script: bash, zsh or fish"));
  cmd->add_option("shell", *shell, _("bash, zsh or fish"))->required()->check(one_of({"bash", "zsh", "fish"}));
  cmd->callback([&app, &state, shell] {
    const CommandDoc root = describe_cli(app);
    const std::string text = *shell == "bash"  ? bash_completion(root)
                             : *shell == "zsh" ? zsh_completion(root)
                                               : fish_completion(root);
    static_cast<void>(core::write_stdout(text));  // a failed write: main exits 73 with its errno
    state.exit_code = kExitOk;
  });

  auto dir = std::make_shared<std::string>();
  CLI::App* man = app.add_subcommand("man", _("Write the manual pages (tfrig.1, tfrig-COMMAND.1) into DIR"));
  man->group("");  // hidden: the build runs it (CMakeLists.txt), people read `man tfrig`
  man->add_option("-o,--output-dir", *dir, _("Directory to write the pages in"))->required()->type_name("DIR");
  man->callback([&app, &state, dir] {
    std::error_code ec;
    std::filesystem::create_directories(*dir, ec);
    for (const auto& page : man_pages(describe_cli(app), TFRIG_VERSION, man_date())) {
      if (auto w = core::write_file_atomic(*dir + "/" + page.file, page.text); !w) {
        return failure(state, w.error(), kExitCantCreate);
      }
    }
    state.exit_code = kExitOk;
  });
}

}  // namespace tfrig::cli

#include "cli/lang.h"

#include <cstdlib>
#include <string_view>

#include "core/i18n.h"

namespace tfrig::cli {

namespace {

// CLI11 prints option and subcommand group names as given; these two are its defaults.
class TranslatedFormatter : public CLI::Formatter {
 public:
  std::string make_group(std::string group, bool is_positional, std::vector<const CLI::Option*> opts) const override {
    return CLI::Formatter::make_group(group == "Options" ? _("Options") : group, is_positional, std::move(opts));
  }
  std::string make_subcommands(const CLI::App* app, CLI::AppFormatMode mode) const override {
    std::string out = CLI::Formatter::make_subcommands(app, mode);
    const std::string english = "\nSubcommands:\n";
    if (auto at = out.find(english); at != std::string::npos) out.replace(at, english.size(), "\n" + _("Subcommands") + ":\n");
    return out;
  }
};

const CLI::App* chosen_command(const CLI::App& app) {
  const CLI::App* at = &app;
  for (;;) {
    auto subs = at->get_subcommands();
    if (subs.empty()) return at;
    at = subs.front();
  }
}

}  // namespace

std::optional<std::string> lang_flag(int argc, const char* const* argv) {
  std::optional<std::string> found;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg(argv[i]);
    if (arg == "--") break;
    if (arg == "--lang" && i + 1 < argc) {
      found = argv[++i];
    } else if (arg.substr(0, 7) == "--lang=") {
      found = std::string(arg.substr(7));
    }
  }
  return found;
}

void apply_language(const std::optional<std::string>& flag) {
  core::i18n::set_language(core::i18n::choose_language(flag, [](const char* name) { return std::getenv(name); }));
}

bool writes_machine_output(const CLI::App& app) {
  const CLI::App* cmd = chosen_command(app);
  // snapshot writes the report as JSON; metrics --markdown writes docs/metrics.md
  // (its table of names is for people: it follows the language).
  const std::string name = cmd->get_name();
  if (name == "snapshot") return true;
  if (name == "metrics") {
    const CLI::Option* markdown = cmd->get_option_no_throw("--markdown");
    return markdown != nullptr && markdown->count() > 0;
  }
  if (const CLI::Option* format = cmd->get_option_no_throw("--format"); format != nullptr && format->count() > 0) {
    const std::string value = format->as<std::string>();
    if (value == "json" || value == "prometheus" || value == "csv") return true;
  }
  if (const CLI::Option* json = cmd->get_option_no_throw("--json"); json != nullptr && json->count() > 0) return true;
  return false;
}

void translate_help(CLI::App& app) {
  auto formatter = std::make_shared<TranslatedFormatter>();
  formatter->label("Usage", _("Usage"));
  formatter->label("OPTIONS", _("OPTIONS"));
  formatter->label("SUBCOMMAND", _("SUBCOMMAND"));
  formatter->label("SUBCOMMANDS", _("SUBCOMMANDS"));
  formatter->label("REQUIRED", _("REQUIRED"));
  formatter->label("Positionals", _("Positionals"));
  formatter->label("Needs", _("Needs"));
  formatter->label("Excludes", _("Excludes"));
  app.formatter(formatter);
  app.set_help_flag("-h,--help", _("Print this help message and exit"));
}

}  // namespace tfrig::cli

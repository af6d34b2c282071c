#include "cli/lang.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <regex>
#include <string_view>
#include <vector>

#include "cli/validate.h"
#include "core/display_width.h"
#include "core/i18n.h"
#include "core/text.h"

namespace tfrig::cli {

namespace {

// A heading of the help ("Options:"), with the colon the language uses.
std::string heading(const std::string& label) {
  // TRANSLATORS: a heading of the help ("Usage:", "Options:", "Subcommands:"); Chinese uses the full-width colon.
  const std::string pattern = C_("help heading", "{}:");
  return core::i18n::format_translated(pattern, "{}:", fmt::make_format_args(label));
}

// Translated help texts are wrapped to this many columns; CLI11 does not
// wrap, and English help stays as it always was.
constexpr size_t kHelpWidth = 100;

// CLI11 prints option and subcommand group names as given; these two are its
// defaults. Its two-column layout pads by bytes (std::setw), which puts the
// description of a name with Chinese in it ("INPUT ... 必需") a column to the
// left per character: the layout here pads by display width.
class TranslatedFormatter : public CLI::Formatter {
 public:
  std::string make_group(std::string group, bool is_positional, std::vector<const CLI::Option*> opts) const override {
    const std::string label = group == "Options" ? _("Options") : group;
    std::string out = CLI::Formatter::make_group(label, is_positional, std::move(opts));
    return with_heading(out, label);
  }
  std::string make_subcommands(const CLI::App* app, CLI::AppFormatMode mode) const override {
    std::string out = CLI::Formatter::make_subcommands(app, mode);
    const std::string english = "\nSubcommands:\n";
    if (auto at = out.find(english); at != std::string::npos)
      out.replace(at, english.size(), "\n" + heading(_("Subcommands")) + "\n");
    return out;
  }
  std::string make_usage(const CLI::App* app, std::string name) const override {
    return with_heading(CLI::Formatter::make_usage(app, std::move(name)), get_label("Usage"));
  }
  std::string make_option_opts(const CLI::Option* opt) const override {
    return with_heading(with_heading(without_ranges(CLI::Formatter::make_option_opts(opt)), get_label("Needs")),
                        get_label("Excludes"));
  }
  // CLI::Range adds its English bounds to the type column ("INT:INT in [1 -
  // 65536]"); the type alone is kept there, and a value out of range is
  // refused with a message that gives the bounds.
  static std::string without_ranges(std::string opts) {
    static const std::regex range(R"(:[A-Z]+ in \[[^\]]*\])");
    return std::regex_replace(opts, range, "");
  }
  std::string make_option(const CLI::Option* opt, bool is_positional) const override {
    return two_columns(make_option_name(opt, is_positional) + make_option_opts(opt), make_option_desc(opt));
  }
  std::string make_subcommand(const CLI::App* sub) const override {
    return two_columns(sub->get_display_name(true), sub->get_description());
  }

 private:
  // CLI11 writes "LABEL:" first; the language's own colon instead.
  static std::string with_heading(std::string text, const std::string& label) {
    const std::string english = label + ":";
    const std::string translated = heading(label);
    if (auto at = text.find(english); at != std::string::npos) {
      // A full-width colon takes no space after it.
      const size_t end = at + english.size();
      const bool drop_space = translated != english && end < text.size() && text[end] == ' ';
      text.replace(at, english.size() + (drop_space ? 1 : 0), translated);
    }
    return text;
  }
  // Wrapped to kHelpWidth, or a little narrower where that leaves a last line
  // of a word or two ("使\n用）"): Chinese breaks between any two characters.
  // A quoted command ('doctor --snapshot', `pip install`) stays on one line.
  static std::string wrapped(std::string_view line, const std::string& indent) {
    constexpr std::string_view kNoBreakSpace = "\u00a0";  // one column, and no break there
    std::string text;
    char quote = 0;
    for (char c : line) {
      if (quote == 0 && (c == '\'' || c == '`')) {
        quote = c;
      } else if (c == quote) {
        quote = 0;
      }
      if (c == ' ' && quote != 0) {
        text += kNoBreakSpace;
      } else {
        text += c;
      }
    }
    auto restore = [&](std::string out) {
      for (size_t at = out.find(kNoBreakSpace); at != std::string::npos; at = out.find(kNoBreakSpace, at + 1)) {
        out.replace(at, kNoBreakSpace.size(), " ");
      }
      return out;
    };
    constexpr size_t kShortestLastLine = 12;  // columns: six Chinese characters
    for (size_t width = kHelpWidth; width + 12 >= kHelpWidth; --width) {
      std::string out = core::wrap_display(text, width, indent);
      const size_t last = out.rfind('\n');
      if (last == std::string::npos || core::display_width(out.substr(last + 1)) >= indent.size() + kShortestLastLine) {
        return restore(std::move(out));
      }
    }
    return restore(core::wrap_display(text, kHelpWidth, indent));
  }
  // CLI::detail::format_help, measured in columns: the same bytes for ASCII.
  std::string two_columns(const std::string& name, const std::string& description) const {
    const size_t column = column_width_;
    std::string out = "  " + name;
    const size_t used = core::display_width(out);
    if (used < column) out.append(column - used, ' ');
    if (!description.empty()) {
      if (used >= column) out += "\n" + std::string(column, ' ');
      const std::string indent(column, ' ');
      const bool wrap = core::i18n::language() != "en";
      bool first = true;
      for (auto line : core::split(description, '\n')) {
        if (!first) out += "\n" + indent;
        first = false;
        out += wrap && core::display_width(line) + column > kHelpWidth ? wrapped(line, indent) : std::string(line);
      }
    }
    return out + "\n";
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

// The commands from tfrig down to the one chosen.
std::vector<const CLI::App*> command_chain(const CLI::App& app) {
  std::vector<const CLI::App*> chain{&app};
  while (!chain.back()->get_subcommands().empty()) chain.push_back(chain.back()->get_subcommands().front());
  return chain;
}

// The command line as main received it (translate_help), for the one error
// CLI11 leaves no trace of in its state: an option given last with no value.
std::vector<std::string>& command_line() {
  static std::vector<std::string> args;
  return args;
}

// A value a flag may be given ("--xla=true"), as CLI11 reads flags.
bool flag_value(const std::string& v) {
  static const char* const kWords[] = {"true",   "false",   "on", "off", "yes", "no",
                                       "enable", "disable", "1",  "0",   "+1",  "-1"};
  for (const char* w : kWords) {
    if (v == w) return true;
  }
  return !v.empty() && v.find_first_not_of("+-0123456789") == std::string::npos;
}

// The arguments CLI11 did not take, in the order given (App::remaining).
std::vector<std::string> extras_of(const CLI::App& app) { return app.remaining(true); }

// The words CLI11 did not take: the unknown options among them, else the
// unexpected arguments; nullopt when there are none.
std::optional<core::Message> extras_message(const CLI::App& app) {
  const auto extras = extras_of(app);
  // The options among them are the error ("--formt json": json is the unknown option's value).
  std::vector<std::string> options;
  for (const auto& a : extras) {
    if (a.size() > 1 && a.front() == '-') options.push_back(a);
  }
  const auto& shown = options.empty() ? extras : options;
  std::string list;
  for (const auto& a : shown) list += (list.empty() ? "" : " ") + a;
  if (!options.empty())
    return core::Message::plural(NP_("unknown option: {}", "unknown options: {}"), options.size(), list);
  if (!extras.empty())
    return core::Message::plural(NP_("unexpected argument: {}", "unexpected arguments: {}"), extras.size(), list);
  return std::nullopt;
}

}  // namespace

// By the error's type and what CLI11's state and tfrig's validators say
// (which option, which value, which choices), never by reading CLI11's
// English text back; a form not recognised is CLI11's text, quoted inside a
// translated frame.
core::Message parse_error_text(const CLI::App& app, const CLI::Error& e) {
  auto is = [&e](auto* type) { return dynamic_cast<decltype(type)>(&e) != nullptr; };
  const auto chain = command_chain(app);
  auto given_options = [&chain](auto&& fn) -> std::optional<core::Message> {
    for (const CLI::App* cmd : chain) {
      for (const CLI::Option* opt : cmd->get_options()) {
        if (auto m = fn(*opt)) return m;
      }
    }
    return std::nullopt;
  };
  std::optional<core::Message> found;
  if (is(static_cast<const CLI::RequiredError*>(nullptr))) {
    if (chain.back()->get_require_subcommand_min() > 0 && chain.back()->get_subcommands().empty()) {
      return core::Message(N_("a command is required ('tfrig --help' lists the commands)"));
    }
    found = given_options([](const CLI::Option& opt) -> std::optional<core::Message> {
      if (!opt.get_required() || opt.count() > 0) return std::nullopt;
      if (opt.nonpositional()) return core::Message(N_("the option {} is required"), opt.get_name());
      return core::Message(N_("the argument {} is required"), opt.get_name());
    });
  } else if (is(static_cast<const CLI::ExtrasError*>(nullptr))) {
    if (auto m = extras_message(app)) return *m;
  } else if (is(static_cast<const CLI::ValidationError*>(nullptr))) {
    if (const auto& refused = last_refused_value()) return refused->message;
  } else if (is(static_cast<const CLI::ConversionError*>(nullptr))) {
    found = given_options([](const CLI::Option& opt) -> std::optional<core::Message> {
      if (opt.count() == 0 || !opt.nonpositional()) return std::nullopt;
      for (const auto& v : opt.results()) {
        // A flag given a value it does not take ("--xla=maybe").
        if (opt.get_expected_max() == 0 && !flag_value(v))
          return core::Message(N_("option {} takes no value"), opt.get_name());
      }
      return std::nullopt;
    });
  } else if (is(static_cast<const CLI::ArgumentMismatch*>(nullptr))) {
    // An option that takes a value, last on the command line or followed by another option.
    const auto& args = command_line();
    for (size_t i = 1; i < args.size() && !found; ++i) {
      if (args[i] == "--") break;
      if (args[i].size() < 2 || args[i].front() != '-' || args[i].find('=') != std::string::npos) continue;
      const bool value_follows =
          i + 1 < args.size() && (args[i + 1].empty() || args[i + 1].front() != '-' || core::parse_double(args[i + 1]));
      if (value_follows) continue;
      for (auto it = chain.rbegin(); it != chain.rend() && !found; ++it) {
        const CLI::Option* opt = (*it)->get_option_no_throw(args[i]);
        if (opt != nullptr && opt->get_items_expected_min() > 0)
          found = core::Message(N_("option {} needs a value"), opt->get_name());
      }
    }
  } else if (is(static_cast<const CLI::RequiresError*>(nullptr))) {
    found = given_options([](const CLI::Option& opt) -> std::optional<core::Message> {
      if (opt.count() == 0) return std::nullopt;
      for (const CLI::Option* need : opt.get_needs()) {
        if (need->count() == 0) return core::Message(N_("{0} needs {1} as well"), opt.get_name(), need->get_name());
      }
      return std::nullopt;
    });
  } else if (is(static_cast<const CLI::ExcludesError*>(nullptr))) {
    found = given_options([](const CLI::Option& opt) -> std::optional<core::Message> {
      if (opt.count() == 0) return std::nullopt;
      for (const CLI::Option* other : opt.get_excludes()) {
        if (other->count() > 0)
          return core::Message(N_("{0} cannot be used with {1}"), opt.get_name(), other->get_name());
      }
      return std::nullopt;
    });
  }
  if (found) return *found;
  // TRANSLATORS: a command-line error in CLI11's own English words follows.
  return core::Message(N_("invalid command line: {}"), std::string(e.what()));
}

namespace {

// The command's (or tfrig's global) long option nearest to an unknown one
// ("--formt" -> "--format"), within two edits; empty when none is.
std::string nearest_option(const CLI::App& command, const CLI::App& top, std::string_view unknown) {
  if (unknown.substr(0, 2) != "--") return {};
  const std::string_view name =
      unknown.substr(2, unknown.find('=') == std::string_view::npos ? std::string_view::npos : unknown.find('=') - 2);
  std::string best;
  size_t best_distance = 3;
  for (const CLI::App* app : {&command, &top}) {
    for (const CLI::Option* opt : app->get_options()) {
      for (const auto& candidate : opt->get_lnames()) {
        const size_t d = edit_distance(name, candidate);
        if (d < best_distance) {
          best_distance = d;
          best = "--" + candidate;
        }
      }
    }
  }
  return best;
}

}  // namespace

std::string parse_error_message(const CLI::App& app, const CLI::Error& e) {
  if (core::i18n::language() == "en") return CLI::FailureMessage::simple(&app, e);
  std::string command = "tfrig";
  const CLI::App* chosen = &app;
  while (!chosen->get_subcommands().empty()) {
    chosen = chosen->get_subcommands().front();
    command += " " + chosen->get_name();
  }
  std::string out = "tfrig: " + core::render(parse_error_text(app, e), core::i18n::language()) + "\n";
  // The first unknown option: the nearest real one, as an unknown command gets.
  if (dynamic_cast<const CLI::ExtrasError*>(&e) != nullptr) {
    for (const auto& a : extras_of(app)) {
      if (a.size() < 2 || a.front() != '-') continue;
      if (auto near = nearest_option(*chosen, app, a); !near.empty()) out += trf("Did you mean {}?", near) + "\n";
      break;
    }
  }
  return out + trf("Run '{} --help' for more information.", command) + "\n";
}

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
  // snapshot and import write the report as JSON; metrics --markdown writes docs/metrics.md
  // (its table of names is for people: it follows the language).
  const std::string name = cmd->get_name();
  // import (and import nvidia-smi-xml) writes a snapshot.
  if (name == "snapshot" || name == "import" || name == "nvidia-smi-xml") return true;
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

void translate_help(CLI::App& app, int argc, const char* const* argv) {
  command_line().assign(argv, argv + argc);
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
  // Commands added later inherit it.
  app.failure_message([](const CLI::App* at, const CLI::Error& e) { return parse_error_message(*at, e); });
}

}  // namespace tfrig::cli

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
    if (auto at = out.find(english); at != std::string::npos) out.replace(at, english.size(), "\n" + heading(_("Subcommands")) + "\n");
    return out;
  }
  std::string make_usage(const CLI::App* app, std::string name) const override {
    return with_heading(CLI::Formatter::make_usage(app, std::move(name)), get_label("Usage"));
  }
  std::string make_option_opts(const CLI::Option* opt) const override {
    return with_heading(with_heading(without_ranges(CLI::Formatter::make_option_opts(opt)), get_label("Needs")), get_label("Excludes"));
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

// CLI11's messages are built inside the library in English; the exception
// carries only that text. These read the forms of CLI11 2.1 (Debian 12's
// libcli11-dev, include/CLI/Error.hpp and Validators.hpp) back into their
// parts; a form not recognised is shown whole inside a translated frame.

// text = prefix + X + suffix -> X.
std::optional<std::string> between(std::string_view text, std::string_view prefix, std::string_view suffix) {
  if (text.size() < prefix.size() + suffix.size() || text.substr(0, prefix.size()) != prefix ||
      text.substr(text.size() - suffix.size()) != suffix) {
    return std::nullopt;
  }
  return std::string(text.substr(prefix.size(), text.size() - prefix.size() - suffix.size()));
}

// "a b c" -> {"a", "b", "c"}.
std::vector<std::string> words(std::string_view text) {
  std::vector<std::string> out;
  for (auto w : core::split_ws(text)) out.emplace_back(w);
  return out;
}

// An ExtrasError's arguments in the order given (CLI11 lists them last first).
std::optional<std::vector<std::string>> extra_arguments(std::string_view what) {
  for (std::string_view prefix : {"The following argument was not expected: ", "The following arguments were not expected: "}) {
    if (auto list = between(what, prefix, "")) {
      auto args = words(*list);
      return std::vector<std::string>(args.rbegin(), args.rend());
    }
  }
  return std::nullopt;
}

// A bound as CLI::Range prints it (std::to_string: "0.000000") shown plainly ("0").
std::string plain_number(const std::string& text) {
  auto v = core::parse_double(text);
  if (!v || !std::isfinite(*v)) return text;
  return fmt::format("{}", *v);
}

// A validator's message after "NAME: ".
std::string validation_text(const std::string& name, std::string_view message) {
  // CLI::IsMember: "VALUE not in {a,b,c}".
  if (const size_t at = message.rfind(" not in {"); at != std::string_view::npos && message.back() == '}') {
    const std::string value(message.substr(0, at));
    std::string choices(message.substr(at + 9, message.size() - at - 10));
    for (size_t c = choices.find(','); c != std::string::npos; c = choices.find(',', c + 2)) choices.replace(c, 1, ", ");
    return trf("option {0}: '{1}' is not one of {2}", name, value, choices);
  }
  // CLI::Range: "Value VALUE not in range LO to HI".
  if (auto rest = between(message, "Value ", "")) {
    const size_t in = rest->rfind(" not in range ");
    const size_t to = rest->rfind(" to ");
    if (in != std::string::npos && to != std::string::npos && to > in) {
      const std::string value = rest->substr(0, in);
      const std::string lo = plain_number(rest->substr(in + 14, to - in - 14));
      const std::string hi_text = rest->substr(to + 4);
      const auto hi = core::parse_double(hi_text);
      // CLI::PositiveNumber / NonNegativeNumber: the upper bound is the largest double.
      if (hi && *hi > 1e300) return trf("option {0}: '{1}' is not a number of at least {2}", name, value, lo);
      return trf("option {0}: '{1}' is not a number from {2} to {3}", name, value, lo, plain_number(hi_text));
    }
  }
  return trf("option {0}: {1}", name, message);
}

}  // namespace

std::string parse_error_text(const CLI::Error& e) {
  const std::string what = e.what();
  // By type: an ExtrasError of a command carries the command's name as its get_name().
  auto is = [&e](auto* type) { return dynamic_cast<decltype(type)>(&e) != nullptr; };
  if (is(static_cast<const CLI::RequiredError*>(nullptr))) {
    if (what == "A subcommand is required") return _("a command is required ('tfrig --help' lists the commands)");
    if (auto name = between(what, "", " is required"); name && name->find(' ') == std::string::npos) {
      if (!name->empty() && name->front() == '-') return trf("the option {} is required", *name);
      return trf("the argument {} is required", *name);
    }
  } else if (is(static_cast<const CLI::ExtrasError*>(nullptr))) {
    if (auto extras = extra_arguments(what)) {
      // The options among them are the error ("--formt json": json is the unknown option's value).
      std::vector<std::string> options;
      for (const auto& a : *extras) {
        if (a.size() > 1 && a.front() == '-') options.push_back(a);
      }
      const auto& shown = options.empty() ? *extras : options;
      std::string list;
      for (const auto& a : shown) list += (list.empty() ? "" : " ") + a;
      if (!options.empty()) return trnf("unknown option: {}", "unknown options: {}", options.size(), list);
      return trnf("unexpected argument: {}", "unexpected arguments: {}", extras->size(), list);
    }
  } else if (is(static_cast<const CLI::ConversionError*>(nullptr))) {
    if (auto rest = between(what, "Could not convert: ", "")) {
      if (const size_t eq = rest->find(" = "); eq != std::string::npos) {
        return trf("option {0}: '{1}' is not a value of the type it takes", rest->substr(0, eq), rest->substr(eq + 3));
      }
    }
    if (auto name = between(what, "", ": too many inputs for a flag")) return trf("option {} takes no value", *name);
    if (auto name = between(what, "", ": Should be true/false or a number")) {
      return trf("option {}: expected true, false or a number", *name);
    }
  } else if (is(static_cast<const CLI::ValidationError*>(nullptr))) {
    if (const size_t colon = what.find(": "); colon != std::string::npos) {
      return validation_text(what.substr(0, colon), std::string_view(what).substr(colon + 2));
    }
  } else if (is(static_cast<const CLI::ArgumentMismatch*>(nullptr))) {
    // "--gpus: 1 required INT missing": the option came last with no value.
    if (const size_t colon = what.find(": "); colon != std::string::npos && what.size() > 8 &&
                                              what.compare(what.size() - 8, 8, " missing") == 0) {
      return trf("option {} needs a value", what.substr(0, colon));
    }
  } else if (is(static_cast<const CLI::RequiresError*>(nullptr))) {
    if (const size_t at = what.find(" requires "); at != std::string::npos) {
      return trf("{0} needs {1} as well", what.substr(0, at), what.substr(at + 10));
    }
  } else if (is(static_cast<const CLI::ExcludesError*>(nullptr))) {
    if (const size_t at = what.find(" excludes "); at != std::string::npos) {
      return trf("{0} cannot be used with {1}", what.substr(0, at), what.substr(at + 10));
    }
  }
  // TRANSLATORS: a command-line error in CLI11's own English words follows.
  return trf("invalid command line: {}", what);
}

namespace {

// The command's (or tfrig's global) long option nearest to an unknown one
// ("--formt" -> "--format"), within two edits; empty when none is.
std::string nearest_option(const CLI::App& command, const CLI::App& top, std::string_view unknown) {
  if (unknown.substr(0, 2) != "--") return {};
  const std::string_view name = unknown.substr(2, unknown.find('=') == std::string_view::npos ? std::string_view::npos
                                                                                              : unknown.find('=') - 2);
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
  std::string out = "tfrig: " + parse_error_text(e) + "\n";
  // The first unknown option: the nearest real one, as an unknown command gets.
  if (auto extras = extra_arguments(e.what()); extras && dynamic_cast<const CLI::ExtrasError*>(&e) != nullptr) {
    for (const auto& a : *extras) {
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

bool scopes_output_language(const CLI::App& app) {
  // Each of these builds its output's texts inside a core::i18n::OutputLanguage
  // (or core::i18n::in_output_language) and nothing that goes into the output
  // outside one. A command not listed runs wholly in English: safe, if less kind.
  static const std::vector<std::string> kScoped = {
      "doctor", "snapshot", "import", "nvidia-smi-xml", "compat",  "explain", "knowledge", "fleet",
      "plan",   "pipeline", "bench",  "watch",          "verify",  "inspect", "metrics",
  };
  const std::string name = chosen_command(app)->get_name();
  return std::find(kScoped.begin(), kScoped.end(), name) != kScoped.end();
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
  // Commands added later inherit it.
  app.failure_message([](const CLI::App* at, const CLI::Error& e) { return parse_error_message(*at, e); });
}

}  // namespace tfrig::cli

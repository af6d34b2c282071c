#include "cli/cli_docs.h"

#include <algorithm>
#include <cctype>
#include <functional>
#include <set>
#include <utility>

#include <fmt/format.h>

namespace tfrig::cli {

namespace {

// Option and command names go into scripts unquoted: they come from our own
// definitions, but a name outside this set is left out rather than trusted.
bool plain_word(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
           c == '.';
  });
}

std::string one_line(std::string s) {
  std::replace(s.begin(), s.end(), '\n', ' ');
  std::replace(s.begin(), s.end(), '\t', ' ');
  return s;
}

OptionDoc describe_option(const CLI::Option& o) {
  OptionDoc d;
  for (const auto& s : o.get_snames()) {
    if (plain_word(s)) d.names.push_back("-" + s);
  }
  for (const auto& l : o.get_lnames()) {
    if (plain_word(l)) d.names.push_back("--" + l);
  }
  // A flag (and CLI11's -h) has no type name; an option that takes a value has one.
  d.takes_value = o.get_type_size() != 0 && !o.get_type_name().empty();
  // "TEXT:{text,json}" (a CLI::IsMember check): the type, then the choices.
  std::string type = o.get_type_name();
  if (const size_t brace = type.find(":{"); brace != std::string::npos && type.back() == '}') {
    std::string list = type.substr(brace + 2, type.size() - brace - 3);
    for (size_t start = 0; start <= list.size();) {
      const size_t comma = std::min(list.find(',', start), list.size());
      if (std::string c = list.substr(start, comma - start); plain_word(c)) d.choices.push_back(c);
      start = comma + 1;
    }
    type.erase(brace);
  }
  d.type = type.substr(0, type.find(':'));
  d.help = one_line(o.get_description());
  return d;
}

// Every command under root with its path ("" for root, "/bench/storage").
void walk(const CommandDoc& c, const std::string& path,
          const std::function<void(const CommandDoc&, const std::string&)>& f) {
  f(c, path);
  for (const auto& sub : c.subcommands) walk(sub, path + "/" + sub.name, f);
}

// Options a command takes: its own, then the root's (CLI11's fallthrough
// lets the global options follow any command).
std::vector<OptionDoc> options_at(const CommandDoc& root, const CommandDoc& c, bool is_root) {
  std::vector<OptionDoc> out = c.options;
  if (is_root) return out;
  std::set<std::string> own;
  for (const auto& o : c.options) own.insert(o.names.begin(), o.names.end());
  for (const auto& g : root.options) {
    const bool taken =
        std::any_of(g.names.begin(), g.names.end(), [&](const std::string& n) { return own.count(n) > 0; });
    if (g.names.empty() || taken || g.names.back() == "--version") continue;  // a command's own -h, --help
    out.push_back(g);
  }
  return out;
}

std::string joined(const std::vector<std::string>& words, const std::string& sep = " ") {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : sep) + w;
  return out;
}

// Shell-completion structure shared by bash and zsh: per command path, the
// words that may come next, and per (path, option) what its value is.
struct ShellTable {
  std::vector<std::string> command_paths;                                 // "/doctor", "/bench/storage"
  std::vector<std::pair<std::string, std::vector<std::string>>> next;     // path -> subcommands + options
  std::vector<std::pair<std::string, std::vector<std::string>>> choices;  // "path option" -> choices
  std::vector<std::string> file_values;                                   // "path option" taking a free value
};

ShellTable shell_table(const CommandDoc& root) {
  ShellTable t;
  walk(root, "", [&](const CommandDoc& c, const std::string& path) {
    if (!path.empty()) t.command_paths.push_back(path);
    std::vector<std::string> words;
    for (const auto& sub : c.subcommands) words.push_back(sub.name);
    for (const auto& o : options_at(root, c, path.empty())) {
      for (const auto& n : o.names) {
        words.push_back(n);
        if (!o.takes_value) continue;
        if (!o.choices.empty()) {
          t.choices.emplace_back(path + " " + n, o.choices);
        } else {
          t.file_values.push_back(path + " " + n);
        }
      }
    }
    t.next.emplace_back(path, words);
  });
  return t;
}

std::string case_patterns(const std::vector<std::string>& keys) {
  std::string out;
  for (const auto& k : keys) out += (out.empty() ? "" : "|") + ("\"" + k + "\"");
  return out;
}

// The loop both shells run over the words before the cursor: it follows the
// command path, skipping options and their values.
std::string path_loop(const ShellTable& t, const std::string& first, const std::string& word) {
  return fmt::format("  for ((i = {0}; i < cword; i++)); do\n"
                     "    case \"$path/{1}\" in\n"
                     "      {2}) path=\"$path/{1}\" ;;\n"
                     "    esac\n"
                     "  done\n",
                     first, word, case_patterns(t.command_paths));
}

// fish and zsh descriptions: one line in single quotes.
std::string single_quoted(const std::string& s) {
  std::string out = "'";
  for (char c : one_line(s)) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string fish_quoted(const std::string& s) {
  std::string out = "'";
  for (char c : one_line(s)) {
    if (c == '\\' || c == '\'') out += '\\';
    out += c;
  }
  return out + "'";
}

// roff: a backslash is \e; a line may not begin with a control character.
std::string roff(const std::string& s) {
  std::string out;
  for (char c : one_line(s)) {
    if (c == '\\') {
      out += "\\e";
    } else if (c == '-') {
      out += "\\-";
    } else {
      out += c;
    }
  }
  if (!out.empty() && (out[0] == '.' || out[0] == '\'')) out.insert(0, "\\&");
  return out;
}

std::string man_options(const std::vector<OptionDoc>& options) {
  std::string out;
  for (const auto& o : options) {
    if (o.names.empty()) continue;
    std::vector<std::string> names;
    for (const auto& n : o.names) names.push_back("\\fB" + roff(n) + "\\fR");
    out += ".TP\n" + joined(names, ", ");
    if (o.takes_value) out += " \\fI" + roff(o.type.empty() ? "VALUE" : o.type) + "\\fR";
    out += "\n" + roff(o.help);
    if (!o.choices.empty()) out += " (" + roff(joined(o.choices, ", ")) + ")";
    out += "\n";
  }
  return out;
}

std::string man_synopsis(const std::string& command, const CommandDoc& c) {
  std::string out = ".B " + roff(command) + "\n";
  if (!c.options.empty()) out += "[\\fIOPTIONS\\fR]\n";
  if (!c.subcommands.empty()) out += "\\fICOMMAND\\fR\n";
  for (const auto& a : c.arguments) out += "[\\fI" + roff(a) + "\\fR]\n";
  return out;
}

std::string man_header(const std::string& title, const std::string& version, const std::string& date) {
  std::string upper = title;
  std::transform(upper.begin(), upper.end(), upper.begin(),
                 [](unsigned char ch) { return static_cast<char>(std::toupper(ch)); });
  return fmt::format(".\\\" Generated by `tfrig man` from the command definitions; do not edit.\n"
                     ".TH {} 1 \"{}\" \"tfrig {}\" \"User Commands\"\n",
                     roff(upper), roff(date), roff(version));
}

}  // namespace

CommandDoc describe_cli(const CLI::App& app) {
  CommandDoc d;
  d.name = app.get_name();
  d.help = one_line(app.get_description());
  for (const CLI::Option* o : app.get_options()) {
    if (o->get_group().empty()) continue;  // hidden
    if (o->get_positional() && o->get_lnames().empty() && o->get_snames().empty()) {
      std::string name = o->get_type_name().empty() ? o->get_name() : o->get_type_name();
      name = name.substr(0, name.find(':'));
      if (o->get_expected_max() > 1) name += "...";
      d.arguments.push_back(name);
      continue;
    }
    d.options.push_back(describe_option(*o));
  }
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App* a) { return !a->get_group().empty(); })) {
    if (plain_word(sub->get_name())) d.subcommands.push_back(describe_cli(*sub));
  }
  return d;
}

std::string bash_completion(const CommandDoc& root) {
  const ShellTable t = shell_table(root);
  std::string out =
      "# bash completion for tfrig: generated by `tfrig completion bash` from its command definitions.\n"
      "# Load it with: source <(tfrig completion bash)\n"
      "_tfrig() {\n"
      "  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} cword=$COMP_CWORD path=\"\" i words=\"\"\n";
  out += path_loop(t, "1", "${COMP_WORDS[i]}");
  out += "  case \"$path $prev\" in\n";
  for (const auto& [key, values] : t.choices) {
    out += fmt::format("    \"{}\") words=\"{}\" ;;\n", key, joined(values));
  }
  if (!t.file_values.empty()) {
    out +=
        "    " + case_patterns(t.file_values) +
        ")\n      compopt -o filenames 2>/dev/null\n      mapfile -t COMPREPLY < <(compgen -f -- \"$cur\")\n      return ;;\n";
  }
  out += "    *)\n      case \"$path\" in\n";
  for (const auto& [path, words] : t.next) out += fmt::format("        \"{}\") words=\"{}\" ;;\n", path, joined(words));
  out += "      esac ;;\n  esac\n";
  out += "  mapfile -t COMPREPLY < <(compgen -W \"$words\" -- \"$cur\")\n}\ncomplete -F _tfrig tfrig\n";
  return out;
}

std::string zsh_completion(const CommandDoc& root) {
  const ShellTable t = shell_table(root);
  std::string out = "#compdef tfrig\n"
                    "# zsh completion for tfrig: generated by `tfrig completion zsh` from its command definitions.\n"
                    "# Installed in a directory of $fpath as _tfrig, or loaded with: source <(tfrig completion zsh)\n"
                    "_tfrig() {\n"
                    "  local cword=$CURRENT path=\"\" i prev=${words[CURRENT-1]}\n"
                    "  local -a next\n";
  out += path_loop(t, "2", "${words[i]}");
  out += "  case \"$path $prev\" in\n";
  for (const auto& [key, values] : t.choices)
    out += fmt::format("    \"{}\") compadd -- {}; return ;;\n", key, joined(values));
  if (!t.file_values.empty()) out += "    " + case_patterns(t.file_values) + ") _files; return ;;\n";
  out += "  esac\n  case \"$path\" in\n";
  walk(root, "", [&](const CommandDoc& c, const std::string& path) {
    std::vector<std::string> entries;
    for (const auto& sub : c.subcommands) entries.push_back(single_quoted(sub.name + ":" + sub.help));
    for (const auto& o : options_at(root, c, path.empty())) {
      for (const auto& n : o.names) entries.push_back(single_quoted(n + ":" + o.help));
    }
    out += fmt::format("    \"{}\")\n      next=(\n        {}\n      ) ;;\n", path, joined(entries, "\n        "));
  });
  out += "  esac\n  _describe -t tfrig 'tfrig' next\n}\n";
  // Autoloaded from $fpath the file is the function's body; sourced, it registers itself.
  out += "if [ \"${funcstack[1]}\" = \"_tfrig\" ]; then\n  _tfrig \"$@\"\nelse\n  compdef _tfrig tfrig\nfi\n";
  return out;
}

std::string fish_completion(const CommandDoc& root) {
  std::string out = "# fish completion for tfrig: generated by `tfrig completion fish` from its command definitions.\n"
                    "complete -c tfrig -f\n";
  auto option_line = [](const std::string& condition, const OptionDoc& o) {
    std::string line = "complete -c tfrig";
    if (!condition.empty()) line += " -n " + fish_quoted(condition);
    for (const auto& n : o.names) line += n.rfind("--", 0) == 0 ? " -l " + n.substr(2) : " -s " + n.substr(1);
    if (o.takes_value) line += o.choices.empty() ? " -r -F" : " -x -a " + fish_quoted(joined(o.choices));
    return line + " -d " + fish_quoted(o.help) + "\n";
  };
  for (const auto& g : root.options) {
    if (!g.names.empty()) out += option_line("", g);
  }
  walk(root, "", [&](const CommandDoc& c, const std::string& path) {
    if (!c.subcommands.empty()) {
      std::vector<std::string> names;
      for (const auto& sub : c.subcommands) names.push_back(sub.name);
      const std::string condition = path.empty() ? "__fish_use_subcommand"
                                                 : "__fish_seen_subcommand_from " + c.name +
                                                       "; and not __fish_seen_subcommand_from " + joined(names);
      for (const auto& sub : c.subcommands)
        out += "complete -c tfrig -n " + fish_quoted(condition) + " -a " + sub.name + " -d " + fish_quoted(sub.help) +
               "\n";
    }
    if (path.empty()) return;
    for (const auto& o : c.options) {
      if (!o.names.empty()) out += option_line("__fish_seen_subcommand_from " + c.name, o);
    }
  });
  return out;
}

std::vector<ManPage> man_pages(const CommandDoc& root, const std::string& version, const std::string& date) {
  std::vector<ManPage> pages;
  std::string see_also;
  for (const auto& c : root.subcommands)
    see_also += (see_also.empty() ? "" : ",\n") + ("\\fBtfrig\\-" + roff(c.name) + "\\fR(1)");

  std::string top = man_header("tfrig", version, date);
  top += ".SH NAME\ntfrig \\- " + roff(root.help) + "\n.SH SYNOPSIS\n" + man_synopsis("tfrig", root);
  top += ".SH COMMANDS\n";
  for (const auto& c : root.subcommands) top += ".TP\n\\fB" + roff(c.name) + "\\fR\n" + roff(c.help) + "\n";
  top += ".SH OPTIONS\nThese options are taken by every command.\n" + man_options(root.options);
  top += ".SH EXIT STATUS\n0 nothing found, 1 warnings, 2 errors; 64 a usage error, 65 bad input data, 66 an input "
         "that cannot be read, 73 an output that cannot be written.\n";
  top += ".SH SEE ALSO\n" + see_also + "\n";
  pages.push_back({"tfrig.1", top});

  for (const auto& c : root.subcommands) {
    std::string page = man_header("tfrig-" + c.name, version, date);
    page += ".SH NAME\ntfrig\\-" + roff(c.name) + " \\- " + roff(c.help) + "\n.SH SYNOPSIS\n" +
            man_synopsis("tfrig " + c.name, c);
    page += ".SH DESCRIPTION\n" + roff(c.help) + "\n";
    if (!c.options.empty()) page += ".SH OPTIONS\n" + man_options(c.options);
    if (!c.subcommands.empty()) {
      page += ".SH COMMANDS\n";
      walk(c, "", [&](const CommandDoc& sub, const std::string& path) {
        if (path.empty()) return;
        std::string words = "tfrig " + c.name;
        for (size_t at = 0; at < path.size();) {
          const size_t next = std::min(path.find('/', at + 1), path.size());
          words += " " + path.substr(at + 1, next - at - 1);
          at = next;
        }
        page += ".SS " + roff(words) + "\n" + roff(sub.help) + "\n" + man_options(sub.options);
      });
    }
    page += ".SH SEE ALSO\n\\fBtfrig\\fR(1)\n";
    pages.push_back({"tfrig-" + c.name + ".1", page});
  }
  return pages;
}

}  // namespace tfrig::cli

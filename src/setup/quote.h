// tfrig setup, quoting: the one place where a value (from a snapshot, an
// inventory, an option or the knowledge base) becomes text of a generated
// file. A snapshot is written by a machine we do not control: a GPU name may
// hold a newline, `"""`, `$(...)` or an escape sequence, and must stay a
// value in every file `setup` writes, never become code (docs/security.md).
//
// Each target language has its quoting functions; fill() finds, for every
// @KEY@ of a template, whether it stands in code, in a quoted string or in a
// comment (a small lexer per language), and quotes the value for that place.
// Every function first makes the value one line of printable text (one_line):
// control characters, invalid UTF-8 and the Unicode line and bidi controls are
// written as visible escapes, so no value can end a comment or a line.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tfrig::setup::quote {

// One line of printable text: C0/C1 controls and DEL as \xNN, bytes that are
// not UTF-8 as \xNN, U+2028/U+2029, bidi and BOM characters as \uXXXX.
// A backslash is kept; the result holds no byte below 0x20.
std::string one_line(std::string_view s);
// Text for any "#" comment (shell, Python, YAML, Dockerfile, env, conf): one
// line, and a backslash written \x5c so that no comment ends in one (systemd's
// EnvironmentFile joins a line ending in "\" with the next).
std::string comment(std::string_view s);

// Shell (bash). A word where a word stands: bare when it holds only
// [A-Za-z0-9_@%+=:,./-], else single-quoted with ' as '\'' (never empty: '').
std::string sh_word(std::string_view s);
// The inside of "...": \ " $ ` escaped.
std::string sh_in_double(std::string_view s);
// The inside of '...': ' as '\''.
std::string sh_in_single(std::string_view s);

// Python. A string literal "..." (\ and " escaped).
std::string py_literal(std::string_view s);
// The inside of a "..." or """...""" string (docstrings): \ and " escaped.
std::string py_in_double(std::string_view s);
// The inside of a '...' or '''...''' string: \ and ' escaped.
std::string py_in_single(std::string_view s);
// Where code stands: a decimal integer or None as it is, anything else a literal.
std::string py_code(std::string_view s);

// YAML (compose.yaml). A scalar: plain when it is [A-Za-z0-9-][A-Za-z0-9._/-]*,
// else double-quoted.
std::string yaml_scalar(std::string_view s);
std::string yaml_in_double(std::string_view s);
std::string yaml_in_single(std::string_view s);

// Dockerfile: an instruction's argument (ARG X=@V@, FROM): bare when it is an
// image-reference-like token, else "..." with \ " $ escaped.
std::string dockerfile_value(std::string_view s);

// An env file read by three readers at once: `docker --env-file` (no quoting
// at all: the value is the rest of the line), systemd's EnvironmentFile
// (quotes, backslashes) and a shell (`. ./tfrig.env`). Only a value all three
// read the same way is written: [A-Za-z0-9_.,:/=+@%-]; any other byte becomes
// "_".
std::string env_value(std::string_view s);
// sysctl.d, limits.d, ld.so.conf.d, pip.conf values: one token of
// [A-Za-z0-9_.,:/=+@%~-]; any other byte (a space, "#") becomes "_".
std::string conf_value(std::string_view s);

// JSON: the inside of "..." (\ " and controls escaped).
std::string json_in_string(std::string_view s);

enum class Lang {
  kShell,       // install.sh
  kPython,      // tuning.py
  kYaml,        // compose.yaml
  kDockerfile,  // Dockerfile
  kEnv,         // tfrig.env
  kConf,        // sysctl, limits, ld.so.conf, pip.conf
  kJson,        // daemon.json
};

using Values = std::vector<std::pair<std::string, std::string>>;

// Replaces each @KEY@ of `text` whose KEY is in `values` by the value quoted
// for where it stands in `text` (code, string or comment of `lang`). One pass:
// text a value brings in is never searched for @KEY@ again.
std::string fill(std::string_view text, const Values& values, Lang lang);

}  // namespace tfrig::setup::quote

// A finding: what one rule says about one entity of the machine, with the
// evidence it rests on and the exact fix. The JSON contract (docs/rules.md):
// {rule_id, severity, area, entity, title, message, evidence, fix}. Part of
// the verdict model (verdict/), below rules/; the namespace stayed rules::
// when it moved from rules/ (issue 32), so that its readers did not change.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/message.h"

namespace tfrig::rules {

enum class Severity { kInfo = 0, kWarning = 1, kError = 2 };

std::string_view severity_name(Severity s);  // "info", "warning", "error"
std::optional<Severity> severity_from_name(std::string_view name);

// A text a rule writes: its English (what the JSON's string says) and, when
// it is prose, the message it was made from (core/message.h), rendered in
// the reader's language when shown. A literal (a version, a path, a command)
// has no message and shows as it is.
struct Text {
  std::string english;
  std::optional<core::Message> message;

  Text() = default;
  Text(std::string literal) : english(std::move(literal)) {}                   // NOLINT(google-explicit-constructor)
  Text(const char* literal) : english(literal) {}                              // NOLINT(google-explicit-constructor)
  Text(core::Message m) : english(core::english(m)), message(std::move(m)) {}  // NOLINT(google-explicit-constructor)
  bool empty() const { return english.empty(); }
};

// The text in a language: its message rendered, else the English as it is.
std::string in_language(const std::string& english, const std::optional<core::Message>& message,
                        std::string_view language);
inline std::string in_language(const Text& t, std::string_view language) {
  return in_language(t.english, t.message, language);
}
// The text as an argument of a message: its message, else the literal.
inline core::MessageArg as_message_arg(const Text& t) {
  return t.message ? core::MessageArg(*t.message) : core::MessageArg(t.english);
}
// A stored English and its message as one Text.
inline Text text_of(std::string english, std::optional<core::Message> message) {
  Text t(std::move(english));
  t.message = std::move(message);
  return t;
}

// One fact a finding rests on: what, its value here, and where it came from
// (a file read on this machine, or a knowledge source id). fact and value are
// English (the JSON's); their messages, when prose, render them translated.
struct Evidence {
  std::string fact;
  std::string value;
  std::string source;
  std::optional<core::Message> fact_message = std::nullopt;   // fact == core::english(*fact_message)
  std::optional<core::Message> value_message = std::nullopt;  // value == core::english(*value_message)
  std::optional<core::Message> source_message =
      std::nullopt;  // source == core::english(*source_message) ("log line 12")

  Evidence() = default;
  Evidence(Text fact_text, Text value_text, Text source_text)
      : fact(std::move(fact_text.english)),
        value(std::move(value_text.english)),
        source(std::move(source_text.english)),
        fact_message(std::move(fact_text.message)),
        value_message(std::move(value_text.message)),
        source_message(std::move(source_text.message)) {}
};

struct Finding {
  std::string rule_id;
  Severity severity = Severity::kWarning;
  std::string area;
  std::string entity;  // "host", "gpu0", "nvme0n1", "libcudnn.so.9"
  // English whatever the language (the JSON contract); the messages beside
  // them, when set, render them in the reader's language (report/, fleet).
  std::string title;
  std::string message;
  std::vector<Evidence> evidence;
  std::string fix;  // the command or file edit, exact
  std::vector<std::string> references;
  std::optional<core::Message> title_message = std::nullopt;    // title == core::english(*title_message)
  std::optional<core::Message> message_message = std::nullopt;  // message == core::english(*message_message)
  std::optional<core::Message> fix_message =
      std::nullopt;  // fix == core::english(*fix_message); none for a bare command

  void set_title(Text t) { title = std::move(t.english), title_message = std::move(t.message); }
  void set_message(Text t) { message = std::move(t.english), message_message = std::move(t.message); }
  void set_fix(Text t) { fix = std::move(t.english), fix_message = std::move(t.message); }
};

struct Summary {
  int errors = 0;
  int warnings = 0;
  int infos = 0;
  Severity worst() const { return errors ? Severity::kError : warnings ? Severity::kWarning : Severity::kInfo; }
  int total() const { return errors + warnings + infos; }
};

Summary summarize(const std::vector<Finding>& findings);

}  // namespace tfrig::rules

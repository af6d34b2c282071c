// A message to translate when it is rendered, not when it is built: the
// English pattern (the catalog key) with its arguments kept as typed values.
// A probe stores Message{"{0} RAM, {1} swap", {"15.6 GiB", "2.0 GiB"}}; the
// JSON keeps english(m) as its text, and each renderer asks render(m, its
// language). The lookup names its language, so no process-wide switch and no
// thread flag is needed: any thread may render in any language at any time.
//
// Marking, for xgettext (scripts/i18n.sh): the pattern is written N_("...")
// (or NP_("singular", "plural") for a count), so the pot keeps it:
//   core::Message(N_("{0} RAM, {1} swap"), ram, swap)
//   core::Message::plural(NP_("{0} GPU via {1}", "{0} GPUs via {1}"), n, n, path)
//   core::Message::in_context(NC_("kernel module", "open"))   (C_'s msgctxt)
// A nested Message is an argument translated in the same language ("docker
// yes": the "yes" is Message(N_("yes"))).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace tfrig::core {

struct Message;
struct MessageList;

// One argument: a text shown as it is (a path, a version), an integer, a
// real (formatted by the pattern's field, "{:.2f}"), a message of its own,
// or a list of arguments joined by the language's ", " (MessageArg::list).
class MessageArg {
 public:
  using Value =
      std::variant<std::string, int64_t, double, std::shared_ptr<const Message>, std::shared_ptr<const MessageList>>;

  MessageArg(std::string text) : value_(std::move(text)) {}         // NOLINT(google-explicit-constructor)
  MessageArg(const char* text) : value_(std::string(text)) {}       // NOLINT(google-explicit-constructor)
  MessageArg(std::string_view text) : value_(std::string(text)) {}  // NOLINT(google-explicit-constructor)
  template <class I,
            std::enable_if_t<std::is_integral_v<I> && !std::is_same_v<I, bool> && !std::is_same_v<I, char>, int> = 0>
  MessageArg(I integer) : value_(static_cast<int64_t>(integer)) {}  // NOLINT(google-explicit-constructor)
  MessageArg(double real) : value_(real) {}                         // NOLINT(google-explicit-constructor)
  MessageArg(Message message);                                      // NOLINT(google-explicit-constructor)
  static MessageArg list(std::vector<MessageArg> items);

  const Value& value() const { return value_; }
  const Message* message() const;
  const MessageList* items() const;
  bool operator==(const MessageArg& other) const;

 private:
  Value value_;
};

struct MessageList {
  std::vector<MessageArg> items;
};

struct Message {
  std::string context;    // gettext's msgctxt; empty for none
  std::string id;         // the English pattern, the catalog key (for a plural: the singular)
  std::string plural_id;  // the English plural pattern; empty when the message has no count
  uint64_t n = 0;         // the count that picks the plural form
  std::vector<MessageArg> args;

  Message() = default;
  explicit Message(std::string pattern) : id(std::move(pattern)) {}
  template <class A0, class... Args>
  Message(std::string pattern, A0&& a0, Args&&... a)
      : id(std::move(pattern)), args{MessageArg(std::forward<A0>(a0)), MessageArg(std::forward<Args>(a))...} {}

  // A count: the English is singular when n is 1; a catalog picks its own form.
  template <class... Args>
  static Message plural(std::pair<const char*, const char*> patterns, uint64_t count, Args&&... a) {
    Message m(patterns.first, std::forward<Args>(a)...);
    m.plural_id = patterns.second;
    m.n = count;
    return m;
  }
  static Message in_context(std::pair<const char*, const char*> context_and_pattern) {
    Message m(context_and_pattern.second);
    m.context = context_and_pattern.first;
    return m;
  }

  bool empty() const { return id.empty(); }
  bool operator==(const Message& other) const;
};

// A text shown as it is in every language (a name, a line of code, an
// address, a value read from a file): its braces are never format fields.
inline Message verbatim(std::string text) { return Message("{}", std::move(text)); }

// The message in English: the pattern (singular or plural by n) formatted.
std::string english(const Message& m);
// The message in a language ("zh_CN", "en"): its catalog's translation of the
// pattern, formatted; English where the catalog lacks it or its fields do not
// fit. Never throws: a pattern that cannot be formatted comes out as it is.
std::string render(const Message& m, std::string_view language);

// Whether every pattern in m (nested ones too) is a message of tfrig's
// catalogs: a message read from a file is used only then (its patterns are
// then ours, not a stranger's format fields).
bool known_message(const Message& m);

// JSON: {"id": ..., "args": [...]} and, when set, "context", "plural", "n".
// An argument is a string, an integer, a real, a message object or a list
// ({"list": [...]}).
nlohmann::json message_to_json(const Message& m);
// How deep messages nest in a file read back: the importer joins a probe's
// notes as a chain of "{0}; {1}" (one level a note: an 8-GPU bug report's
// driver notes nest 12 deep), while a stranger's file cannot make the reader,
// the check or the renderer recurse without bound.
inline constexpr int kMaxMessageDepth = 64;
// nullopt for anything else than that shape (nested at most kMaxMessageDepth).
std::optional<Message> message_from_json(const nlohmann::json& j);

}  // namespace tfrig::core

namespace tfrig {

// Marks a singular and plural pattern for extraction (Message::plural).
constexpr std::pair<const char*, const char*> NP_(const char* singular, const char* plural) {
  return {singular, plural};
}
// Marks a pattern in a context (gettext's msgctxt) for extraction (Message::in_context).
constexpr std::pair<const char*, const char*> NC_(const char* context, const char* pattern) {
  return {context, pattern};
}

}  // namespace tfrig

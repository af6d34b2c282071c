#include "core/i18n.h"

#include <atomic>
#include <cstring>
#include <vector>

#include <fmt/args.h>
#include <nlohmann/json.hpp>

#include "core/i18n_embedded.h"
#include "core/message.h"

namespace tfrig::core::i18n {

namespace {

// .mo header (GNU gettext manual, "The Format of GNU MO Files"): seven 32-bit
// words: magic, revision, N, offset of the originals table, offset of the
// translations table, hash table size and offset. Each table holds N
// (length, offset) pairs; strings are NUL-terminated after `length` bytes.
constexpr uint32_t kMagic = 0x950412de;
constexpr uint32_t kMagicSwapped = 0xde120495;

uint32_t swap32(uint32_t v) { return (v >> 24) | ((v >> 8) & 0xff00) | ((v << 8) & 0xff0000) | (v << 24); }

struct Reader {
  std::string_view mo;
  bool swapped = false;
  std::optional<uint32_t> word(size_t offset) const {
    if (offset > mo.size() || mo.size() - offset < 4) return std::nullopt;
    uint32_t v = 0;
    std::memcpy(&v, mo.data() + offset, 4);
    return swapped ? swap32(v) : v;
  }
  // The string of table entry i, or an error naming the entry's offset.
  Result<std::string_view> string(uint32_t table, uint32_t i) const {
    const size_t at = static_cast<size_t>(table) + static_cast<size_t>(i) * 8;
    auto length = word(at);
    auto offset = word(at + 4);
    if (!length || !offset)
      return fail(ErrorCode::kParse, "offset " + std::to_string(at), "string table entry past the end of the catalog");
    if (*offset > mo.size() || mo.size() - *offset <= *length) {
      return fail(ErrorCode::kParse, "offset " + std::to_string(at),
                  "string of " + std::to_string(*length) + " bytes at " + std::to_string(*offset) +
                      " is past the end of the catalog");
    }
    return mo.substr(*offset, *length);
  }
};

// "Plural-Forms: nplurals=1; plural=0;" inside the header entry.
void read_plural_forms(std::string_view header, std::string& plural, int& nplurals) {
  const auto line_at = header.find("Plural-Forms:");
  if (line_at == std::string_view::npos) return;
  std::string_view line = header.substr(line_at);
  line = line.substr(0, line.find('\n'));
  if (auto n = line.find("nplurals="); n != std::string_view::npos) {
    int v = 0;
    for (size_t i = n + 9; i < line.size() && line[i] >= '0' && line[i] <= '9'; ++i) v = v * 10 + (line[i] - '0');
    if (v >= 1 && v <= 6) nplurals = v;
  }
  if (auto p = line.find("plural="); p != std::string_view::npos) {
    std::string_view expr = line.substr(p + 7);
    expr = expr.substr(0, expr.find(';'));
    if (eval_plural(expr, 1)) plural = std::string(expr);
  }
}

// A recursive-descent evaluator for the C subset Plural-Forms uses:
// ?:, ||, &&, == != < > <= >=, + - * / %, !, parentheses, n and numbers.
class PluralEval {
 public:
  PluralEval(std::string_view s, uint64_t n) : s_(s), n_(n) {}
  std::optional<uint64_t> run() {
    auto v = ternary();
    skip();
    if (!ok_ || pos_ != s_.size()) return std::nullopt;
    return v;
  }

 private:
  std::string_view s_;
  uint64_t n_;
  size_t pos_ = 0;
  bool ok_ = true;
  int depth_ = 0;

  void skip() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\t')) ++pos_;
  }
  bool eat(std::string_view tok) {
    skip();
    if (s_.substr(pos_, tok.size()) != tok) return false;
    // "<" must not swallow the first half of "<=", "!" of "!=".
    if (tok.size() == 1 && pos_ + 1 < s_.size() && s_[pos_ + 1] == '=' &&
        (tok == "<" || tok == ">" || tok == "!" || tok == "="))
      return false;
    pos_ += tok.size();
    return true;
  }
  uint64_t ternary() {
    if (++depth_ > 64) {  // a hostile catalog cannot recurse without bound
      ok_ = false;
      return 0;
    }
    uint64_t c = logical_or();
    if (eat("?")) {
      uint64_t a = ternary();
      if (!eat(":")) ok_ = false;
      uint64_t b = ternary();
      c = c ? a : b;
    }
    --depth_;
    return c;
  }
  uint64_t logical_or() {
    uint64_t v = logical_and();
    while (eat("||")) v = (logical_and() || v) ? 1 : 0;
    return v;
  }
  uint64_t logical_and() {
    uint64_t v = equality();
    while (eat("&&")) v = (equality() && v) ? 1 : 0;
    return v;
  }
  uint64_t equality() {
    uint64_t v = relation();
    for (;;) {
      if (eat("==")) {
        v = v == relation();
      } else if (eat("!=")) {
        v = v != relation();
      } else {
        return v;
      }
    }
  }
  uint64_t relation() {
    uint64_t v = additive();
    for (;;) {
      if (eat("<=")) {
        v = v <= additive();
      } else if (eat(">=")) {
        v = v >= additive();
      } else if (eat("<")) {
        v = v < additive();
      } else if (eat(">")) {
        v = v > additive();
      } else {
        return v;
      }
    }
  }
  uint64_t additive() {
    uint64_t v = multiplicative();
    for (;;) {
      if (eat("+")) {
        v += multiplicative();
      } else if (eat("-")) {
        v -= multiplicative();
      } else {
        return v;
      }
    }
  }
  uint64_t multiplicative() {
    uint64_t v = unary();
    for (;;) {
      if (eat("*")) {
        v *= unary();
      } else if (eat("/")) {
        const uint64_t d = unary();
        v = d ? v / d : 0;
      } else if (eat("%")) {
        const uint64_t d = unary();
        v = d ? v % d : 0;
      } else {
        return v;
      }
    }
  }
  uint64_t unary() {
    if (eat("!")) return unary() ? 0 : 1;
    return primary();
  }
  uint64_t primary() {
    skip();
    if (eat("(")) {
      uint64_t v = ternary();
      if (!eat(")")) ok_ = false;
      return v;
    }
    if (pos_ < s_.size() && s_[pos_] == 'n') {
      ++pos_;
      return n_;
    }
    if (pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9') {
      uint64_t v = 0;
      while (pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9')
        v = v * 10 + static_cast<uint64_t>(s_[pos_++] - '0');
      return v;
    }
    ok_ = false;
    return 0;
  }
};

// The language in use: one pointer, switched atomically. A probe left past
// its deadline keeps running on a detached thread and may translate while
// the language is switched (set_language; ScopedLanguage in tests); it reads
// either the old language or the new one, never half of a switch.
struct Active {
  std::string language = "en";
  const Catalog* catalog = nullptr;
};

const Active& english() {
  static const Active a;
  return a;
}

std::atomic<const Active*>& active_slot() {
  static std::atomic<const Active*> slot{&english()};
  return slot;
}

const Active& active() { return *active_slot().load(std::memory_order_acquire); }

const Catalog* catalog_here() { return active().catalog; }

std::vector<std::pair<std::string, Catalog>>& loaded() {
  static std::vector<std::pair<std::string, Catalog>> catalogs = [] {
    std::vector<std::pair<std::string, Catalog>> out;
    for (size_t i = 0; i < embedded::kCatalogCount; ++i) {
      // Built by msgfmt --check at build time; a catalog that does not parse
      // here is a build defect, and English is the safe answer.
      if (auto c = Catalog::parse(embedded::kCatalogs[i].mo))
        out.emplace_back(std::string(embedded::kCatalogs[i].language), std::move(*c));
    }
    return out;
  }();
  return catalogs;
}

}  // namespace

std::optional<uint64_t> eval_plural(std::string_view expression, uint64_t n) { return PluralEval(expression, n).run(); }

// The catalog keeps views into the image, which must outlive it: the embedded
// catalogs are static arrays (a test keeps its image in a variable).
Result<Catalog> Catalog::parse(std::string_view mo) {
  Reader r{mo};
  auto magic = r.word(0);
  if (!magic)
    return fail(ErrorCode::kParse, "offset 0",
                "a .mo catalog starts with a 28-byte header; got " + std::to_string(mo.size()) + " bytes");
  if (*magic == kMagicSwapped) {
    r.swapped = true;
  } else if (*magic != kMagic) {
    return fail(ErrorCode::kParse, "offset 0", "not a .mo catalog (expected the magic number 0x950412de)");
  }
  const auto revision = r.word(4);
  const auto count = r.word(8);
  const auto originals = r.word(12);
  const auto translations = r.word(16);
  if (!revision || !count || !originals || !translations || r.word(24) == std::nullopt) {
    return fail(ErrorCode::kParse, "offset 4", "the .mo header is cut short");
  }
  if ((*revision >> 16) != 0)
    return fail(ErrorCode::kParse, "offset 4", "unsupported .mo major revision " + std::to_string(*revision >> 16));
  Catalog c;
  for (uint32_t i = 0; i < *count; ++i) {
    auto id = r.string(*originals, i);
    if (!id) return tl::unexpected(id.error());
    auto text = r.string(*translations, i);
    if (!text) return tl::unexpected(text.error());
    std::string_view key = *id;
    if (key.empty()) {
      read_plural_forms(*text, c.plural_, c.nplurals_);
      continue;
    }
    key = key.substr(0, key.find('\0'));  // a plural entry's id is "singular\0plural"
    c.messages_[key] = *text;
  }
  return c;
}

std::optional<std::string_view> Catalog::find(std::string_view msgid) const {
  auto it = messages_.find(msgid);
  if (it == messages_.end()) return std::nullopt;
  std::string_view text = it->second.substr(0, it->second.find('\0'));
  if (text.empty()) return std::nullopt;
  return text;
}

std::optional<std::string_view> Catalog::find_plural(std::string_view singular, uint64_t n) const {
  auto it = messages_.find(singular);
  if (it == messages_.end()) return std::nullopt;
  uint64_t form = eval_plural(plural_, n).value_or(0);
  if (form >= static_cast<uint64_t>(nplurals_)) form = 0;
  std::string_view forms = it->second;
  for (uint64_t i = 0; i < form; ++i) {
    const auto nul = forms.find('\0');
    if (nul == std::string_view::npos) return std::nullopt;
    forms = forms.substr(nul + 1);
  }
  std::string_view text = forms.substr(0, forms.find('\0'));
  if (text.empty()) return std::nullopt;
  return text;
}

std::optional<std::string> catalog_language(std::string_view locale, bool require_utf8) {
  std::string_view name = locale.substr(0, locale.find('@'));
  std::string_view codeset;
  if (auto dot = name.find('.'); dot != std::string_view::npos) {
    codeset = name.substr(dot + 1);
    name = name.substr(0, dot);
  }
  if (name.empty()) return std::nullopt;
  if (name == "C" || name == "POSIX" || name == "en" || name.substr(0, 3) == "en_") return std::string("en");
  // Simplified Chinese: the mainland and Singapore. zh_TW / zh_HK use
  // traditional characters, which this catalog is not.
  if (name == "zh" || name == "zh_CN" || name == "zh_SG") {
    if (require_utf8 && !codeset.empty()) {
      std::string lower;
      for (char ch : codeset) lower += static_cast<char>(ch >= 'A' && ch <= 'Z' ? ch - 'A' + 'a' : ch);
      if (lower != "utf-8" && lower != "utf8") return std::nullopt;
    }
    return std::string("zh_CN");
  }
  return std::nullopt;
}

std::string choose_language(const std::optional<std::string>& flag,
                            const std::function<const char*(const char*)>& getenv) {
  if (flag) return catalog_language(*flag, false).value_or("en");
  // GNU gettext's order: LANGUAGE (a priority list), then LC_ALL, LC_MESSAGES, LANG.
  if (const char* list = getenv("LANGUAGE"); list != nullptr && list[0] != '\0') {
    std::string_view rest(list);
    while (!rest.empty()) {
      const auto colon = rest.find(':');
      if (auto lang = catalog_language(rest.substr(0, colon))) return *lang;
      if (colon == std::string_view::npos) break;
      rest = rest.substr(colon + 1);
    }
  }
  for (const char* var : {"LC_ALL", "LC_MESSAGES", "LANG"}) {
    const char* value = getenv(var);
    if (value == nullptr || value[0] == '\0') continue;  // empty: the next one decides (POSIX)
    return catalog_language(value).value_or("en");
  }
  return "en";
}

std::vector<std::string> embedded_languages() {
  std::vector<std::string> out;
  for (const auto& [lang, catalog] : loaded()) out.push_back(lang);
  return out;
}

const Catalog* embedded_catalog(std::string_view language) {
  for (const auto& [lang, catalog] : loaded()) {
    if (lang == language) return &catalog;
  }
  return nullptr;
}

void set_language(std::string_view language) {
  // One Active per embedded language, made once and never freed: a reader
  // holding the old one stays valid.
  static const std::vector<Active> per_language = [] {
    std::vector<Active> out;
    for (const auto& [lang, catalog] : loaded()) out.push_back(Active{lang, &catalog});
    return out;
  }();
  const Active* chosen = &english();
  for (const auto& a : per_language) {
    if (a.language == language) chosen = &a;
  }
  active_slot().store(chosen, std::memory_order_release);
}

std::string_view language() { return active().language; }

std::string_view translate(std::string_view msgid) {
  const Catalog* c = catalog_here();
  if (c == nullptr) return msgid;
  return c->find(msgid).value_or(msgid);
}

std::string_view translate_in_context(std::string_view context, std::string_view msgid) {
  const Catalog* c = catalog_here();
  if (c == nullptr) return msgid;
  std::string key(context);
  key += '\x04';
  key += msgid;
  return c->find(key).value_or(msgid);
}

std::string_view translate_plural(std::string_view singular, std::string_view plural, uint64_t n) {
  if (const Catalog* c = catalog_here()) {
    if (auto t = c->find_plural(singular, n)) return *t;
  }
  return n == 1 ? singular : plural;
}

std::string format_translated(std::string_view translated, std::string_view english, fmt::format_args args) {
  try {
    return fmt::vformat(translated, args);
  } catch (const fmt::format_error&) {
    return fmt::vformat(english, args);  // checked at compile time by trf's format_string
  }
}

}  // namespace tfrig::core::i18n

// core::Message (core/message.h): rendered by the catalog of a named language.

namespace tfrig::core {

MessageArg::MessageArg(Message message) : value_(std::make_shared<const Message>(std::move(message))) {}

MessageArg MessageArg::list(std::vector<MessageArg> items) {
  MessageArg a(std::string{});
  a.value_ = std::make_shared<const MessageList>(MessageList{std::move(items)});
  return a;
}

const MessageList* MessageArg::items() const {
  const auto* p = std::get_if<std::shared_ptr<const MessageList>>(&value_);
  return p != nullptr ? p->get() : nullptr;
}

const Message* MessageArg::message() const {
  const auto* p = std::get_if<std::shared_ptr<const Message>>(&value_);
  return p != nullptr ? p->get() : nullptr;
}

bool MessageArg::operator==(const MessageArg& other) const {
  const Message* a = message();
  const Message* b = other.message();
  if (a != nullptr || b != nullptr) return a != nullptr && b != nullptr && *a == *b;
  const MessageList* la = items();
  const MessageList* lb = other.items();
  if (la != nullptr || lb != nullptr) return la != nullptr && lb != nullptr && la->items == lb->items;
  return value_ == other.value_;
}

bool Message::operator==(const Message& other) const {
  return context == other.context && id == other.id && plural_id == other.plural_id && n == other.n &&
         args == other.args;
}

namespace {

// The pattern in English: the plural one when there is a count other than 1.
std::string_view message_english_pattern(const Message& m) {
  return m.plural_id.empty() || m.n == 1 ? m.id : m.plural_id;
}

// The catalog's pattern for m, or nullopt. Catalogs are parsed once and then
// only read, so any thread may look up in any language.
std::optional<std::string_view> message_translated_pattern(const Message& m, const i18n::Catalog& catalog) {
  if (!m.plural_id.empty()) return catalog.find_plural(m.id, m.n);
  if (m.context.empty()) return catalog.find(m.id);
  std::string key = m.context;
  key += '\x04';
  key += m.id;
  return catalog.find(key);
}

std::string message_render_in(const Message& m, const i18n::Catalog* catalog);

// A list's items as text, joined by the language's ", ".
std::string message_render_list(const MessageList& list, const i18n::Catalog* catalog) {
  const std::string_view separator = catalog != nullptr ? catalog->find(", ").value_or(", ") : std::string_view(", ");
  std::string out;
  for (const auto& a : list.items) {
    if (!out.empty()) out += separator;
    if (const Message* nested = a.message()) {
      out += message_render_in(*nested, catalog);
    } else if (const MessageList* inner = a.items()) {
      out += message_render_list(*inner, catalog);
    } else if (const auto* s = std::get_if<std::string>(&a.value())) {
      out += *s;
    } else if (const auto* i = std::get_if<int64_t>(&a.value())) {
      out += std::to_string(*i);
    } else {
      out += fmt::format("{}", std::get<double>(a.value()));
    }
  }
  return out;
}

std::string message_render_in(const Message& m, const i18n::Catalog* catalog) {
  fmt::dynamic_format_arg_store<fmt::format_context> store;
  for (const auto& a : m.args) {
    if (const Message* nested = a.message()) {
      store.push_back(message_render_in(*nested, catalog));
    } else if (const MessageList* list = a.items()) {
      store.push_back(message_render_list(*list, catalog));
    } else if (const auto* s = std::get_if<std::string>(&a.value())) {
      store.push_back(*s);
    } else if (const auto* i = std::get_if<int64_t>(&a.value())) {
      store.push_back(*i);
    } else {
      store.push_back(std::get<double>(a.value()));
    }
  }
  const std::string_view english = message_english_pattern(m);
  if (catalog != nullptr) {
    if (auto t = message_translated_pattern(m, *catalog)) {
      try {
        return fmt::vformat(*t, store);
      } catch (const fmt::format_error&) {
        // a translator's typo: the English below
      }
    }
  }
  try {
    return fmt::vformat(english, store);
  } catch (const fmt::format_error&) {
    return std::string(english);
  }
}

// The "{...}" fields of a pattern, in order ("{0} of {1:.2f}" -> "{0}", "{1:.2f}").
std::vector<std::string_view> message_fields(std::string_view pattern) {
  std::vector<std::string_view> out;
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] != '{') continue;
    if (i + 1 < pattern.size() && pattern[i + 1] == '{') {
      ++i;
      continue;
    }
    const size_t end = pattern.find('}', i);
    if (end == std::string_view::npos) break;
    out.push_back(pattern.substr(i, end - i + 1));
    i = end;
  }
  return out;
}

bool message_known_in(const Message& m, const i18n::Catalog& catalog, int depth);

bool message_arg_known(const MessageArg& a, const i18n::Catalog& catalog, int depth) {
  if (const Message* nested = a.message()) return message_known_in(*nested, catalog, depth);
  if (const MessageList* list = a.items()) {
    for (const auto& item : list->items) {
      if (!message_arg_known(item, catalog, depth + 1)) return false;
    }
  }
  return true;
}

bool message_known_in(const Message& m, const i18n::Catalog& catalog, int depth) {
  if (depth > kMaxMessageDepth || m.id.empty() || !message_translated_pattern(m, catalog)) return false;
  // The catalog keys only the singular: a plural pattern must use its fields.
  if (!m.plural_id.empty() && message_fields(m.plural_id) != message_fields(m.id)) return false;
  for (const auto& a : m.args) {
    if (!message_arg_known(a, catalog, depth + 1)) return false;
  }
  return true;
}

std::optional<Message> message_from_json_at(const nlohmann::json& j, int depth);

std::optional<MessageArg> message_arg_from_json(const nlohmann::json& a, int depth) {
  if (a.is_string()) return MessageArg(a.get<std::string>());
  if (a.is_number_integer()) return MessageArg(a.get<int64_t>());
  if (a.is_number_float()) return MessageArg(a.get<double>());
  if (depth > kMaxMessageDepth || !a.is_object()) return std::nullopt;
  if (a.size() == 1 && a.contains("list")) {
    const auto& list = a["list"];
    if (!list.is_array() || list.size() > 4096) return std::nullopt;
    std::vector<MessageArg> items;
    for (const auto& item : list) {
      auto parsed = message_arg_from_json(item, depth + 1);
      if (!parsed) return std::nullopt;
      items.push_back(std::move(*parsed));
    }
    return MessageArg::list(std::move(items));
  }
  if (auto nested = message_from_json_at(a, depth)) return MessageArg(std::move(*nested));
  return std::nullopt;
}

nlohmann::json message_arg_to_json(const MessageArg& a) {
  if (const Message* nested = a.message()) return message_to_json(*nested);
  if (const MessageList* list = a.items()) {
    nlohmann::json items = nlohmann::json::array();
    for (const auto& item : list->items) items.push_back(message_arg_to_json(item));
    return nlohmann::json{{"list", std::move(items)}};
  }
  if (const auto* s = std::get_if<std::string>(&a.value())) return *s;
  if (const auto* i = std::get_if<int64_t>(&a.value())) return *i;
  return std::get<double>(a.value());
}

std::optional<Message> message_from_json_at(const nlohmann::json& j, int depth) {
  if (depth > kMaxMessageDepth || !j.is_object()) return std::nullopt;
  Message m;
  for (const auto& [key, value] : j.items()) {
    if (key == "id" && value.is_string()) {
      m.id = value.get<std::string>();
    } else if (key == "context" && value.is_string()) {
      m.context = value.get<std::string>();
    } else if (key == "plural" && value.is_string()) {
      m.plural_id = value.get<std::string>();
    } else if (key == "n" && value.is_number_unsigned()) {
      m.n = value.get<uint64_t>();
    } else if (key == "args" && value.is_array() && value.size() <= 16) {
      for (const auto& a : value) {
        auto parsed = message_arg_from_json(a, depth + 1);
        if (!parsed) return std::nullopt;
        m.args.push_back(std::move(*parsed));
      }
    } else {
      return std::nullopt;
    }
  }
  if (m.id.empty()) return std::nullopt;
  return m;
}

}  // namespace

std::string english(const Message& m) { return message_render_in(m, nullptr); }

std::string render(const Message& m, std::string_view language) {
  return message_render_in(m, i18n::embedded_catalog(language));
}

bool known_message(const Message& m) {
  const auto languages = i18n::embedded_languages();
  if (languages.empty()) return false;
  // Every catalog holds every message (I18n.CatalogsAreComplete): one answers for all.
  const i18n::Catalog* catalog = i18n::embedded_catalog(languages.front());
  return catalog != nullptr && message_known_in(m, *catalog, 0);
}

nlohmann::json message_to_json(const Message& m) {
  nlohmann::json j = nlohmann::json::object();
  if (!m.context.empty()) j["context"] = m.context;
  j["id"] = m.id;
  if (!m.plural_id.empty()) {
    j["plural"] = m.plural_id;
    j["n"] = m.n;
  }
  nlohmann::json args = nlohmann::json::array();
  for (const auto& a : m.args) args.push_back(message_arg_to_json(a));
  j["args"] = std::move(args);
  return j;
}

std::optional<Message> message_from_json(const nlohmann::json& j) { return message_from_json_at(j, 0); }

}  // namespace tfrig::core

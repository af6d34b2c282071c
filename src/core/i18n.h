// Translated messages: gettext's catalogs (po/*.po, compiled by msgfmt at
// build time and embedded in the binary), read by our own small .mo reader.
// Why not glibc's gettext(): it finds catalogs only under an installed
// locale directory and only for locales generated on the machine; tfrig is
// one self-contained binary that must speak Chinese on a bare server.
//
// Marking, for xgettext (scripts/i18n.sh):
//   _("text")                     translated text
//   trf("{} of {}", a, b)          translated, then formatted; a translation may
//                                  reorder with numbered fields ("{1} 中的 {0}")
//   trnf("{} GPU", "{} GPUs", n, n) plural by the catalog's Plural-Forms rule
//   C_("GPU table", "memory")      translated in a context, when one English word
//                                  needs two translations (msgctxt)
//   N_("text")                     marked only (tables); translated where shown
// The English text is the key: it is what prints when no catalog matches.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include <fmt/format.h>

#include "core/result.h"

namespace tfrig::core::i18n {

// One parsed .mo file (GNU gettext's binary catalog format, as documented in
// the GNU gettext manual, section "The Format of GNU MO Files").
class Catalog {
 public:
  // Reads a .mo image (either byte order). Errors name the offset that is wrong.
  static Result<Catalog> parse(std::string_view mo);

  // The translation of msgid, or nullopt (also for an empty translation).
  std::optional<std::string_view> find(std::string_view msgid) const;
  // Plural: the form the Plural-Forms rule picks for n, or nullopt.
  std::optional<std::string_view> find_plural(std::string_view singular, uint64_t n) const;
  size_t size() const { return messages_.size(); }
  int nplurals() const { return nplurals_; }
  const std::string& plural_rule() const { return plural_; }

 private:
  // msgid (for plurals: the singular) -> translation (plural forms NUL-separated).
  std::unordered_map<std::string_view, std::string_view> messages_;
  std::string plural_ = "n != 1";
  int nplurals_ = 2;
};

// Evaluates a Plural-Forms expression ("n != 1", "n%10==1 && n%100!=11 ? 0 : ...")
// for n; nullopt when the expression does not parse.
std::optional<uint64_t> eval_plural(std::string_view expression, uint64_t n);

// "zh_CN.UTF-8@x" -> "zh_CN"; a language tfrig has a catalog for ("zh_CN"),
// "en", or nullopt when the locale names neither (or a non-UTF-8 codeset:
// tfrig prints UTF-8 only, so a GB18030 terminal gets English, not mojibake).
std::optional<std::string> catalog_language(std::string_view locale, bool require_utf8 = true);

// The language to speak: --lang, else the first of LANGUAGE (a colon list),
// LC_ALL, LC_MESSAGES, LANG that names a known language; else "en".
// getenv is passed in so tests need no environment.
std::string choose_language(const std::optional<std::string>& flag,
                            const std::function<const char*(const char*)>& getenv);

// Switches the process to a language ("zh_CN", "en"; anything else is English).
// Called by main before the commands are built and never concurrently with _().
void set_language(std::string_view language);
std::string_view language();
// Languages with an embedded catalog, and the catalog of one (tests).
std::vector<std::string> embedded_languages();
const Catalog* embedded_catalog(std::string_view language);

std::string_view translate(std::string_view msgid);
// gettext's pgettext: the catalog key is context + '\x04' + msgid.
std::string_view translate_in_context(std::string_view context, std::string_view msgid);
std::string_view translate_plural(std::string_view singular, std::string_view plural, uint64_t n);
// fmt::format with a runtime pattern; a translation whose fields do not fit
// the arguments (a translator's typo) falls back to the English pattern.
std::string format_translated(std::string_view translated, std::string_view english, fmt::format_args args);

}  // namespace tfrig::core::i18n

namespace tfrig {

// Marks a literal for extraction without translating it (static tables).
template <class T>
constexpr T N_(T text) {
  return text;
}

inline std::string _(std::string_view msgid) { return std::string(core::i18n::translate(msgid)); }

inline std::string C_(std::string_view context, std::string_view msgid) {
  return std::string(core::i18n::translate_in_context(context, msgid));
}

template <class... Args>
std::string trf(fmt::format_string<Args...> msgid, Args&&... args) {
  const fmt::string_view pattern = msgid;
  const std::string_view english(pattern.data(), pattern.size());
  return core::i18n::format_translated(core::i18n::translate(english), english, fmt::make_format_args(args...));
}

template <class... Args>
std::string trnf(fmt::format_string<Args...> singular, std::string_view plural, uint64_t n, Args&&... args) {
  const fmt::string_view pattern = singular;
  const std::string_view english(pattern.data(), pattern.size());
  const std::string_view chosen = core::i18n::translate_plural(english, plural, n);
  return core::i18n::format_translated(chosen, n == 1 ? english : plural, fmt::make_format_args(args...));
}

}  // namespace tfrig

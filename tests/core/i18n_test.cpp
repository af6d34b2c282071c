#include "core/i18n.h"

#include <atomic>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/message.h"

#include <algorithm>
#include <cstring>
#include <map>

#include <gtest/gtest.h>

namespace tfrig::core::i18n {
namespace {

// A .mo image built the way msgfmt lays it out (GNU gettext manual, "The
// Format of GNU MO Files"): header, originals table, translations table,
// then the strings. Entries must be sorted by msgid, as msgfmt writes them.
std::string make_mo(const std::map<std::string, std::string>& entries, bool big_endian = false) {
  auto word = [big_endian](uint32_t v) {
    std::string w(4, '\0');
    for (int i = 0; i < 4; ++i) w[big_endian ? 3 - i : i] = static_cast<char>((v >> (8 * i)) & 0xff);
    return w;
  };
  const uint32_t n = static_cast<uint32_t>(entries.size());
  const uint32_t originals = 28;
  const uint32_t translations = originals + 8 * n;
  uint32_t strings = translations + 8 * n;
  std::string head = word(0x950412de) + word(0) + word(n) + word(originals) + word(translations) + word(0) + word(0);
  std::string otable, ttable, data;
  for (const auto& [id, text] : entries) {
    otable += word(static_cast<uint32_t>(id.size())) + word(strings + static_cast<uint32_t>(data.size()));
    data += id + '\0';
  }
  for (const auto& [id, text] : entries) {
    ttable += word(static_cast<uint32_t>(text.size())) + word(strings + static_cast<uint32_t>(data.size()));
    data += text + '\0';
  }
  return head + otable + ttable + data;
}

const std::string kHeader = "Content-Type: text/plain; charset=UTF-8\nPlural-Forms: nplurals=3; plural=n%10==1 && n%100!=11 ? 0 : "
                            "n%10>=2 && n%10<=4 && (n%100<10 || n%100>=20) ? 1 : 2;\n";

TEST(MoCatalog, ReadsMessagesAndPluralFormsInBothByteOrders) {
  std::map<std::string, std::string> entries{{"", kHeader},
                                             {"Driver", "驱动"},
                                             {std::string("{} GPU\0{} GPUs", 14), std::string("A {}\0B {}\0C {}", 14)}};
  for (bool big : {false, true}) {
    const std::string mo = make_mo(entries, big);  // the catalog views into it
    auto c = Catalog::parse(mo);
    ASSERT_TRUE(c) << c.error().to_string();
    EXPECT_EQ(c->size(), 2u);
    EXPECT_EQ(c->nplurals(), 3);
    EXPECT_EQ(c->find("Driver").value_or(""), "驱动");
    EXPECT_FALSE(c->find("Kernel"));
    EXPECT_EQ(c->find_plural("{} GPU", 1).value_or(""), "A {}");
    EXPECT_EQ(c->find_plural("{} GPU", 3).value_or(""), "B {}");
    EXPECT_EQ(c->find_plural("{} GPU", 5).value_or(""), "C {}");
    EXPECT_EQ(c->find_plural("{} GPU", 21).value_or(""), "A {}");
    EXPECT_EQ(c->find_plural("{} GPU", 11).value_or(""), "C {}");
  }
}

TEST(MoCatalog, AnEmptyTranslationIsNoTranslation) {
  const std::string mo = make_mo({{"", kHeader}, {"Host", ""}});
  auto c = Catalog::parse(mo);
  ASSERT_TRUE(c);
  EXPECT_FALSE(c->find("Host"));
}

TEST(MoCatalog, BadImagesAreErrorsThatNameTheOffset) {
  auto short_file = Catalog::parse("\xde\x12\x04");
  ASSERT_FALSE(short_file);
  EXPECT_EQ(short_file.error().where, "offset 0");
  auto magic = Catalog::parse(std::string(28, 'x'));
  ASSERT_FALSE(magic);
  EXPECT_NE(magic.error().message.find("0x950412de"), std::string::npos);
  // A string table entry that points past the end.
  std::string mo = make_mo({{"", kHeader}, {"Driver", "驱动"}});
  mo.resize(mo.size() - 10);
  auto cut = Catalog::parse(mo);
  ASSERT_FALSE(cut);
  EXPECT_NE(cut.error().message.find("past the end"), std::string::npos) << cut.error().to_string();
  // A count that would read the tables far outside the file.
  std::string huge = make_mo({{"", kHeader}});
  huge[8] = '\xff';
  huge[9] = '\xff';
  EXPECT_FALSE(Catalog::parse(huge));
}

TEST(PluralForms, EvaluatesTheCSubsetGettextUses) {
  EXPECT_EQ(eval_plural("0", 7), 0u);
  EXPECT_EQ(eval_plural("n != 1", 1), 0u);
  EXPECT_EQ(eval_plural("n != 1", 2), 1u);
  EXPECT_EQ(eval_plural("(n > 1)", 1), 0u);
  EXPECT_EQ(eval_plural("n==1 ? 0 : n==2 ? 1 : (n>2 && n<7) ? 2 : 3", 4), 2u);  // Irish
  EXPECT_EQ(eval_plural("n==1 ? 0 : n==2 ? 1 : (n>2 && n<7) ? 2 : 3", 9), 3u);
  EXPECT_EQ(eval_plural("!(n%10)", 20), 1u);
  EXPECT_EQ(eval_plural("n / 0", 5), 0u);  // no division by zero
  EXPECT_FALSE(eval_plural("n +", 1));
  EXPECT_FALSE(eval_plural("n == 1 ? 0", 1));
  EXPECT_FALSE(eval_plural("x", 1));
  EXPECT_FALSE(eval_plural(std::string(200, '(') + "n" + std::string(200, ')'), 1));  // bounded recursion
}

TEST(Language, LocaleNamesMapToACatalogOrEnglish) {
  EXPECT_EQ(catalog_language("zh_CN.UTF-8").value_or("?"), "zh_CN");
  EXPECT_EQ(catalog_language("zh_CN.utf8").value_or("?"), "zh_CN");
  EXPECT_EQ(catalog_language("zh_CN").value_or("?"), "zh_CN");
  EXPECT_EQ(catalog_language("zh").value_or("?"), "zh_CN");
  EXPECT_EQ(catalog_language("zh_SG.UTF-8@pinyin").value_or("?"), "zh_CN");
  EXPECT_FALSE(catalog_language("zh_CN.GB18030"));  // tfrig writes UTF-8 only
  EXPECT_EQ(catalog_language("zh_CN.GB18030", false).value_or("?"), "zh_CN");
  EXPECT_FALSE(catalog_language("zh_TW.UTF-8"));  // traditional characters: no catalog
  EXPECT_EQ(catalog_language("C").value_or("?"), "en");
  EXPECT_EQ(catalog_language("C.UTF-8").value_or("?"), "en");
  EXPECT_EQ(catalog_language("POSIX").value_or("?"), "en");
  EXPECT_EQ(catalog_language("en_US.UTF-8").value_or("?"), "en");
  EXPECT_FALSE(catalog_language("fr_FR.UTF-8"));
  EXPECT_FALSE(catalog_language(""));
}

TEST(Language, FlagThenLanguageListThenLcAllLcMessagesLang) {
  std::map<std::string, std::string> env;
  auto getenv = [&env](const char* name) -> const char* {
    auto it = env.find(name);
    return it == env.end() ? nullptr : it->second.c_str();
  };
  EXPECT_EQ(choose_language(std::nullopt, getenv), "en");
  env["LANG"] = "zh_CN.UTF-8";
  EXPECT_EQ(choose_language(std::nullopt, getenv), "zh_CN");
  EXPECT_EQ(choose_language(std::string("en"), getenv), "en");
  env["LC_MESSAGES"] = "C";
  EXPECT_EQ(choose_language(std::nullopt, getenv), "en");
  env["LC_ALL"] = "";  // empty: the next variable decides
  EXPECT_EQ(choose_language(std::nullopt, getenv), "en");
  env["LC_ALL"] = "zh_CN.UTF-8";
  EXPECT_EQ(choose_language(std::nullopt, getenv), "zh_CN");
  env["LANGUAGE"] = "fr:de";  // none known: the locale variables decide
  EXPECT_EQ(choose_language(std::nullopt, getenv), "zh_CN");
  env["LANGUAGE"] = "fr:en:zh_CN";
  EXPECT_EQ(choose_language(std::nullopt, getenv), "en");
  env["LC_ALL"] = "fr_FR.UTF-8";
  env["LANGUAGE"] = "";
  EXPECT_EQ(choose_language(std::nullopt, getenv), "en");  // unknown: English, silently
  EXPECT_EQ(choose_language(std::string("klingon"), getenv), "en");
  EXPECT_EQ(choose_language(std::string("zh_CN"), getenv), "zh_CN");
}

// Switches to a language for one test and back to English after.
class InLanguage {
 public:
  explicit InLanguage(std::string_view lang) { set_language(lang); }
  ~InLanguage() { set_language("en"); }
  InLanguage(const InLanguage&) = delete;
  InLanguage& operator=(const InLanguage&) = delete;
};

TEST(Translate, TheEmbeddedChineseCatalogIsThereAndComplete) {
  const auto langs = embedded_languages();
  ASSERT_NE(std::find(langs.begin(), langs.end(), "zh_CN"), langs.end());
  const Catalog* zh = embedded_catalog("zh_CN");
  ASSERT_NE(zh, nullptr);
  EXPECT_EQ(zh->nplurals(), 1);
  EXPECT_GT(zh->size(), 400u);
}

TEST(Translate, EnglishIsTheKeyAndTheFallback) {
  set_language("en");
  EXPECT_EQ(language(), "en");
  EXPECT_EQ(_("Driver"), "Driver");
  EXPECT_EQ(trf("{} will run on the CPU only", "TensorFlow 2.17.0"), "TensorFlow 2.17.0 will run on the CPU only");
  EXPECT_EQ(trnf("{} error", "{} errors", 1, 1), "1 error");
  EXPECT_EQ(trnf("{} error", "{} errors", 3, 3), "3 errors");
  set_language("fr_FR");  // no catalog: English
  EXPECT_EQ(language(), "en");
  EXPECT_EQ(_("Driver"), "Driver");
}

TEST(Translate, ChineseSentencesWithReorderedFieldsAndOnePluralForm) {
  InLanguage zh_text("zh_CN");
  EXPECT_EQ(language(), "zh_CN");
  EXPECT_EQ(_("Driver"), "驱动");
  EXPECT_EQ(_("a message no catalog has"), "a message no catalog has");
  EXPECT_EQ(trf("{} will run on the CPU only", "TensorFlow 2.17.0（--tf）"), "TensorFlow 2.17.0（--tf）只能在 CPU 上运行");
  // The translation puts {2} before {1}.
  EXPECT_EQ(trf("{0} will use {1} of {2} GPUs", "TF（--tf）", 3, 4), "TF（--tf）将使用 4 块 GPU 中的 3 块");
  EXPECT_EQ(trnf("{} error", "{} errors", 1, 1), "1 个错误");
  EXPECT_EQ(trnf("{} error", "{} errors", 3, 3), "3 个错误");
}

TEST(Translate, ABrokenTranslationFallsBackToTheEnglishPattern) {
  EXPECT_EQ(format_translated("{5} 坏", "{} ok", fmt::make_format_args(1)), "1 ok");
  EXPECT_EQ(format_translated("{0} 好", "{} ok", fmt::make_format_args(1)), "1 好");
}

}  // namespace
}  // namespace tfrig::core::i18n

namespace tfrig::core {
namespace {

// core::Message (core/message.h)

// The zh_CN catalog's own text for a pattern: the tests compare with what the
// catalog says, not with a copy of it.
std::string zh_text(std::string_view id) {
  const auto* c = i18n::embedded_catalog("zh_CN");
  EXPECT_NE(c, nullptr);
  auto t = c->find(id);
  EXPECT_TRUE(t.has_value()) << id;
  return std::string(t.value_or(id));
}

TEST(Message, EnglishFormatsTheTypedArguments) {
  const Message m(N_("{0} RAM, {1} swap"), "15.6 GiB", "2.0 GiB");
  EXPECT_EQ(english(m), "15.6 GiB RAM, 2.0 GiB swap");
  EXPECT_EQ(render(m, "en"), english(m));
  EXPECT_EQ(render(m, "xx_YY"), english(m));  // no catalog: English
}

TEST(Message, RendersInTheNamedLanguageWithoutTheProcessLanguage) {
  i18n::set_language("en");
  const Message m(N_("{0} RAM, {1} swap"), "15.6 GiB", "2.0 GiB");
  EXPECT_EQ(render(m, "zh_CN"), fmt::format(fmt::runtime(zh_text("{0} RAM, {1} swap")), "15.6 GiB", "2.0 GiB"));
  EXPECT_NE(render(m, "zh_CN"), english(m));
  EXPECT_EQ(i18n::language(), "en");
}

TEST(Message, NestedMessagesAndContextsTranslateInTheSameLanguage) {
  const Message word = Message::in_context(NC_("kernel module", "open"));
  const Message m(N_("kernel module {0} ({1})"), "nvidia", word);
  EXPECT_EQ(english(m), "kernel module nvidia (open)");
  const std::string open_zh = zh_text(std::string("kernel module") + '\x04' + "open");
  EXPECT_EQ(render(m, "zh_CN"), fmt::format(fmt::runtime(zh_text("kernel module {0} ({1})")), "nvidia", open_zh));
}

TEST(Message, PluralPicksTheEnglishFormByCount) {
  const auto p = NP_("--threads {0} is more than the {1} CPU this process may use",
                     "--threads {0} is more than the {1} CPUs this process may use");
  EXPECT_EQ(english(Message::plural(p, 1, 4, 1)), "--threads 4 is more than the 1 CPU this process may use");
  EXPECT_EQ(english(Message::plural(p, 2, 4, 2)), "--threads 4 is more than the 2 CPUs this process may use");
  const auto* c = i18n::embedded_catalog("zh_CN");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(render(Message::plural(p, 2, 4, 2), "zh_CN"), fmt::format(fmt::runtime(std::string(*c->find_plural(p.first, 2))), 4, 2));
}

TEST(Message, RealsUseThePatternsField) {
  const Message m(N_("{:.2f} s"), 0.354);
  EXPECT_EQ(english(m), "0.35 s");
}

TEST(Message, APatternThatDoesNotFitItsArgumentsComesOutAsItIs) {
  const Message m("{0} and {1}", "only one");
  EXPECT_EQ(english(m), "{0} and {1}");
  EXPECT_EQ(render(m, "zh_CN"), "{0} and {1}");
}

TEST(Message, JsonRoundTripKeepsTypes) {
  Message m = Message::plural(NP_("{0} GPU via {1}", "{0} GPUs via {1}"), 2, 2, "/usr/lib/libnvidia-ml.so.1");
  m.args.emplace_back(Message(N_("{:.2f} s"), 1.0));
  const auto j = message_to_json(m);
  auto back = message_from_json(nlohmann::json::parse(j.dump()));
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(*back, m);
  EXPECT_TRUE(std::holds_alternative<double>(back->args[2].message()->args[0].value()));
}

// A chain of n messages "{0}; {1}" nested n deep, as the importer joins a probe's notes.
Message note_chain(int n) {
  Message m(N_("yes"));
  for (int i = 1; i < n; ++i) m = Message(N_("{0}; {1}"), std::move(m), Message(N_("yes")));
  return m;
}

TEST(Message, JsonOfAnotherShapeIsRefused) {
  for (const char* text : {R"("text")", R"({"args": []})", R"({"id": 3})", R"({"id": "x", "args": [true]})",
                           R"({"id": "x", "extra": 1})"}) {
    EXPECT_FALSE(message_from_json(nlohmann::json::parse(text)).has_value()) << text;
  }
  // Nested deeper than a file of tfrig's ever is: refused, not recursed into.
  EXPECT_FALSE(message_from_json(message_to_json(note_chain(kMaxMessageDepth + 2))).has_value());
}

// A machine of many GPUs has a long chain of import notes (a 16-GPU bug
// report's driver probe joins 18): read back whole, known and translated.
TEST(Message, ALongChainOfNotesReadsBackAndIsKnown) {
  const Message chain = note_chain(40);
  auto back = message_from_json(nlohmann::json::parse(message_to_json(chain).dump()));
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(*back, chain);
  EXPECT_TRUE(known_message(*back));
  EXPECT_NE(render(*back, "zh_CN"), english(*back));
}

TEST(Message, OnlyTheCatalogsPatternsAreKnown) {
  EXPECT_TRUE(known_message(Message(N_("{0} RAM, {1} swap"), "a", "b")));
  EXPECT_TRUE(known_message(Message(N_("kernel module {0} ({1})"), "nvidia", Message::in_context(NC_("kernel module", "open")))));
  EXPECT_FALSE(known_message(Message("{:>999999999}", "a")));
  EXPECT_FALSE(known_message(Message(N_("kernel module {0} ({1})"), "nvidia", Message("not a message of tfrig"))));
  // A plural pattern the catalog does not key must use the singular's fields.
  Message widened = Message::plural(NP_("--threads {0} is more than the {1} CPU this process may use", "{0:>999999999}"), 2, 4, 2);
  EXPECT_FALSE(known_message(widened));
}

// Renders on several threads while the process language switches: each
// answer is in the language asked for (no thread flag, no global switch).
TEST(Message, RenderIsThreadSafeAndIgnoresTheProcessLanguage) {
  const Message m(N_("{0} RAM, {1} swap"), "1 GiB", "0 B");
  const std::string en = english(m);
  const std::string cn = render(m, "zh_CN");
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 2000; ++i) {
        if ((t % 2 == 0 ? render(m, "zh_CN") : render(m, "en")) != (t % 2 == 0 ? cn : en)) ++wrong;
      }
    });
  }
  for (int i = 0; i < 200; ++i) i18n::set_language(i % 2 ? "zh_CN" : "en");
  for (auto& th : threads) th.join();
  i18n::set_language("en");
  EXPECT_EQ(wrong.load(), 0);
}

}  // namespace
}  // namespace tfrig::core

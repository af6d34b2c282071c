#include "core/i18n.h"

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
  InLanguage zh("zh_CN");
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

// `tfrig setup` in Chinese: the messages marked in the templates ("@{...}@",
// src/setup/templates.h) keep in translation what the file they land in
// needs (shell variables, @KEY@ fields, quotes, printf's %s); the Chinese
// files download from exactly the URLs of the English ones (all from the
// knowledge base); and a reviewed golden of `LANG=zh_CN.UTF-8 tfrig setup
// --mirror cn` (what it prints and the files it writes).
#include <algorithm>
#include <filesystem>
#include <map>
#include <regex>
#include <set>

#include <gtest/gtest.h>

#include "core/i18n.h"
#include "core/i18n_scope.h"
#include "core/text.h"
#include "golden.h"
#include "knowledge/knowledge.h"
#include "setup/plan.h"
#include "setup/render.h"
#include "setup/templates.h"
#include "setup_templates.h"
#include "setup_test_support.h"
#include "test_support.h"

namespace tfrig::setup::test {
namespace {

// What a translation must keep of a template message: the @KEY@ fields, the
// shell's $NAME / ${...} / $1 / $* words and printf's %s, and the count of
// each character the shell or the format reads ('"`\$%).
std::multiset<std::string> kept_tokens(const std::string& text) {
  static const std::regex kToken(R"(@[A-Z_]+@|\$\{[^}]*\}|\$[A-Za-z_][A-Za-z0-9_]*|\$[0-9*@#?]|%[sdq])");
  std::multiset<std::string> out;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), kToken); it != std::sregex_iterator(); ++it) {
    out.insert(it->str());
  }
  for (char c : std::string("\\$%")) {
    out.insert(std::string(1, c) + " x" + std::to_string(std::count(text.begin(), text.end(), c)));
  }
  return out;
}

// A quote or backtick the English does not have could end the string the
// message sits in (or run a command); where the English has some, the message
// is not inside that kind of quote, and the translation may drop them.
std::string added_quotes(const std::string& english, const std::string& translation) {
  std::string out;
  for (char c : std::string("'\"`")) {
    if (english.find(c) == std::string::npos && translation.find(c) != std::string::npos) out += c;
  }
  return out;
}

// Lines after the first that start a comment ("# ...") must stay comments.
std::vector<bool> comment_lines(const std::string& text) {
  std::vector<bool> out;
  for (const auto& line : core::split_lines(text)) out.push_back(!line.empty() && line[0] == '#');
  if (!out.empty()) out.erase(out.begin());
  return out;
}

TEST(SetupI18n, TemplateMessagesAreTranslatedAndKeepWhatTheFileNeeds) {
  const core::i18n::Catalog* zh = core::i18n::embedded_catalog("zh_CN");
  ASSERT_NE(zh, nullptr);
  size_t checked = 0;
  for (const auto& e : embedded::kTemplates) {
    for (const auto& msgid : marked_messages(e.text)) {
      SCOPED_TRACE(std::string(e.name) + ": " + msgid);
      auto tr = zh->find(msgid);
      ASSERT_TRUE(tr.has_value()) << "no Chinese for a template message: scripts/i18n.sh update, then translate it";
      const std::string t(*tr);
      EXPECT_EQ(kept_tokens(t), kept_tokens(msgid)) << t;
      EXPECT_EQ(added_quotes(msgid, t), "") << t;
      EXPECT_EQ(comment_lines(t), comment_lines(msgid)) << t;
      EXPECT_EQ(t.find("@{"), std::string::npos) << t;
      ++checked;
    }
  }
  EXPECT_GT(checked, 60u);  // install.sh alone marks more
}

TEST(SetupI18n, LocalizeReplacesEveryMarkerAndLeavesTheRest) {
  EXPECT_EQ(localize("echo \"@{done.}@\" # @{x}@ y"), "echo \"done.\" # x y");
  EXPECT_EQ(localize("no marker @ here }@ @{ open"), "no marker @ here }@ @{ open");
  EXPECT_EQ(marked_messages("a @{one}@ b @{two\n# lines}@"), (std::vector<std::string>{"one", "two\n# lines"}));
  core::i18n::ScopedLanguage zh("zh_CN");
  EXPECT_EQ(localize("echo \"install.sh: @{done.}@\""), "echo \"install.sh: 完成。\"");
}

TEST(SetupI18n, CnDockerHubNoteIsTheKnowledgeBasesText) {
  const auto* cn = knowledge::builtin().setup().find_preset("cn");
  ASSERT_NE(cn, nullptr);
  EXPECT_EQ(cn->docker_hub_note, kCnDockerHubNote) << "update kCnDockerHubNote in src/setup/plan.cpp with setup.json";
}

std::set<std::string> urls(const std::vector<OutputFile>& files) {
  static const std::regex kUrl(R"(https?://[^\s'"`)<>,;]+)");
  std::set<std::string> out;
  for (const auto& f : files) {
    for (auto it = std::sregex_iterator(f.content.begin(), f.content.end(), kUrl); it != std::sregex_iterator(); ++it) {
      // Up to the first non-ASCII byte (Chinese punctuation follows a URL
      // without a space), without the sentence's or Markdown's end marks.
      std::string url = it->str();
      const auto wide = std::find_if(url.begin(), url.end(), [](char ch) { return static_cast<unsigned char>(ch) >= 0x80; });
      url.erase(wide, url.end());
      while (!url.empty() && (url.back() == '.' || url.back() == '*' || url.back() == ':')) url.pop_back();
      out.insert(f.path + " " + url);
    }
  }
  return out;
}

// The English files' URLs are checked against the knowledge base
// (setup_sources_test.cpp); the Chinese ones must be the very same.
TEST(SetupI18n, ChineseFilesUseTheEnglishFilesUrlsAndNoMarkerIsLeft) {
  for (const auto& c : cells()) {
    if (c.refused) continue;
    SCOPED_TRACE(c.name);
    const auto en = render_cell(c);
    std::vector<OutputFile> zh;
    {
      core::i18n::ScopedLanguage lang("zh_CN");
      zh = render_cell(c);
    }
    ASSERT_EQ(en.size(), zh.size());
    EXPECT_EQ(urls(zh), urls(en));
    for (size_t i = 0; i < en.size(); ++i) {
      EXPECT_EQ(zh[i].path, en[i].path);
      EXPECT_EQ(en[i].content.find("@{"), std::string::npos) << en[i].path;
      EXPECT_EQ(zh[i].content.find("@{"), std::string::npos) << zh[i].path;
      EXPECT_EQ(zh[i].content.find("}@"), std::string::npos) << zh[i].path;
    }
  }
}

// LANG=zh_CN.UTF-8 tfrig setup --mirror cn, for the pip and the container
// method: what it prints and every file it writes.
void expect_chinese_golden(const std::string& name, const std::vector<std::string>& extra_args) {
  tfrig::test::TempDir tmp;
  std::vector<std::string> args = {"setup", "--from-snapshot",
                                   tfrig::test::data_dir() + "/golden/nvidia-smi-xml/telegraf_a100-sxm4-v12.xml.json",
                                   "--os", "ubuntu-22.04", "--mirror", "cn", "-o", "out"};
  args.insert(args.end(), extra_args.begin(), extra_args.end());
  tfrig::test::RunOptions o;
  o.env = {"LANG=zh_CN.UTF-8", "LANGUAGE=", "LC_ALL=", "LC_MESSAGES="};
  o.cwd = tmp.path();
  auto r = tfrig::test::run_tfrig(args, o);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string dir = tfrig::test::golden_path("setup-zh_CN/" + name);
  EXPECT_TRUE(tfrig::test::matches_golden(dir + "/stdout.txt", r.out));
  for (const auto& entry : std::filesystem::recursive_directory_iterator(tmp.file("out"))) {
    if (!entry.is_regular_file()) continue;
    const std::string rel = std::filesystem::relative(entry.path(), tmp.file("out")).string();
    EXPECT_TRUE(tfrig::test::matches_golden(dir + "/" + rel, tfrig::test::read_file(entry.path().string())));
  }
}

TEST(SetupI18nCli, MirrorCnPipInChineseMatchesTheReviewedGolden) { expect_chinese_golden("pip", {"--tf", "2.17"}); }

TEST(SetupI18nCli, MirrorCnContainerInChineseMatchesTheReviewedGolden) {
  expect_chinese_golden("container", {"--tf", "2.15,2.17", "--method", "container"});
}

}  // namespace
}  // namespace tfrig::setup::test

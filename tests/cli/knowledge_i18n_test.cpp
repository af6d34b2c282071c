// compat, explain and knowledge in Chinese: goldens reviewed for meaning, the
// texts of data/knowledge/*.json and the Xid table translated where they are
// shown, columns padded by display width, and JSON that stays English unless
// --lang asks.
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/display_width.h"
#include "core/i18n.h"
#include "core/text.h"
#include "golden.h"
#include "knowledge/xid_catalog.h"
#include "test_support.h"

namespace tfrig {
namespace {

// Every locale variable set, so the caller's own environment never decides.
// A Kepler card, an old driver, a Python too new and other CUDA/cuDNN: every
// part of the answer says something, and the answer lists alternatives.
const std::vector<std::string> kCompat = {"compat", "--only-given", "--tf", "2.15", "--driver", "470.82", "--gpu", "Tesla K80",
                                          "--python", "3.12", "--cuda", "11.4", "--cudnn", "8.2"};

// A log judged against a machine: the signature's texts, doctor's rule on the
// snapshot, and the compat answer with the log's versions.
const std::vector<std::string> kExplain = {"explain", "--color", "never", "--snapshot", "snapshots/gpu_box_two_a100_old_driver.json",
                                           "logs/tf-8526-driver-insufficient.log"};

TEST(KnowledgeI18n, ChineseCompatMatchesTheReviewedGolden) {
  auto r = test::run_tfrig(test::with_zh_lang(kCompat), test::in_locale("C", test::data_dir()));
  ASSERT_EQ(r.exit_code, 2) << r.err;  // errors found
  EXPECT_TRUE(test::matches_golden(test::golden_path("compat/k80_old_driver.zh_CN.txt"), r.out));
  // LANG chooses Chinese as --lang does.
  EXPECT_EQ(test::run_tfrig(kCompat, test::in_locale("zh_CN.UTF-8", test::data_dir())).out, r.out);
}

TEST(KnowledgeI18n, ChineseCompatColumnsAlignByDisplayWidth) {
  // One line a check (wide enough that no reason wraps): the columns are measured.
  test::RunOptions wide = test::in_locale("C", test::data_dir());
  wide.env.push_back("COLUMNS=1000");
  auto text = test::run_tfrig(test::with_zh_lang(kCompat), wide).out;
  auto json = nlohmann::json::parse(test::run_tfrig(test::with_zh_lang({"compat", "--format", "json", "--only-given", "--tf", "2.15", "--driver",
                                                               "470.82", "--gpu", "Tesla K80", "--python", "3.12", "--cuda", "11.4",
                                                               "--cudnn", "8.2"}),
                                                     test::in_locale("C", test::data_dir()))
                                        .out);
  ASSERT_GE(json["checks"].size(), 5u);
  std::vector<size_t> columns;
  for (const auto& c : json["checks"]) {
    const std::string reason = c["reason"];
    EXPECT_NE(core::display_width(reason), reason.size()) << "not translated: " << reason;
    for (auto line : core::split_lines(text)) {
      const auto at = line.find(reason);
      if (at != std::string_view::npos) columns.push_back(core::display_width(line.substr(0, at)));
    }
  }
  ASSERT_EQ(columns.size(), json["checks"].size()) << text;
  for (size_t col : columns) EXPECT_EQ(col, columns.front()) << text;
}

TEST(KnowledgeI18n, ChineseExplainMatchesTheReviewedGolden) {
  auto r = test::run_tfrig(test::with_zh_lang(kExplain), test::in_locale("C", test::data_dir()));
  ASSERT_EQ(r.exit_code, 2) << r.err;  // errors found
  EXPECT_TRUE(test::matches_golden(test::golden_path("explain/tf-8526-driver-insufficient.zh_CN.txt"), r.out));
  EXPECT_EQ(test::run_tfrig(kExplain, test::in_locale("zh_CN.UTF-8", test::data_dir())).out, r.out);
  // The English words of the signature are gone: its meaning and fix come from the catalog.
  EXPECT_EQ(r.out.find("The NVIDIA driver is older than"), std::string::npos);
  EXPECT_NE(r.out.find("NVIDIA 驱动比 TensorFlow"), std::string::npos);
}

TEST(KnowledgeI18n, ChineseExplainOfUnrecognisedLinesAndNoise) {
  auto r = test::run_tfrig(test::with_zh_lang({"explain", "--color", "never", "logs/relernn-63-noise.log"}), test::in_locale("C", test::data_dir()));
  EXPECT_TRUE(test::matches_golden(test::golden_path("explain/relernn-63-noise.zh_CN.txt"), r.out));
}

// The files, counts and sources change with every data update: no golden,
// the words and the alignment are checked.
TEST(KnowledgeI18n, ChineseKnowledgeTableAlignsByDisplayWidth) {
  auto k = test::run_tfrig(test::with_zh_lang({"knowledge"}), test::in_locale("C", test::data_dir()));
  ASSERT_EQ(k.exit_code, 0) << k.err;
  EXPECT_EQ(k.out.rfind("tfrig 知识库\n", 0), 0u) << k.out;
  EXPECT_NE(k.out.find("已知最新的 TensorFlow："), std::string::npos) << k.out;
  std::optional<size_t> origin_column;
  size_t rows = 0;
  for (auto line : core::split_lines(k.out)) {
    if (const auto at = line.find("来源位置"); at != std::string_view::npos) {
      EXPECT_NE(line.find("数据版本"), std::string_view::npos);
      origin_column = core::display_width(line.substr(0, at));
    } else if (const auto cell = line.find("  内置"); cell != std::string_view::npos && origin_column) {
      EXPECT_EQ(core::display_width(line.substr(0, cell + 2)), *origin_column) << line;
      ++rows;
    }
  }
  ASSERT_TRUE(origin_column) << k.out;
  EXPECT_GE(rows, 9u) << k.out;
}

TEST(KnowledgeI18n, ChineseSignatureAndRuleLists) {
  auto list = test::run_tfrig(test::with_zh_lang({"explain", "--list"}), test::in_locale("C", test::data_dir()));
  ASSERT_EQ(list.exit_code, 0) << list.err;
  EXPECT_EQ(list.out.rfind("规则 id", 0), 0u) << list.out;
  EXPECT_NE(list.out.find("docs/explain.md 逐一解释。"), std::string::npos) << list.out;
  auto rules = test::run_tfrig(test::with_zh_lang({"rules"}), test::in_locale("C", test::data_dir()));
  ASSERT_EQ(rules.exit_code, 0) << rules.err;
  EXPECT_NE(rules.out.find("严重程度"), std::string::npos) << rules.out;
  EXPECT_NE(rules.out.find("`tfrig doctor --explain ID` 解释其中一条。"), std::string::npos) << rules.out;
}

// JSON is read by programs: English whatever the locale, unless --lang.
TEST(KnowledgeI18n, JsonIsIdenticalAcrossLocales) {
  std::vector<std::vector<std::string>> commands = {
      {"compat", "--format", "json", "--only-given", "--tf", "2.15", "--driver", "470.82", "--gpu", "Tesla K80"},
      {"compat", "--matrix", "--format", "json"},
      {"explain", "--format", "json", "--snapshot", "snapshots/gpu_box_two_a100_old_driver.json", "logs/tf-8526-driver-insufficient.log"},
      {"knowledge", "--format", "json"},
  };
  for (const auto& args : commands) {
    auto en = test::run_tfrig(args, test::in_locale("C", test::data_dir()));
    auto zh = test::run_tfrig(args, test::in_locale("zh_CN.UTF-8", test::data_dir()));
    EXPECT_EQ(zh.out, en.out) << args.front();
    EXPECT_EQ(zh.exit_code, en.exit_code) << args.front();
    EXPECT_TRUE(nlohmann::json::accept(en.out)) << args.front();
  }
  // With --lang the prose is Chinese and the ids stay.
  auto zh = nlohmann::json::parse(test::run_tfrig(test::with_zh_lang(commands[0]), test::in_locale("C", test::data_dir())).out);
  EXPECT_EQ(zh["verdict"], "no");
  EXPECT_EQ(zh["checks"][0]["part"], "tf");
  EXPECT_NE(zh["checks"][0]["reason"].get<std::string>().find("构建和测试"), std::string::npos);
}

TEST(KnowledgeI18n, ChineseErrorsOfExplain) {
  auto r = test::run_tfrig(test::with_zh_lang({"explain", "a.log", "b.log"}), test::in_locale("C", test::data_dir()));
  EXPECT_EQ(r.exit_code, 64);
  EXPECT_NE(r.err.find("只能给一个日志文件"), std::string::npos) << r.err;
}

// The Xid table's meaning and action are translated where doctor looks them up.
TEST(KnowledgeI18n, XidTextsFollowTheLanguage) {
  const auto en = knowledge::xid_info(79);
  ASSERT_TRUE(en);
  EXPECT_EQ(en->meaning, "GPU has fallen off the bus (it no longer answers on PCIe)");
  core::i18n::set_language("zh_CN");
  const auto zh = knowledge::xid_info(79);
  const std::string cls = knowledge::xid_class_name(knowledge::XidClass::kBus);
  core::i18n::set_language("en");
  ASSERT_TRUE(zh);
  EXPECT_EQ(zh->meaning, "GPU 已从总线上掉线（在 PCIe 上不再响应）");
  EXPECT_NE(zh->action.find("返修（RMA）"), std::string_view::npos);
  EXPECT_EQ(cls, "PCIe 总线");
  EXPECT_EQ(knowledge::xid_class_name(knowledge::XidClass::kBus), "PCIe bus");

  auto r = test::run_tfrig(test::with_zh_lang({"doctor", "--color", "never", "--from", "nvidia-bug-report/blacksoil__BashCommands.log.gz"}),
                           test::in_locale("C", test::data_dir()));
  EXPECT_NE(r.out.find("GPU 已从总线上掉线"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("重启以恢复 GPU"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace tfrig

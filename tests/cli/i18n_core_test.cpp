// The Chinese interface outside the commands' own reports: `fleet`, the help
// (goldens, read as a Chinese engineer would), CLI11's parse errors, the log
// prefixes, and the errors of core (files, sizes) and of snapshot JSON.
// Every English text here is checked to be what it was before translation.
#include <set>

#include <CLI/CLI.hpp>
#include <gtest/gtest.h>

#include "cli/lang.h"
#include "cli/validate.h"
#include "core/display_width.h"
#include "core/i18n.h"
#include "core/text.h"
#include "core/units.h"
#include "golden.h"
#include "inventory/json_error.h"
#include "test_support.h"

namespace tfrig {
namespace {

// Every locale variable set, so the caller's own environment never decides.
test::RunOptions in_locale(const std::string& lang) {
  test::RunOptions o;
  o.cwd = test::data_dir();
  o.env = {"LANGUAGE=", "LC_ALL=", "LC_MESSAGES=", "LANG=" + lang, "NO_COLOR=1"};
  return o;
}

test::RunOptions chinese() { return in_locale("zh_CN.UTF-8"); }
test::RunOptions english() { return in_locale("C.UTF-8"); }

// The version in a heading changes with every release, not with the language.
std::string without_version(std::string text) { return test::replace_all(std::move(text), TFRIG_VERSION, "<VERSION>"); }

// Switches the in-process language for one test.
struct Speaking {
  explicit Speaking(const char* language) { core::i18n::set_language(language); }
  ~Speaking() { core::i18n::set_language("en"); }
};

// ---- fleet ----

TEST(I18nFleet, ChineseReportMatchesTheReviewedGoldenAndEnglishIsUnchanged) {
  auto zh = test::run_tfrig({"fleet", "--color", "never", "snapshots"}, chinese());
  auto en = test::run_tfrig({"fleet", "--color", "never", "snapshots"}, english());
  EXPECT_EQ(zh.exit_code, en.exit_code) << zh.err;
  EXPECT_EQ(zh.exit_code, 2);  // an old driver is an error on two nodes
  EXPECT_TRUE(test::matches_golden(test::golden_path("fleet/snapshots.zh_CN.txt"), without_version(zh.out)));
  EXPECT_TRUE(test::matches_golden(test::golden_path("fleet/snapshots.txt"), without_version(en.out)));
  // Ids, rule ids, fact values and node names stay as they are.
  for (const char* kept : {"driver.too_old_for_cuda", "gpu.pcie_link[gpu0]", "gen4 x16", "eight_quadro_rtx5000", "1. "}) {
    EXPECT_NE(zh.out.find(kept), std::string::npos) << kept;
  }
  for (const char* words : {"配置漂移", "全集群的问题", "离群节点", "修复："}) EXPECT_NE(zh.out.find(words), std::string::npos) << words;
  // The findings' columns line up by display width: the rule id starts in
  // one column whatever the severity's words.
  std::set<size_t> rule_columns;
  for (auto line : core::split_lines(zh.out)) {
    for (const char* sev : {"  错误 ", "  警告 ", "  提示 "}) {
      if (line.rfind(sev, 0) != 0) continue;
      const size_t slash = line.find(" / ");
      ASSERT_NE(slash, std::string_view::npos) << line;
      const size_t rule = line.find_first_not_of(' ', slash + 3);
      const size_t after_total = line.find(' ', rule);
      rule_columns.insert(core::display_width(line.substr(0, line.find_first_not_of(' ', after_total))));
    }
  }
  EXPECT_EQ(rule_columns.size(), 1u);
}

TEST(I18nFleet, JsonIsByteIdenticalAcrossLocalesUnlessLangIsGiven) {
  auto en = test::run_tfrig({"fleet", "--format", "json", "snapshots"}, english());
  auto zh = test::run_tfrig({"fleet", "--format", "json", "snapshots"}, chinese());
  ASSERT_FALSE(en.out.empty()) << en.err;
  EXPECT_EQ(zh.out, en.out);
  auto lang = test::run_tfrig({"--lang", "zh_CN", "fleet", "--format", "json", "snapshots"}, english());
  EXPECT_NE(lang.out, en.out);
  EXPECT_NE(lang.out.find("\"title\":\"NVIDIA 驱动\""), std::string::npos) << lang.out;
  EXPECT_NE(lang.out.find("\"fact\":\"driver.version\""), std::string::npos);  // ids stay
}

TEST(I18nFleet, ErrorsAndLogLinesAreChinese) {
  test::TempDir dir;
  test::write_file(dir.file("good.json"), test::read_file(test::data_dir() + "/snapshots/cpu_box_cuda13.json"));
  test::write_file(dir.file("broken.json"), "{\"schema_version\": \"one\"}");
  auto r = test::run_tfrig({"fleet", "--color", "never", dir.path()}, chinese());
  EXPECT_NE(r.err.find("tfrig: 警告：" + dir.file("broken.json") + ": /schema_version: 缺失；应为整数（这是 tfrig 快照吗？）"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.out.find("无法读取\n  broken: "), std::string::npos) << r.out;
  auto missing = test::run_tfrig({"fleet", dir.file("none")}, chinese());
  EXPECT_EQ(missing.exit_code, 66);
  EXPECT_EQ(missing.err, "tfrig: 错误：" + dir.file("none") + ": 没有该文件或目录\n");
  auto english_missing = test::run_tfrig({"fleet", dir.file("none")}, english());
  EXPECT_EQ(english_missing.err, "tfrig: error: " + dir.file("none") + ": no such file or directory\n");
}

// ---- help ----

// Where the description column starts on each "  NAME   description" line.
void expect_descriptions_aligned(const std::string& help) {
  for (auto line : core::split_lines(help)) {
    if (line.rfind("  ", 0) != 0 || line.size() < 32) continue;
    const size_t gap = line.find("  ", 2);
    if (gap == std::string_view::npos) continue;
    const size_t desc = line.find_first_not_of(' ', gap);
    if (desc == std::string_view::npos) continue;
    EXPECT_EQ(core::display_width(line.substr(0, desc)), 30u) << line;
  }
}

TEST(I18nHelp, ChineseHelpMatchesTheReviewedGoldens) {
  struct Case {
    std::vector<std::string> args;
    const char* golden;
  };
  for (const auto& c : {Case{{"--help"}, "help/tfrig.zh_CN.txt"}, Case{{"doctor", "--help"}, "help/doctor.zh_CN.txt"},
                        Case{{"plan", "--help"}, "help/plan.zh_CN.txt"}, Case{{"fleet", "--help"}, "help/fleet.zh_CN.txt"}}) {
    SCOPED_TRACE(c.golden);
    auto r = test::run_tfrig(c.args, chinese());
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(test::matches_golden(test::golden_path(c.golden), r.out));
    expect_descriptions_aligned(r.out);
    EXPECT_EQ(r.out.find("Usage"), std::string::npos);
    EXPECT_NE(r.out.find("用法："), std::string::npos);
    // Wrapped Chinese stays within 100 columns (a long option name may not).
    for (auto line : core::split_lines(r.out)) {
      if (line.rfind("                              ", 0) == 0) {
        EXPECT_LE(core::display_width(line), 100u) << line;
      }
    }
  }
  // fleet's required positional has "必需" in its name column: still aligned.
  auto fleet = test::run_tfrig({"fleet", "--help"}, chinese());
  EXPECT_NE(fleet.out.find("必需"), std::string::npos);
}

TEST(I18nHelp, EnglishHelpIsCli11sOwnLayout) {
  auto r = test::run_tfrig({"fleet", "--help"}, english());
  EXPECT_NE(r.out.find("\nUsage: tfrig fleet [OPTIONS] INPUT...\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\nPositionals:\n  INPUT FILE|DIR ... REQUIRED Snapshots"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\nOptions:\n  -h,--help                   Print this help message and exit\n"), std::string::npos);
}

// ---- CLI11's parse errors ----

TEST(I18nParseErrors, ChineseNamesTheOptionAndTheValueEnglishIsCli11sText) {
  struct Case {
    std::vector<std::string> args;
    const char* english;  // whole stderr
    const char* chinese;  // first line of stderr
  };
  const Case cases[] = {
      {{}, "A subcommand is required\n", "tfrig: 缺少命令（'tfrig --help' 列出所有命令）"},
      {{"doctor", "--bogus"}, "The following argument was not expected: --bogus\n", "tfrig: 未知选项：--bogus"},
      {{"doctor", "--formt", "json"}, "The following arguments were not expected: json --formt\n", "tfrig: 未知选项：--formt"},
      {{"doctor", "one", "two"}, "The following arguments were not expected: two one\n", "tfrig: 多余的参数：one two"},
      {{"doctor", "--fail-on", "x"}, "--fail-on: x not in {error,warning,info,never}\n",
       "tfrig: 选项 --fail-on 的值 'x' 无效，可选值：error, warning, info, never"},
      {{"plan", "--gpus", "abc"}, "--gpus: Value abc not in range 1 to 100000\n",
       "tfrig: 选项 --gpus 的值 'abc' 无效：应为 1 到 100000 之间的数"},
      {{"plan", "--gpus"}, "--gpus: 1 required INT:INT in [1 - 100000] missing\n", "tfrig: 选项 --gpus 缺少值"},
      {{"fleet"}, "INPUT is required\n", "tfrig: 缺少必需的参数 INPUT"},
      {{"doctor", "--snapshot", "a.json", "--from", "b"}, "--snapshot excludes --from\n",
       "tfrig: --snapshot 不能与 --from 同时使用"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.english);
    auto en = test::run_tfrig(c.args, english());
    EXPECT_EQ(en.exit_code, 64);
    EXPECT_EQ(en.err, std::string(c.english) + "Run with --help for more information.\n");
    auto zh = test::run_tfrig(c.args, chinese());
    EXPECT_EQ(zh.exit_code, 64);
    const auto lines = core::split_lines(zh.err);
    ASSERT_GE(lines.size(), 2u) << zh.err;
    EXPECT_EQ(lines[0], c.chinese);
    EXPECT_NE(lines.back().find("--help' 查看用法。"), std::string_view::npos) << lines.back();
  }
  // An unknown option gets the nearest real one, as an unknown command does.
  auto typo = test::run_tfrig({"doctor", "--formt", "json"}, chinese());
  EXPECT_EQ(typo.err, "tfrig: 未知选项：--formt\n你是想用 --format 吗？\n运行 'tfrig doctor --help' 查看用法。\n");
  // A JSON command's parse error is still in the reader's language.
  auto json = test::run_tfrig({"doctor", "--format", "json", "--deadline", "x"}, chinese());
  EXPECT_EQ(json.exit_code, 64);
  EXPECT_NE(json.err.find("--deadline"), std::string::npos);
  EXPECT_NE(json.err.find("查看用法"), std::string::npos) << json.err;
}

// Each form of CLI11's parse errors becomes tfrig's message from the error's
// type, CLI11's parsed state and what tfrig's validators recorded; none is
// read back from CLI11's English text (a ValidationError whose text says
// something else still gets tfrig's message).
TEST(I18nParseErrors, EachFormIsToldFromTheParsedStateNotFromCli11sText) {
  Speaking zh("zh_CN");
  auto message_for = [](std::vector<std::string> args) -> std::string {
    CLI::App app{"test", "tfrig"};
    app.require_subcommand(1);
    app.fallthrough();
    CLI::App* plan = app.add_subcommand("plan", "plan");
    std::string model, family, format;
    double kwh = 0;
    uint64_t gpus = 1, jobs = 0;
    std::vector<std::string> inputs;
    bool xla = false;
    plan->add_option("--kwh", kwh)->check(cli::in_range(0.0, 100.0));
    plan->add_option("--gpus", gpus)->check(cli::in_range(uint64_t{1}, uint64_t{100000}));
    plan->add_option("--jobs", jobs)->check(cli::whole_in(0, 256));
    plan->add_option("--format", format)->check(cli::one_of({"text", "json"}));
    auto* params = plan->add_option("--params", model);
    plan->add_option("--family", family);
    params->needs("--family");
    plan->add_option("--snapshot", family)->excludes("--format");
    plan->add_flag("--xla", xla);
    CLI::App* fleet = app.add_subcommand("fleet", "fleet");
    fleet->add_option("INPUT", inputs)->required();
    cli::record_refusals(app);
    std::vector<const char*> argv{"tfrig"};
    for (const auto& a : args) argv.push_back(a.c_str());
    try {
      app.parse(static_cast<int>(argv.size()), argv.data());
    } catch (const CLI::ParseError& e) {
      return core::render(cli::parse_error_text(app, e), "zh_CN");
    }
    return "parsed";
  };
  EXPECT_EQ(message_for({"plan", "--kwh=-1"}), "选项 --kwh 的值 '-1' 无效：应为 0 到 100 之间的数");
  EXPECT_EQ(message_for({"plan", "--gpus", "abc"}), "选项 --gpus 的值 'abc' 无效：应为 1 到 100000 之间的数");
  EXPECT_EQ(message_for({"plan", "--format", "xml"}), "选项 --format 的值 'xml' 无效，可选值：text, json");
  EXPECT_EQ(message_for({"plan", "--jobs", "many"}).rfind("选项 --jobs", 0), 0u) << message_for({"plan", "--jobs", "many"});
  EXPECT_EQ(message_for({"plan", "--xla=maybe"}), "选项 --xla 不接受值");
  EXPECT_EQ(message_for({"fleet"}), "缺少必需的参数 INPUT");
  EXPECT_EQ(message_for({}), "缺少命令（'tfrig --help' 列出所有命令）");
  EXPECT_EQ(message_for({"plan", "--params", "7"}), "使用 --params 时还需要给出 --family");
  // The first option (in the order defined) that excludes another given one, as CLI11 checks them.
  EXPECT_EQ(message_for({"plan", "--snapshot", "a", "--format", "json"}), "--format 不能与 --snapshot 同时使用");
  // Extras in the order given (CLI11's text lists them last first).
  EXPECT_EQ(message_for({"plan", "--b", "--a"}), "未知选项：--b --a");
  EXPECT_EQ(message_for({"plan", "one", "two"}), "多余的参数：one two");
  // An error CLI11 raised of a form none of that explains: its words in a translated frame.
  CLI::App bare{"test", "tfrig"};
  EXPECT_EQ(core::render(cli::parse_error_text(bare, CLI::HorribleError("something odd")), "zh_CN"), "命令行参数有误：something odd");
}

// ---- core and snapshot errors, log prefixes ----

TEST(I18nCoreErrors, FileAndSnapshotErrorsNameThePathAndWhatWasExpected) {
  test::TempDir dir;
  test::write_file(dir.file("type.json"), R"({"schema_version": 1, "inventory": {"host": {"hostname": 5}}})");
  test::write_file(dir.file("limit.json"), R"({"schema_version": 1, "inventory": {"limits": {"nofile": {"soft": -1}}}})");
  test::write_file(dir.file("cut.json"), "[");
  struct Case {
    std::string file;
    std::string english;
    std::string chinese;
  };
  const Case cases[] = {
      {dir.file("type.json"), "[json.exception.type_error.302] (/inventory/host/hostname) type must be string, but is number",
       "/inventory/host/hostname：类型应为 string，实际是 number（[json.exception.type_error.302]）"},
      {dir.file("limit.json"),
       "[json.exception.type_error.302] (/inventory/limits/nofile/soft) expected a non-negative integer or \"unlimited\", got -1",
       "/inventory/limits/nofile/soft：应为非负整数或 \"unlimited\"，实际是 -1（[json.exception.type_error.302]）"},
      {dir.file("cut.json"), "byte 2: not valid JSON: ", "第 2 字节: 不是有效的 JSON：[json.exception.parse_error.101]"},
      {dir.file("missing.json"), "open failed: No such file or directory", "打开失败：没有该文件或目录"},
      {dir.path(), "is a directory, expected a file", "是一个目录，应为文件"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.file);
    auto en = test::run_tfrig({"doctor", "--snapshot", c.file}, english());
    auto zh = test::run_tfrig({"doctor", "--snapshot", c.file}, chinese());
    EXPECT_EQ(en.exit_code, zh.exit_code);
    EXPECT_EQ(en.err.rfind("tfrig: error: " + c.file + ": " + c.english, 0), 0u) << en.err;
    EXPECT_EQ(zh.err.rfind("tfrig: 错误：" + c.file + ": " + c.chinese, 0), 0u) << zh.err;
  }
}

TEST(I18nCoreErrors, JsonErrorTextIsTheLibrarysInEnglishAndTranslatedWithThePathKept) {
  const std::string what = "[json.exception.type_error.302] (/inventory/gpus/0/index) expected a whole number from 0 to 2147483647, got -1";
  EXPECT_EQ(inventory::json_error_text(what), what);
  EXPECT_EQ(inventory::json_error_text("not nlohmann's form"), "not nlohmann's form");
  Speaking zh("zh_CN");
  EXPECT_EQ(inventory::json_error_text(what),
            "/inventory/gpus/0/index：应为 0 到 2147483647 之间的整数，实际是 -1（[json.exception.type_error.302]）");
  EXPECT_EQ(inventory::json_error_text("[json.exception.out_of_range.403] (/inventory) key 'soft' not found"),
            "/inventory：缺少键 'soft'（[json.exception.out_of_range.403]）");
  // A form not known stays as the library wrote it.
  const std::string other = "[json.exception.type_error.304] (/x) cannot use at() with string";
  EXPECT_EQ(inventory::json_error_text(other), other);
}

TEST(I18nCoreErrors, SizesAndWritesInChinese) {
  {
    Speaking zh("zh_CN");
    EXPECT_EQ(core::parse_size("5XB").error().message, "未知的大小单位 'xb'（可用 B、kB、MB、GB、TB、KiB、MiB、GiB、TiB）");
  }
  EXPECT_EQ(core::parse_size("5XB").error().message, "unknown size unit 'xb' (use B, kB, MB, GB, TB, KiB, MiB, GiB, TiB)");
  test::TempDir dir;
  auto zh = test::run_tfrig({"fleet", "snapshots", "-o", dir.file("no/such/dir/out.txt")}, chinese());
  EXPECT_EQ(zh.exit_code, 73);
  EXPECT_NE(zh.err.find("tfrig: 错误：无法写入 " + dir.file("no/such/dir/out.txt") + ": 无法创建用于写入的临时文件：没有该文件或目录"),
            std::string::npos)
      << zh.err;
  auto en = test::run_tfrig({"fleet", "snapshots", "-o", dir.file("no/such/dir/out.txt")}, english());
  EXPECT_NE(en.err.find("tfrig: error: cannot write " + dir.file("no/such/dir/out.txt") +
                        ": cannot create the temporary file to write it: No such file or directory"),
            std::string::npos)
      << en.err;
}

}  // namespace
}  // namespace tfrig

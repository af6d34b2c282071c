// Smaller holes found by trying tfrig as a hostile sender would (issue 27,
// item 6): each case failed on the code before its fix.
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <regex>
#include <string>
#include <system_error>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/atomic_file.h"
#include "core/errno_text.h"
#include "core/i18n.h"
#include "inventory/inventory.h"
#include "knowledge/knowledge.h"
#include "pipeline/demand.h"
#include "plan/catalog_adapter.h"
#include "test_support.h"

namespace tfrig {
namespace {

// The repository's data/knowledge, next to tests/data.
std::string knowledge_file(const std::string& name) { return test::data_dir() + "/../../data/knowledge/" + name; }

TEST(OptionHoles, KnowledgeFieldOfTheWrongTypeIsBadDataNamingFileAndField) {
  test::TempDir dir;
  auto doc = nlohmann::json::parse(test::read_file(knowledge_file("plan_measurements.json")));
  doc["throughput"][0]["xla"] = "yes";
  test::write_file(dir.file("plan_measurements.json"), doc.dump());
  auto r = test::run_tfrig({"--knowledge", dir.path(), "plan", "--model", "resnet50"});
  EXPECT_EQ(r.exit_code, 65) << r.err;  // was 70 (an uncaught json::type_error)
  EXPECT_NE(r.err.find(dir.file("plan_measurements.json")), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("throughput[0].xla"), std::string::npos) << r.err;
}

TEST(OptionHoles, KnowledgeDirWithOnlyLogSignaturesIsAccepted) {
  // The documented way to ship new signatures: a folder with log_signatures.json alone.
  test::TempDir dir;
  test::write_file(dir.file("log_signatures.json"), test::read_file(knowledge_file("log_signatures.json")));
  auto r = test::run_tfrig({"--knowledge", dir.path(), "doctor", "--snapshot",
                            test::data_dir() + "/snapshots/cpu_box_cuda13.json", "--format", "json"});
  EXPECT_LT(r.exit_code, 64) << r.err;  // was 66
  // A folder holding nothing tfrig reads is still refused.
  test::TempDir empty;
  auto none = test::run_tfrig({"--knowledge", empty.path(), "doctor", "--snapshot",
                               test::data_dir() + "/snapshots/cpu_box_cuda13.json"});
  EXPECT_EQ(none.exit_code, 66) << none.err;
}

TEST(OptionHoles, NumericOptionsRefuseEmptyNegativeZeroAndHugeValues) {
  const std::vector<std::vector<std::string>> cases = {
      {"plan", "--model", "resnet50", "--top", "-1"},
      {"plan", "--model", "resnet50", "--top", "0"},
      {"plan", "--model", "resnet50", "--top", ""},
      {"plan", "--model", "resnet50", "--top", "99999999999999999999999"},
      {"plan", "--model", "resnet50", "--batch", ""},
      {"plan", "--model", "resnet50", "--sample-bytes", ""},
      {"plan", "--model", "resnet50", "--epochs", "1", "--deadline", ""},
      {"pack", "src", "-o", "out", "--label-offset", "9223372036854775807"},
      {"pack", "src", "-o", "out", "--label-offset", "-1"},
      {"pack", "src", "-o", "out", "--num-shards", "0"},
      {"pack", "src", "-o", "out", "-j", ""},
      {"verify", "x.tfrecord", "-j", "-1"},
      {"fleet", "x.json", "-j", "99999999999999999999"},
      {"doctor", "--deadline", ""},
  };
  const std::regex long_number("[0-9]{40,}");
  for (const auto& args : cases) {
    auto r = test::run_tfrig(args);
    std::string option;
    for (const auto& a : args) {
      if (a.rfind("-", 0) == 0 && a.size() > 1 && a != "-1") option = a;
    }
    EXPECT_EQ(r.exit_code, 64) << args[0] << " " << option << ": " << r.err;
    EXPECT_NE(r.err.find(option), std::string::npos) << option << ": " << r.err;
    EXPECT_FALSE(std::regex_search(r.err, long_number)) << option << ": " << r.err;  // not a 309-digit bound
  }
}

TEST(OptionHoles, OutputWithALongLegalNameIsWritten) {
  test::TempDir dir;
  for (size_t len : {240u, 250u, 255u}) {
    const std::string name = dir.file(std::string(len - 5, 'a') + ".json");
    auto r = test::run_tfrig({"plan", "--model", "resnet50", "--format", "json", "-o", name});
    EXPECT_EQ(r.exit_code, 0) << len << ": " << r.err;
    EXPECT_TRUE(test::path_exists(name)) << len;
  }
  // Nothing but the outputs is left in the folder (no temporary file).
  EXPECT_EQ(test::list_dir(dir.path()).size(), 3u);
  // The writer itself: a 255-byte name, and the temporary name fits NAME_MAX.
  const std::string direct = dir.file(std::string(255, 'b'));
  ASSERT_TRUE(core::write_file_atomic(direct, "x")) << direct;
  EXPECT_EQ(test::read_file(direct), "x");
}

TEST(OptionHoles, EmptyRootSaysNothingWasExamined) {
  test::TempDir root;
  test::RunOptions wide;  // the verdict on one line
  wide.env = {"COLUMNS=1000"};
  auto r = test::run_tfrig({"--root", root.path(), "doctor"}, wide);
  EXPECT_EQ(r.out.find("no problems found"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("nothing was examined"), std::string::npos) << r.out;
  auto j = test::run_tfrig({"--root", root.path(), "doctor", "--format", "json"});
  auto doc = nlohmann::json::parse(j.out);
  EXPECT_TRUE(doc["examined"].empty()) << doc["examined"].dump();
  EXPECT_NE(doc["verdict"].get<std::string>().find("nothing was examined"), std::string::npos) << doc["verdict"];
}

TEST(OptionHoles, PipelineGpuTakesTheNameNvidiaSmiPrints) {
  const auto catalog = plan::plan_gpus_from_catalog(knowledge::builtin());
  const plan::GpuCandidate* g = pipeline::find_gpu(catalog, "NVIDIA A100-SXM4-80GB");
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->id, "a100-sxm4-80gb");
  EXPECT_EQ(pipeline::find_gpu(catalog, "NVIDIA No Such Card 9000"), nullptr);
}

TEST(OptionHoles, AnUnknownGpuHintNamesACommandThatExists) {
  const auto catalog = plan::plan_gpus_from_catalog(knowledge::builtin());
  pipeline::DemandRequest req;
  req.gpu = "NVIDIA No Such Card 9000";
  req.samples_per_s = 100;
  auto d = pipeline::resolve_demand(req, inventory::Inventory{}, catalog);
  ASSERT_FALSE(d);
  EXPECT_EQ(d.error().message.find("tfrig knowledge gpus"), std::string::npos) << d.error().message;
  EXPECT_NE(d.error().message.find("tfrig plan --model resnet50 --all"), std::string::npos) << d.error().message;
  // ... and that command does list the catalog's GPUs.
  auto r = test::run_tfrig({"plan", "--model", "resnet50", "--all"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("A100"), std::string::npos);
}

TEST(OptionHoles, SystemErrorTextsAreChineseUnderZhCN) {
  core::i18n::set_language("zh_CN");
  for (int err : {ENOENT, EACCES, ENOSPC, EISDIR, ENOTDIR, EROFS, EEXIST, ENAMETOOLONG, EIO, ELOOP, EMFILE, ENOMEM, EPERM, EINVAL,
                  EXDEV, ENOTEMPTY, EFBIG}) {
    const std::string text = core::errno_text(err);
    EXPECT_NE(text, std::string(std::strerror(err))) << err;
    EXPECT_GT(static_cast<unsigned char>(text[0]), 0x7f) << err << ": " << text;  // a Chinese text, not English
  }
  EXPECT_EQ(core::error_code_text(std::make_error_code(std::errc::no_such_file_or_directory)), core::errno_text(ENOENT));
  core::i18n::set_language("en");
  EXPECT_EQ(core::errno_text(ENOMEM), std::string(std::strerror(ENOMEM)));
}

TEST(OptionHoles, PackOpenErrorIsChineseUnderZhCN) {
  test::TempDir dir;
  test::write_file(dir.file("list.csv"), "path,label\nmissing.jpg,cat\n");
  test::RunOptions o;
  o.env = {"LANGUAGE=", "LC_ALL=", "LC_MESSAGES=", "LANG=zh_CN.UTF-8"};
  auto r = test::run_tfrig({"pack", dir.file("list.csv"), "-o", dir.file("out"), "--on-error", "fail"}, o);
  EXPECT_NE(r.exit_code, 0);
  EXPECT_EQ(r.err.find("No such file or directory"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace tfrig

// A malformed knowledge file is rejected when it is loaded, with the file, the
// row and the field in the error (exit 65 from the CLI), instead of crashing a
// rule or compat later. One case per kind of defect; each starts from the
// shipped data/knowledge files and breaks one value.
#include <functional>
#include <map>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "knowledge/knowledge.h"
#include "test_support.h"

namespace tfrig::knowledge {
namespace {

using nlohmann::json;

std::string knowledge_dir() { return test::data_dir() + "/../../data/knowledge"; }

std::map<std::string, std::string> shipped_texts() {
  std::map<std::string, std::string> texts;
  for (const char* name : {"tf_builds.json", "tf_pip_extras.json", "cuda_drivers.json", "tf_libraries.json",
                           "tf_compute.json", "gpus.json", "thresholds.json", "setup.json", "plan_measurements.json"}) {
    texts[name] = test::read_file(knowledge_dir() + "/" + name);
  }
  return texts;
}

// Loads the shipped files with one of them edited; returns the error text
// ("" when it loaded).
std::string load_with(const std::string& file, const std::function<void(json&)>& edit) {
  auto texts = shipped_texts();
  json doc = json::parse(texts.at(file));
  edit(doc);
  texts[file] = doc.dump();
  auto k = Knowledge::from_texts(texts);
  if (k) return "";
  EXPECT_EQ(k.error().code, core::ErrorCode::kParse);
  return k.error().to_string();
}

TEST(KnowledgeValidation, ShippedFilesLoad) {
  auto k = Knowledge::from_texts(shipped_texts());
  ASSERT_TRUE(k) << k.error().to_string();
}

TEST(KnowledgeValidation, DriverMinimumThatIsNotAVersion) {
  const auto e = load_with("cuda_drivers.json", [](json& d) { d["minor_version_compatibility"][0]["min_linux"] = "R535"; });
  EXPECT_NE(e.find("cuda_drivers.json: minor_version_compatibility[0].min_linux"), std::string::npos) << e;
  EXPECT_NE(e.find("\"R535\""), std::string::npos) << e;
}

TEST(KnowledgeValidation, ToolkitDriverThatIsNotAVersion) {
  const auto e = load_with("cuda_drivers.json", [](json& d) { d["toolkits"][2]["min_linux"] = ">= 580"; });
  EXPECT_NE(e.find("cuda_drivers.json: toolkits[2].min_linux"), std::string::npos) << e;
}

TEST(KnowledgeValidation, ThresholdVersionFactInWords) {
  const auto e = load_with("thresholds.json", [](json& d) { d["facts"]["mixed_float16_min_cc"]["value"] = "seven"; });
  EXPECT_NE(e.find("thresholds.json: facts.mixed_float16_min_cc.value"), std::string::npos) << e;
}

TEST(KnowledgeValidation, ThresholdNumberFactAsText) {
  const auto e = load_with("thresholds.json", [](json& d) { d["facts"]["nofile_min"]["value"] = "lots"; });
  EXPECT_NE(e.find("thresholds.json: facts.nofile_min.value"), std::string::npos) << e;
  EXPECT_NE(e.find("expected a number"), std::string::npos) << e;
}

TEST(KnowledgeValidation, NightlyReleaseRow) {
  const auto e = load_with("tf_builds.json", [](json& d) {
    json row = d["rows"][0];
    row["tf"] = "nightly";
    d["rows"].insert(d["rows"].begin(), row);
  });
  EXPECT_NE(e.find("tf_builds.json: rows[0].tf"), std::string::npos) << e;
  EXPECT_NE(e.find("\"nightly\""), std::string::npos) << e;
}

TEST(KnowledgeValidation, VersionWithTheWrongType) {
  const auto e = load_with("tf_builds.json", [](json& d) { d["rows"][3]["cuda"] = 12; });
  EXPECT_NE(e.find("tf_builds.json: rows[3].cuda"), std::string::npos) << e;
}

TEST(KnowledgeValidation, MissingVersion) {
  const auto e = load_with("tf_builds.json", [](json& d) { d["rows"][1].erase("cudnn"); });
  EXPECT_NE(e.find("tf_builds.json: rows[1].cudnn"), std::string::npos) << e;
  EXPECT_NE(e.find("missing"), std::string::npos) << e;
}

TEST(KnowledgeValidation, PythonListItem) {
  const auto e = load_with("tf_builds.json", [](json& d) { d["rows"][0]["python"][1] = "three"; });
  EXPECT_NE(e.find("tf_builds.json: rows[0].python[1]"), std::string::npos) << e;
}

TEST(KnowledgeValidation, RowThatIsNotAnObject) {
  const auto e = load_with("tf_builds.json", [](json& d) { d["rows"][2] = "2.15.0"; });
  EXPECT_NE(e.find("tf_builds.json: rows[2]"), std::string::npos) << e;
  EXPECT_NE(e.find("expected an object"), std::string::npos) << e;
}

TEST(KnowledgeValidation, NoBuildRows) {
  const auto e = load_with("tf_builds.json", [](json& d) { d["rows"] = json::array(); });
  EXPECT_NE(e.find("tf_builds.json: rows"), std::string::npos) << e;
}

TEST(KnowledgeValidation, PipExtraRelease) {
  const auto e = load_with("tf_pip_extras.json", [](json& d) { d["rows"][0]["tf"] = "latest"; });
  EXPECT_NE(e.find("tf_pip_extras.json: rows[0].tf"), std::string::npos) << e;
}

TEST(KnowledgeValidation, PipExtraPinThatIsNotText) {
  const auto e = load_with("tf_pip_extras.json", [](json& d) {
    for (auto& r : d["rows"]) {
      if (r.contains("packages") && r["packages"].is_object() && !r["packages"].empty()) {
        r["packages"].begin().value() = 12;
        return;
      }
    }
  });
  EXPECT_NE(e.find("tf_pip_extras.json: rows["), std::string::npos) << e;
  EXPECT_NE(e.find("].packages."), std::string::npos) << e;
}

TEST(KnowledgeValidation, LibraryFamilyWithoutReleases) {
  const auto e = load_with("tf_libraries.json", [](json& d) { d["families"][0]["tf_versions"] = json::array(); });
  EXPECT_NE(e.find("tf_libraries.json: families[0].tf_versions"), std::string::npos) << e;
}

TEST(KnowledgeValidation, ComputeCapabilityListInBuildSyntax) {
  const auto e = load_with("tf_compute.json", [](json& d) {
    for (auto& r : d["rows"]) {
      if (r.contains("sass")) {
        r["sass"][0] = "sm_80";
        return;
      }
    }
  });
  EXPECT_NE(e.find(".sass[0]"), std::string::npos) << e;
  EXPECT_NE(e.find("\"sm_80\""), std::string::npos) << e;
}

TEST(KnowledgeValidation, MinimumCapability) {
  const auto e = load_with("tf_compute.json", [](json& d) { d["tf_min_capability"] = "Kepler"; });
  EXPECT_NE(e.find("tf_compute.json: tf_min_capability"), std::string::npos) << e;
}

TEST(KnowledgeValidation, GpuNumberAsText) {
  const auto e = load_with("gpus.json", [](json& d) { d["gpus"][4]["vram_gib"] = "24 GB"; });
  EXPECT_NE(e.find("gpus.json: gpus[4].vram_gib"), std::string::npos) << e;
}

TEST(KnowledgeValidation, GpuComputeCapability) {
  const auto e = load_with("gpus.json", [](json& d) { d["gpus"][0]["compute_capability"] = "Ampere"; });
  EXPECT_NE(e.find("gpus.json: gpus[0].compute_capability"), std::string::npos) << e;
}

TEST(KnowledgeValidation, GpuPciIdThatIsNotHex) {
  const auto e = load_with("gpus.json", [](json& d) { d["gpus"][1]["pci_device_ids"][0] = "RTX"; });
  EXPECT_NE(e.find("gpus.json: gpus[1].pci_device_ids[0]"), std::string::npos) << e;
}

TEST(KnowledgeValidation, CapabilityTableRow) {
  const auto e = load_with("gpus.json", [](json& d) { d["compute_capabilities"][5]["compute_capability"] = "?"; });
  EXPECT_NE(e.find("gpus.json: compute_capabilities[5].compute_capability"), std::string::npos) << e;
}

TEST(KnowledgeValidation, FlagThatIsNotABoolean) {
  const auto e = load_with("cuda_drivers.json", [](json& d) { d["minor_version_compatibility"][1]["uncertain"] = "no"; });
  EXPECT_NE(e.find("cuda_drivers.json: minor_version_compatibility[1].uncertain"), std::string::npos) << e;
}

// The CLI: a bad --knowledge file exits 65 naming file, row and field, for
// every command that loads the knowledge (these crashed before the check).
TEST(KnowledgeValidation, CliExits65NamingFileRowAndField) {
  struct Case {
    const char* file;
    std::function<void(json&)> edit;
    const char* field;
  };
  const Case cases[] = {
      {"cuda_drivers.json", [](json& d) { d["minor_version_compatibility"][0]["min_linux"] = "R535"; },
       "minor_version_compatibility[0].min_linux"},
      {"thresholds.json", [](json& d) { d["facts"]["mixed_float16_min_cc"]["value"] = "seven"; },
       "facts.mixed_float16_min_cc.value"},
      {"tf_builds.json",
       [](json& d) {
         json row = d["rows"][0];
         row["tf"] = "nightly";
         d["rows"].push_back(row);
       },
       ".tf"},
  };
  for (const auto& c : cases) {
    test::TempDir dir;
    json doc = json::parse(test::read_file(knowledge_dir() + "/" + c.file));
    c.edit(doc);
    test::write_file(dir.file(c.file), doc.dump(1));
    for (std::vector<std::string> args : {std::vector<std::string>{"compat", "--tf", "2.15", "--driver", "535.104.05"},
                                          std::vector<std::string>{"doctor", "--root", test::root_dir("debian12-vm")}}) {
      args.insert(args.begin(), {"--knowledge", dir.path()});
      auto r = test::run_tfrig(args);
      EXPECT_EQ(r.exit_code, 65) << c.file << " " << args[2] << "\n" << r.err;
      EXPECT_NE(r.err.find(dir.file(c.file)), std::string::npos) << r.err;
      EXPECT_NE(r.err.find(c.field), std::string::npos) << r.err;
    }
  }
}

}  // namespace
}  // namespace tfrig::knowledge

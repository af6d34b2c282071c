// The knowledge base: the embedded copy loads, every file is there with its
// sources, the lookups plan/compat/rules rely on answer from the tables, and
// --knowledge DIR replaces files.
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "test_paths.h"

#include "knowledge/knowledge.h"
#include "test_paths.h"

namespace tfrig::knowledge {
namespace {

using core::Version;

TEST(Knowledge, EmbeddedLoadsEveryFileWithSources) {
  auto k = Knowledge::embedded();
  ASSERT_TRUE(k) << k.error().to_string();
  EXPECT_EQ(k->files().size(), 9u);
  for (const auto& f : k->files()) {
    EXPECT_GT(f.rows, 0u) << f.name;
    EXPECT_FALSE(f.sources.empty()) << f.name;
    EXPECT_FALSE(f.schema.empty()) << f.name;
    EXPECT_EQ(f.origin, "embedded");
  }
}

TEST(Knowledge, EmbeddedCopyMatchesTheDataFiles) {
  // The build embeds data/knowledge/*.json; a stale build would differ.
  const std::filesystem::path dir = std::filesystem::path(TFRIG_TEST_DATA).parent_path().parent_path() / "data" / "knowledge";
  auto from_dir = Knowledge::with_overrides(dir.string());
  ASSERT_TRUE(from_dir) << from_dir.error().to_string();
  const auto& e = builtin();
  ASSERT_EQ(from_dir->files().size(), e.files().size());
  for (size_t i = 0; i < e.files().size(); ++i) EXPECT_EQ(from_dir->files()[i].rows, e.files()[i].rows) << e.files()[i].name;
}

TEST(Knowledge, TfBuildsNewestFirst) {
  const auto& k = builtin();
  ASSERT_NE(k.newest_tf(), nullptr);
  EXPECT_EQ(k.newest_tf()->tf, "2.21.0");
  const auto* b = k.find_tf_build(*Version::parse("2.16.2"));
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->tf, "2.16.1");
  EXPECT_EQ(b->cuda, "12.3");
  EXPECT_EQ(b->cudnn, "8.9");
  EXPECT_TRUE(b->supports_python(*Version::parse("3.12")));
  EXPECT_FALSE(b->supports_python(*Version::parse("3.13")));
  EXPECT_EQ(k.find_tf_build(*Version::parse("2.99")), nullptr);
}

TEST(Knowledge, MinimumDriverForCuda) {
  const auto& k = builtin();
  auto m12 = k.min_driver_for_cuda(*Version::parse("12.5"));
  ASSERT_TRUE(m12 && m12->min_linux);
  EXPECT_EQ(*m12->min_linux, "525.60.13");
  EXPECT_FALSE(m12->uncertain);
  auto m11 = k.min_driver_for_cuda(*Version::parse("11.2"));
  ASSERT_TRUE(m11 && m11->min_linux);
  EXPECT_EQ(*m11->min_linux, "450.80.02");
  auto m13 = k.min_driver_for_cuda(*Version::parse("13.0"));
  ASSERT_TRUE(m13 && m13->min_linux);
  EXPECT_TRUE(m13->uncertain);  // NVIDIA prints only ">= 580"
  auto m101 = k.min_driver_for_cuda(*Version::parse("10.1"));
  ASSERT_TRUE(m101 && m101->min_linux);
  EXPECT_EQ(*m101->min_linux, "418.39");
  EXPECT_FALSE(k.min_driver_for_cuda(*Version::parse("9.0")));
  EXPECT_EQ(k.newest_cuda_major_for_driver(*Version::parse("535.104.05")).value_or(""), "12");
  EXPECT_EQ(k.newest_cuda_major_for_driver(*Version::parse("470.82.01")).value_or(""), "11");
}

TEST(Knowledge, FindGpuByNameAliasAndPciId) {
  const auto& k = builtin();
  auto a100 = k.find_gpu("NVIDIA A100-SXM4-80GB");
  ASSERT_TRUE(a100 && a100->spec);
  EXPECT_EQ(a100->spec->id, "a100-sxm4-80gb");
  EXPECT_EQ(a100->compute_capability.value_or(""), "8.0");
  auto by_id = k.find_gpu("10de:20b2");
  ASSERT_TRUE(by_id && by_id->spec);
  EXPECT_EQ(by_id->spec->id, "a100-sxm4-80gb");
  auto k80 = k.find_gpu("Tesla K80");
  ASSERT_TRUE(k80);
  EXPECT_EQ(k80->spec, nullptr);  // only in NVIDIA's CC table
  EXPECT_EQ(k80->compute_capability.value_or(""), "3.7");
  auto rtx = k.find_gpu("rtx 4090");
  ASSERT_TRUE(rtx);
  EXPECT_EQ(rtx->compute_capability.value_or(""), "8.9");
  auto ada = k.find_gpu("NVIDIA RTX 6000 Ada Generation");
  ASSERT_TRUE(ada);
  EXPECT_EQ(ada->compute_capability.value_or(""), "8.9");
  EXPECT_FALSE(k.find_gpu("Voodoo 5 6000"));
  EXPECT_GE(k.gpus().size(), 40u);
}

TEST(Knowledge, KernelSupport) {
  const auto& k = builtin();
  auto v = [](const char* s) { return *Version::parse(s); };
  EXPECT_EQ(k.kernel_support(v("2.17.0"), v("8.6")).support, KernelSupport::kSass);  // sm_80 runs on 8.6
  EXPECT_EQ(k.kernel_support(v("2.17.0"), v("8.9")).detail, "sm_89 SASS");
  EXPECT_EQ(k.kernel_support(v("2.17.0"), v("12.0")).support, KernelSupport::kPtxJit);
  EXPECT_EQ(k.kernel_support(v("2.17.0"), v("5.2")).support, KernelSupport::kNone);
  EXPECT_EQ(k.kernel_support(v("2.17.0"), v("3.0")).support, KernelSupport::kBelowMinimum);
  EXPECT_EQ(k.kernel_support(v("2.14.0"), v("3.7")).support, KernelSupport::kSass);
  EXPECT_EQ(k.kernel_support(v("2.15.0"), v("3.7")).support, KernelSupport::kNone);
  EXPECT_TRUE(k.kernel_support(v("2.15.0"), v("7.5")).uncertain);
}

TEST(Knowledge, LibrariesTfLoads) {
  const auto& k = builtin();
  const auto* f = k.libraries_for(*Version::parse("2.18.0"));
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->soname("cudnn"), "libcudnn.so.9");
  EXPECT_EQ(f->soname("cudart"), "libcudart.so.12");
  const auto* old = k.libraries_for(*Version::parse("2.11.0"));
  ASSERT_NE(old, nullptr);
  EXPECT_EQ(old->soname("cudart"), "libcudart.so.11.0");
  EXPECT_EQ(k.registration_libraries(*Version::parse("2.13.0")).size(), 8u);  // curand still in the gate
  EXPECT_EQ(k.registration_libraries(*Version::parse("2.17.0")).size(), 7u);
}

TEST(Knowledge, PipExtrasAndFacts) {
  const auto& k = builtin();
  const auto* p = k.pip_extra_for(*Version::parse("2.19.0"));
  ASSERT_NE(p, nullptr);
  EXPECT_FALSE(p->uncertain);
  EXPECT_EQ(k.pip_extra_for(*Version::parse("2.12.0")), nullptr);
  EXPECT_EQ(k.number("ram_to_vram_ratio", 0), 2);
  EXPECT_EQ(k.number("nofile_min", 0), 65536);
  ASSERT_NE(k.fact("swappiness_max"), nullptr);
  EXPECT_TRUE(k.fact("swappiness_max")->uncertain);
}

TEST(Knowledge, OverrideDirReplacesOneFile) {
  const auto dir = std::filesystem::temp_directory_path() / "tfrig_knowledge_override_test";
  std::filesystem::create_directories(dir);
  {
    std::ofstream out(dir / "tf_builds.json");
    out << R"({"schema": "tfrig.knowledge.tf_builds/1", "data_version": "2027-01-01", "sources": [{"id": "test"}],
              "rows": [{"tf": "2.22.0", "python": ["3.11", "3.12"], "cuda": "12.8", "cudnn": "9.7", "source": "test"}]})";
  }
  auto k = Knowledge::with_overrides(dir.string());
  ASSERT_TRUE(k) << k.error().to_string();
  EXPECT_EQ(k->newest_tf()->tf, "2.22.0");
  EXPECT_NE(k->files()[0].origin, "embedded");
  EXPECT_GT(k->gpus().size(), 0u);  // the rest stays embedded
  {
    std::ofstream out(dir / "tf_builds.json");
    out << "{ not json";
  }
  auto bad = Knowledge::with_overrides(dir.string());
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().where.find("tf_builds.json"), std::string::npos);
  std::filesystem::remove_all(dir);
  EXPECT_FALSE(Knowledge::with_overrides((dir / "missing").string()));
}

}  // namespace
}  // namespace tfrig::knowledge

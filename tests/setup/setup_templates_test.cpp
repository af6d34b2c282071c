// The embedded templates (src/setup/templates/*.in): the binary holds the
// files as they are in the tree, each has the sections the renderers use,
// and no placeholder is left unfilled in any output of the grid.
#include <regex>

#include <gtest/gtest.h>

#include "setup/templates.h"
#include "setup_test_support.h"
#include "test_support.h"

namespace tfrig::setup::test {
namespace {

std::string templates_dir() { return tfrig::test::data_dir() + "/../../src/setup/templates"; }

std::set<std::string> section_names(const Template& t) {
  std::set<std::string> out;
  for (const auto& [name, text] : t.sections) out.insert(name);
  return out;
}

TEST(SetupTemplates, ParseSectionsAndDropNotes) {
  const Template t = parse_template("x", "#!/bin/sh\n#@# a note\necho a\n#@section two\necho b\n#@section empty\n");
  EXPECT_EQ(t.section("head"), "#!/bin/sh\necho a\n");
  EXPECT_EQ(t.section("two"), "echo b\n");
  EXPECT_EQ(t.section("empty"), "");
  EXPECT_EQ(section_names(t), (std::set<std::string>{"head", "two", "empty"}));
  EXPECT_EQ(t.section("missing"), "");
  // A file without a marker is one section.
  EXPECT_EQ(parse_template("y", "a\nb").section("head"), "a\nb");
}

TEST(SetupTemplates, EmbeddedCopiesMatchTheFiles) {
  const auto names = tfrig::test::list_dir(templates_dir());
  ASSERT_GE(names.size(), 9u);
  for (const auto& name : names) {
    const Template& embedded = setup_template(name);
    const Template on_disk = parse_template(name, tfrig::test::read_file(templates_dir() + "/" + name));
    EXPECT_EQ(embedded.sections, on_disk.sections) << name << " differs from the embedded copy: re-run cmake";
  }
}

TEST(SetupTemplates, HaveTheSectionsTheRenderersUse) {
  EXPECT_EQ(section_names(setup_template("install.sh.in")),
            (std::set<std::string>{"head", "venv", "globals", "preflight", "sources", "source_check",
                                   "sources_advice_default", "sources_advice_preset", "sources_end", "apt_mirror",
                                   "apt_rewrite", "apt_mirror_end", "nouveau", "cuda_repo", "cuda_repo_mirror", "driver",
                                   "driver_ubuntu_drivers", "driver_cuda_repo", "driver_end", "persistenced", "cuda",
                                   "python", "pip_index", "tensorflow", "docker", "registry_mirror", "container_toolkit",
                                   "swap", "limits", "governor", "verify", "verify_pip", "verify_image", "verify_end",
                                   "footer"}));
  EXPECT_EQ(section_names(setup_template("Dockerfile.in")), (std::set<std::string>{"head", "ngc", "official", "body", "pip_index", "pip_trusted_host", "tail"}));
  EXPECT_EQ(section_names(setup_template("compose.yaml.in")), (std::set<std::string>{"head", "registry_mirror", "top", "service"}));
  EXPECT_EQ(section_names(setup_template("tfrig.env.in")),
            (std::set<std::string>{"head", "malloc_async", "no_malloc_async", "tail", "hf_endpoint"}));
  EXPECT_EQ(section_names(setup_template("tuning.py.in")), (std::set<std::string>{"head", "planned", "unplanned", "body"}));
  EXPECT_EQ(section_names(setup_template("pip.conf.in")), (std::set<std::string>{"head", "trusted_host"}));
  for (const char* one : {"sysctl.conf.in", "limits.conf.in", "blacklist-nouveau.conf.in", "ld-cuda.conf.in", "daemon.json.in",
                          "condarc.in"}) {
    EXPECT_EQ(section_names(setup_template(one)), std::set<std::string>{"head"}) << one;
  }
}

// Every step of every plan has its section in install.sh.in.
TEST(SetupTemplates, EveryStepHasItsSection) {
  const Template& sh = setup_template("install.sh.in");
  for (const auto& c : cells()) {
    if (c.refused) continue;
    auto out = run_cell(c);
    ASSERT_TRUE(out.plan) << c.name;
    for (const auto& st : out.plan->steps) {
      EXPECT_TRUE(sh.sections.count(st.id)) << c.name << ": step " << st.id << " has no section";
      EXPECT_NE(sh.section(st.id).find("step_" + st.id + "() {"), std::string::npos) << st.id;
    }
  }
}

TEST(SetupTemplates, NoPlaceholderLeftInAnyOutput) {
  static const std::regex kPlaceholder("@[A-Z][A-Z0-9_]*@");
  for (const auto& c : cells()) {
    if (c.refused) continue;
    for (const auto& f : render_cell(c)) {
      std::smatch m;
      EXPECT_FALSE(std::regex_search(f.content, m, kPlaceholder)) << c.name << "/" << f.path << ": " << m.str();
    }
  }
}

}  // namespace
}  // namespace tfrig::setup::test

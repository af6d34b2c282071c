// Where `tfrig setup` downloads from: the --mirror preset and the single
// options over it, and that every URL any output names comes from the
// knowledge base (no network here: the URLs are only read).
#include <regex>

#include <gtest/gtest.h>

#include "knowledge/knowledge.h"
#include "setup_test_support.h"
#include "test_support.h"

namespace tfrig::setup::test {
namespace {

// Every URL in data/knowledge/*.json.
const std::vector<std::string>& knowledge_urls() {
  static const std::vector<std::string> kUrls = [] {
    static const std::regex kUrl(R"(https?://[^\s"'<>)]+)");
    std::vector<std::string> out;
    const std::string dir = tfrig::test::data_dir() + "/../../data/knowledge";
    for (const auto& name : tfrig::test::list_dir(dir)) {
      const std::string text = tfrig::test::read_file(dir + "/" + name);
      for (auto it = std::sregex_iterator(text.begin(), text.end(), kUrl); it != std::sregex_iterator(); ++it) {
        out.push_back(it->str());
      }
    }
    return out;
  }();
  return kUrls;
}

// A URL of an output is the knowledge base's when one there is a prefix of it
// ending at a path boundary (install.sh adds the OS folder and file names).
bool from_knowledge(const std::string& url) {
  for (std::string k : knowledge_urls()) {
    k = k.substr(0, k.find('#'));  // outputs' URLs are cut at '#' too
    while (!k.empty() && (k.back() == '/' || k.back() == '.' || k.back() == ',')) k.pop_back();
    if (url.compare(0, k.size(), k) != 0) continue;
    if (url.size() == k.size() || std::string_view("/#?_.").find(url[k.size()]) != std::string_view::npos) return true;
  }
  return false;
}

std::vector<std::string> urls_in(const std::string& text) {
  // A URL ends at a quote, bracket, a sed delimiter (#), markdown's ** or a backslash.
  static const std::regex kUrl(R"(https?://[^\s"'`<>)\]#*\\]+)");
  std::vector<std::string> out;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), kUrl); it != std::sregex_iterator(); ++it) {
    std::string u = it->str();
    while (!u.empty() && std::string_view(".,;:").find(u.back()) != std::string_view::npos) u.pop_back();
    if (u.find("://") + 3 == u.size()) continue;  // "https://" alone: a sed expression's text, not a URL
    out.push_back(u);
  }
  return out;
}

TEST(SetupSources, EveryUrlInEveryOutputIsFromTheKnowledgeBase) {
  ASSERT_GT(knowledge_urls().size(), 20u);
  size_t seen = 0;
  for (const auto& c : cells()) {
    if (c.refused) continue;
    auto out = run_cell(c);
    ASSERT_TRUE(out.plan) << c.name;
    auto files = render_all(*out.plan, knowledge::builtin());
    files.push_back({"PLAN.txt", plan_summary(*out.plan), 0644});
    for (const auto& f : files) {
      for (const auto& u : urls_in(f.content)) {
        ++seen;
        EXPECT_TRUE(from_knowledge(u)) << c.name << "/" << f.path << ": " << u << " is not in data/knowledge";
      }
    }
  }
  EXPECT_GT(seen, 500u);
}

TEST(SetupSources, PrefixMatchStopsAtAPathBoundary) {
  EXPECT_TRUE(from_knowledge("https://pypi.tuna.tsinghua.edu.cn/simple/pip/"));
  EXPECT_TRUE(from_knowledge("https://developer.download.nvidia.cn/compute/cuda/repos/ubuntu2204/x86_64/x.deb"));
  EXPECT_FALSE(from_knowledge("https://pypi.tuna.tsinghua.edu.cn/simplex"));
  EXPECT_FALSE(from_knowledge("https://mirror.example.invalid/ubuntu"));
}

MirrorOptions preset(const std::string& id) {
  MirrorOptions m;
  m.preset = id;
  return m;
}

PlanOutcome plan_with(const MirrorOptions& m, Method method = Method::kPip, const std::string& os = "ubuntu-22.04") {
  SetupOptions o;
  o.tf = {"2.17"};
  o.os = os;
  o.method = method;
  o.gpu = "cc:8.0";
  o.mirrors = m;
  auto out = make_setup_plan(knowledge::builtin(), nullptr, o);
  EXPECT_TRUE(out.has_value()) << (out ? "" : out.error().to_string());
  return out ? *out : PlanOutcome{};
}

bool has_step(const SetupPlan& p, const std::string& id) {
  for (const auto& s : p.steps) {
    if (s.id == id) return true;
  }
  return false;
}

const OutputFile* file(const std::vector<OutputFile>& files, const std::string& path) {
  for (const auto& f : files) {
    if (f.path == path) return &f;
  }
  return nullptr;
}

TEST(SetupSources, TheDefaultsChangeNothingInEtcApt) {
  auto out = plan_with({});
  ASSERT_TRUE(out.plan);
  const Sources& s = out.plan->sources;
  EXPECT_TRUE(s.apt_mirror.empty());
  EXPECT_TRUE(s.pip_index.empty());
  EXPECT_FALSE(has_step(*out.plan, "apt_mirror"));
  EXPECT_FALSE(has_step(*out.plan, "pip_index"));
  EXPECT_TRUE(has_step(*out.plan, "sources"));
  ASSERT_EQ(s.checks.size(), 1u);
  EXPECT_EQ(s.checks[0].url, "https://pypi.org/simple/pip/");
  EXPECT_FALSE(s.checks[0].mirror);
}

TEST(SetupSources, PresetCnPerOsAndArchitecture) {
  const auto& f = knowledge::builtin().setup();
  const auto* cn = f.find_preset("cn");
  ASSERT_NE(cn, nullptr);
  auto ubuntu = plan_with(preset("cn"));
  ASSERT_TRUE(ubuntu.plan);
  EXPECT_EQ(ubuntu.plan->sources.apt_mirror, "https://mirrors.tuna.tsinghua.edu.cn/ubuntu");
  EXPECT_EQ(ubuntu.plan->sources.pip_index, "https://pypi.tuna.tsinghua.edu.cn/simple");
  EXPECT_TRUE(has_step(*ubuntu.plan, "apt_mirror"));
  EXPECT_TRUE(has_step(*ubuntu.plan, "pip_index"));
  auto files = render_all(*ubuntu.plan, knowledge::builtin());
  ASSERT_NE(file(files, "pip.conf"), nullptr);
  EXPECT_NE(file(files, "pip.conf")->content.find("index-url = https://pypi.tuna.tsinghua.edu.cn/simple\n"),
            std::string::npos);
  // Debian (apt method): the driver and CUDA come from NVIDIA's repository, here its China host.
  auto debian = plan_with(preset("cn"), Method::kApt, "debian-12");
  ASSERT_TRUE(debian.plan);
  EXPECT_EQ(debian.plan->sources.apt_mirror, "https://mirrors.tuna.tsinghua.edu.cn/debian");
  EXPECT_EQ(debian.plan->sources.cuda_repo_base, "https://developer.download.nvidia.cn/compute/cuda/repos");
  EXPECT_TRUE(has_step(*debian.plan, "cuda_repo_mirror"));
  const std::string sh = render_install_sh(*debian.plan, knowledge::builtin());
  EXPECT_NE(sh.find("https://developer.download.nvidia.cn/compute/cuda/repos/debian12/x86_64/cuda-keyring_"),
            std::string::npos);
  EXPECT_EQ(sh.find("https://developer.download.nvidia.com/compute/cuda/repos/debian12"), std::string::npos);
  EXPECT_NE(sh.find("s#https://developer.download.nvidia.com/compute/cuda/repos#https://developer.download.nvidia.cn/"
                    "compute/cuda/repos#g"),
            std::string::npos);
}

TEST(SetupSources, PresetCnForContainersUsesTheToolkitMirrorAndSaysWhyNoDockerHubMirror) {
  auto out = plan_with(preset("cn"), Method::kContainer);
  ASSERT_TRUE(out.plan);
  const Sources& s = out.plan->sources;
  EXPECT_EQ(s.ctk_gpgkey_url, "https://mirrors.ustc.edu.cn/libnvidia-container/gpgkey");
  EXPECT_EQ(s.ctk_list_url, "https://mirrors.ustc.edu.cn/libnvidia-container/stable/deb/nvidia-container-toolkit.list");
  EXPECT_EQ(s.ctk_list_to,
            "deb [signed-by=/usr/share/keyrings/nvidia-container-toolkit-keyring.gpg] https://mirrors.ustc.edu.cn/libnvidia-container");
  EXPECT_TRUE(s.docker_registry_mirror.empty());
  bool note = false;
  for (const auto& n : out.plan->notes) note = note || n.find("--method ngc") != std::string::npos;
  EXPECT_TRUE(note) << "the plan says why there is no Docker Hub mirror";
  // The image's pip uses the mirror.
  const std::string dockerfile = render_dockerfile(*out.plan);
  EXPECT_NE(dockerfile.find("ENV PIP_INDEX_URL=https://pypi.tuna.tsinghua.edu.cn/simple\n"), std::string::npos);
  // No preset host is one the knowledge base calls unusable.
  for (const auto& u : knowledge::builtin().setup().unusable_docker_hub_mirrors) {
    for (const auto& f : render_all(*out.plan, knowledge::builtin())) {
      EXPECT_EQ(f.content.find(u.host), std::string::npos) << f.path << " names " << u.host;
    }
  }
}

TEST(SetupSources, SingleOptionsOverThePreset) {
  MirrorOptions m;
  m.preset = "cn";
  m.pip_index = "https://mirrors.aliyun.com/pypi/simple/";
  m.docker_registry = "https://registry.example.invalid";
  auto pip = plan_with(m);
  ASSERT_TRUE(pip.plan);
  EXPECT_EQ(pip.plan->sources.pip_index, "https://mirrors.aliyun.com/pypi/simple");  // the trailing / dropped
  EXPECT_EQ(pip.plan->sources.apt_mirror, "https://mirrors.tuna.tsinghua.edu.cn/ubuntu");
  EXPECT_TRUE(pip.plan->sources.docker_registry_mirror.empty()) << "no Docker for pip";
  auto container = plan_with(m, Method::kContainer);
  ASSERT_TRUE(container.plan);
  EXPECT_EQ(container.plan->sources.docker_registry_mirror, "https://registry.example.invalid");
  EXPECT_TRUE(has_step(*container.plan, "registry_mirror"));
  const auto files = render_all(*container.plan, knowledge::builtin());
  ASSERT_NE(file(files, "docker/daemon.json"), nullptr);
  EXPECT_EQ(file(files, "docker/daemon.json")->content, "{\n  \"registry-mirrors\": [\"https://registry.example.invalid\"]\n}\n");
  EXPECT_NE(file(files, "compose.yaml")->content.find("#   https://registry.example.invalid\n"), std::string::npos);
  bool checked = false;
  for (const auto& c : container.plan->sources.checks) {
    checked = checked || (c.url == "https://registry.example.invalid/v2/" && c.mirror);
  }
  EXPECT_TRUE(checked);
}

TEST(SetupSources, BadMirrorUrlsAreErrorsNamingTheOption) {
  SetupOptions o;
  o.tf = {"2.17"};
  o.os = "ubuntu-22.04";
  o.gpu = "cc:8.0";
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"--pip-index", "ftp://mirror/simple"},
      {"--pip-index", "https://mirror/simple; rm -rf /"},
      {"--apt-mirror", "https://mirror/ubuntu#x"},
      {"--apt-mirror", "https://mirror/$HOME"},
      {"--pip-index", "https://user@mirror/simple"},
  };
  for (const auto& [option, url] : bad) {
    SetupOptions bo = o;
    (option == "--pip-index" ? bo.mirrors.pip_index : bo.mirrors.apt) = url;
    auto out = make_setup_plan(knowledge::builtin(), nullptr, bo);
    ASSERT_FALSE(out.has_value()) << url;
    EXPECT_NE(out.error().to_string().find(option), std::string::npos) << out.error().to_string();
  }
  SetupOptions unknown = o;
  unknown.mirrors.preset = "mars";
  auto out = make_setup_plan(knowledge::builtin(), nullptr, unknown);
  ASSERT_FALSE(out.has_value());
  EXPECT_NE(out.error().to_string().find("known: cn"), std::string::npos) << out.error().to_string();
}

}  // namespace
}  // namespace tfrig::setup::test

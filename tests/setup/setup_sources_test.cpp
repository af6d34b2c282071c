// Where `tfrig setup` downloads from: the --mirror preset and the single
// options over it, and that every URL any output names comes from the
// knowledge base (no network here: the URLs are only read).
#include <fstream>
#include <regex>

#include <gtest/gtest.h>

#include "core/sysroot.h"
#include "knowledge/knowledge.h"
#include "probe/region.h"
#include "setup_test_support.h"
#include "test_support.h"

namespace tfrig::cli {
// src/cli/setup.cpp: the --mirror values the command line accepts.
extern const std::vector<std::string> kMirrorChoices;
}  // namespace tfrig::cli

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
  EXPECT_TRUE(s.images_from_ngc);
  bool note = false;
  for (const auto& n : out.plan->notes) note = note || n.find("--docker-registry-mirror") != std::string::npos;
  EXPECT_TRUE(note) << "the plan names --docker-registry-mirror for the official image";
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
  EXPECT_NE(out.error().to_string().find("known: tuna, cn, ustc"), std::string::npos) << out.error().to_string();
}

// --- mainland China presets (issue 31) ---

using tfrig::test::TempDir;

std::string all_text(const SetupPlan& p) {
  std::string s = plan_summary(p);
  for (const auto& f : render_all(p, knowledge::builtin())) s += "\n" + f.path + "\n" + f.content;
  return s;
}

// The names of Docker Hub a China preset's files may not hold without a registry mirror
// (`docker.io` alone is Debian's and Ubuntu's Docker engine package, not the registry).
const std::vector<std::string> kDockerHubNames = {"registry-1.docker.io", "index.docker.io", "docker.io/",
                                                  "tensorflow/tensorflow:"};

TEST(SetupSources, ContainersUnderEveryChinaPresetNeverNameDockerHubWithoutAMirror) {
  const auto& f = knowledge::builtin().setup();
  size_t presets = 0, plans = 0, refusals = 0;
  for (const auto& pr : f.mirror_presets) {
    if (!pr.china) continue;
    ++presets;
    for (const std::vector<std::string>& tf : std::vector<std::vector<std::string>>{{}, {"2.15"}, {"2.15", "2.17"}, {"2.19"}}) {
      SetupOptions o;
      o.tf = tf;
      o.os = "ubuntu-22.04";
      o.method = Method::kContainer;
      o.gpu = "cc:8.0";
      o.mirrors.preset = pr.id;
      auto out = make_setup_plan(knowledge::builtin(), nullptr, o);
      ASSERT_TRUE(out.has_value()) << pr.id << ": " << out.error().to_string();
      if (out->refusal) {
        ++refusals;
        const std::string text = refusal_text(*out->refusal);
        EXPECT_NE(text.find("--docker-registry-mirror"), std::string::npos) << pr.id << text;
        EXPECT_NE(text.find("--method pip"), std::string::npos) << pr.id << text;
        EXPECT_NE(text.find("mirror.aliyuncs.com"), std::string::npos) << "names the clouds' accelerators: " << text;
        for (const auto& name : kDockerHubNames) EXPECT_EQ(text.find(name), std::string::npos) << name << " in " << text;
        continue;
      }
      ++plans;
      const SetupPlan& p = *out->plan;
      const std::string text = all_text(p);
      if (p.sources.docker_registry_mirror.empty()) {
        for (const auto& t : p.tfs) EXPECT_EQ(t.image.rfind("nvcr.io/", 0), 0u) << pr.id << ": " << t.image;
        for (const auto& name : kDockerHubNames) EXPECT_EQ(text.find(name), std::string::npos) << pr.id << " names " << name;
        EXPECT_NE(text.find("--docker-registry-mirror"), std::string::npos) << pr.id << ": asked for by name";
      } else {
        // The preset's own registry mirror (Tencent Cloud's, inside its network): the official image through it.
        EXPECT_NE(text.find("\"registry-mirrors\": [\"" + p.sources.docker_registry_mirror + "\"]"), std::string::npos) << pr.id;
        for (const char* name : {"registry-1.docker.io", "index.docker.io"}) {
          EXPECT_EQ(text.find(name), std::string::npos) << pr.id << " names " << name;
        }
      }
    }
  }
  EXPECT_GE(presets, 8u);
  EXPECT_GT(plans, 0u);
  EXPECT_GT(refusals, 0u) << "TensorFlow 2.19 has no NGC image: refused without a registry mirror";
}

TEST(SetupSources, WithARegistryMirrorTheOfficialImageComesThroughIt) {
  MirrorOptions m = preset("cn");
  m.docker_registry = "https://abc123.mirror.aliyuncs.com";
  auto out = plan_with(m, Method::kContainer);
  ASSERT_TRUE(out.plan);
  EXPECT_FALSE(out.plan->sources.images_from_ngc);
  EXPECT_EQ(out.plan->tfs.front().image, "tensorflow/tensorflow:2.17.0-gpu");
  EXPECT_TRUE(has_step(*out.plan, "registry_mirror"));
  const auto files = render_all(*out.plan, knowledge::builtin());
  ASSERT_NE(file(files, "docker/daemon.json"), nullptr);
  EXPECT_NE(file(files, "docker/daemon.json")->content.find("https://abc123.mirror.aliyuncs.com"), std::string::npos);
  for (const auto& c : out.plan->sources.checks) EXPECT_EQ(c.url.find("registry-1.docker.io"), std::string::npos) << c.url;
}

TEST(SetupSources, InstallShAdviceUnderAPresetNamesWhatIsLeftNeverThePresetAgain) {
  const auto& k = knowledge::builtin();
  for (const auto& pr : k.setup().mirror_presets) {
    for (Method m : {Method::kPip, Method::kApt, Method::kContainer, Method::kNgc}) {
      auto out = plan_with(preset(pr.id), m, m == Method::kApt ? "debian-12" : "ubuntu-22.04");
      ASSERT_TRUE(out.plan) << pr.id;
      const std::string sh = render_install_sh(*out.plan, k);
      EXPECT_EQ(sh.find("tfrig setup --mirror"), std::string::npos) << pr.id << ": advises re-running what was just run";
      EXPECT_NE(sh.find("--docker-registry-mirror URL"), std::string::npos) << pr.id;
      EXPECT_NE(sh.find("--method pip"), std::string::npos) << pr.id;
      EXPECT_NE(sh.find("https://mirror.ccs.tencentyun.com"), std::string::npos) << pr.id;
    }
  }
  auto plain = plan_with({});
  ASSERT_TRUE(plain.plan);
  EXPECT_NE(render_install_sh(*plain.plan, k).find("tfrig setup --mirror auto"), std::string::npos);
}

TEST(SetupSources, EveryPresetHostIsOneDoctorRecognisesAndEveryRowHasItsSource) {
  const auto& f = knowledge::builtin().setup();
  auto recognised = [&](const std::string& host) {
    for (const auto& h : f.china.mirror_hosts) {
      if (host == h || (host.size() > h.size() && host.compare(host.size() - h.size() - 1, h.size() + 1, "." + h) == 0)) {
        return true;
      }
    }
    return false;
  };
  size_t urls = 0;
  for (const auto& pr : f.mirror_presets) {
    std::vector<const knowledge::SourceUrl*> all = {&pr.pip_index, &pr.conda, &pr.cuda_repo, &pr.container_toolkit,
                                                    &pr.docker_registry_mirror};
    for (const auto& a : pr.apt) {
      all.push_back(&a.url);
      all.push_back(&a.security);
    }
    for (const auto* u : all) {
      if (u->url.empty()) continue;
      ++urls;
      EXPECT_TRUE(recognised(probe::url_host(u->url))) << pr.id << ": " << u->url << " is not in mirrors.china.mirror_hosts";
      EXPECT_TRUE(f.source_urls.count(u->source)) << pr.id << ": " << u->url << " names no source row (" << u->source << ")";
    }
    EXPECT_FALSE(pr.pip_index.url.empty()) << pr.id;
    EXPECT_FALSE(pr.conda.url.empty()) << pr.id;
    EXPECT_EQ(pr.apt.size(), 3u) << pr.id << ": ubuntu, ubuntu-ports, debian";
  }
  EXPECT_GT(urls, 60u);
  EXPECT_TRUE(f.source_urls.count(f.china_downloads.hf_endpoint.source));
  EXPECT_TRUE(f.source_urls.count(f.china_downloads.keras_weights.source));
  EXPECT_TRUE(f.source_urls.count(f.china_downloads.tfds_source));
  EXPECT_TRUE(f.source_urls.count(f.china_downloads.gcs_source));
  for (const auto& u : f.unusable_docker_hub_mirrors) EXPECT_TRUE(f.source_urls.count(u.source)) << u.host;
}

TEST(SetupSources, TheCommandLineAcceptsEveryPresetAndNothingElse) {
  EXPECT_EQ(cli::kMirrorChoices, mirror_choices(knowledge::builtin().setup()));
}

TEST(SetupSources, DebianSecurityGoesThroughThePresetsMirrorToo) {
  auto out = plan_with(preset("ustc"), Method::kApt, "debian-12");
  ASSERT_TRUE(out.plan);
  const auto& rw = out.plan->sources.apt_rewrites;
  ASSERT_EQ(rw.size(), 2u);
  EXPECT_EQ(rw[1].mirror, "https://mirrors.ustc.edu.cn/debian-security");
  // The sed install.sh runs, on the lines Debian 12 writes (sources.list and the deb822 file of its images).
  TempDir tmp;
  const std::string list = tmp.file("sources.list");
  {
    std::ofstream(list) << "deb http://deb.debian.org/debian bookworm main\n"
                           "deb http://deb.debian.org/debian bookworm-updates main\n"
                           "deb http://security.debian.org/debian-security bookworm-security main\n"
                           "URIs: http://deb.debian.org/debian-security\n";
  }
  for (const auto& r : rw) {
    ASSERT_EQ(sh("sed -i -E " + shell_word("s#" + r.pattern + "([/ ]|$)#" + r.mirror + "\\2#g") + " " + shell_word(list)), 0);
  }
  EXPECT_EQ(tfrig::test::read_file(list),
            "deb https://mirrors.ustc.edu.cn/debian bookworm main\n"
            "deb https://mirrors.ustc.edu.cn/debian bookworm-updates main\n"
            "deb https://mirrors.ustc.edu.cn/debian-security bookworm-security main\n"
            "URIs: https://mirrors.ustc.edu.cn/debian-security\n");
  const std::string sh_text = render_install_sh(*out.plan, knowledge::builtin());
  EXPECT_NE(sh_text.find("https://mirrors.ustc.edu.cn/debian-security\\2#g"), std::string::npos);
}

TEST(SetupSources, IntranetMirrorsOverHttpAreTrustedByPip) {
  auto pip = plan_with(preset("tencent-intranet"));
  ASSERT_TRUE(pip.plan);
  EXPECT_EQ(pip.plan->sources.pip_trusted_host, "mirrors.tencentyun.com");
  const auto files = render_all(*pip.plan, knowledge::builtin());
  ASSERT_NE(file(files, "pip.conf"), nullptr);
  EXPECT_NE(file(files, "pip.conf")->content.find("index-url = http://mirrors.tencentyun.com/pypi/simple\n"), std::string::npos);
  EXPECT_NE(file(files, "pip.conf")->content.find("\ntrusted-host = mirrors.tencentyun.com\n"), std::string::npos);
  auto container = plan_with(preset("huaweicloud-intranet"), Method::kContainer);
  ASSERT_TRUE(container.plan);
  EXPECT_NE(render_dockerfile(*container.plan).find("ENV PIP_TRUSTED_HOST=repo.myhuaweicloud.com\n"), std::string::npos);
  auto https = plan_with(preset("aliyun"));
  ASSERT_TRUE(https.plan);
  EXPECT_TRUE(https.plan->sources.pip_trusted_host.empty());
}

TEST(SetupSources, ChinaPresetsWriteTheCondaChannelsHfEndpointAndFirstRunAdvice) {
  const auto& k = knowledge::builtin();
  auto out = plan_with(preset("cn"));
  ASSERT_TRUE(out.plan);
  const auto files = render_all(*out.plan, k);
  ASSERT_NE(file(files, "condarc"), nullptr);
  const std::string& rc = file(files, "condarc")->content;
  EXPECT_NE(rc.find("  - \"https://mirrors.tuna.tsinghua.edu.cn/anaconda/pkgs/main\"\n"), std::string::npos) << rc;
  EXPECT_NE(rc.find("  conda-forge: \"https://mirrors.tuna.tsinghua.edu.cn/anaconda/cloud\"\n"), std::string::npos) << rc;
  EXPECT_NE(file(files, "tfrig.env")->content.find("\nHF_ENDPOINT=https://hf-mirror.com\n"), std::string::npos);
  const std::string& readme = file(files, "README.md")->content;
  for (const char* want : {"https://storage.googleapis.com/tensorflow/keras-applications/", "~/.keras/models",
                           "~/tensorflow_datasets", "download=False", "community mirror"}) {
    EXPECT_NE(readme.find(want), std::string::npos) << want;
  }
  bool noted = false;
  for (const auto& n : out.plan->notes) noted = noted || n.find("README.md says how to fetch them beforehand") != std::string::npos;
  EXPECT_TRUE(noted) << "the printed plan says where the pre-fetch advice is";
  // Without a preset: none of it.
  auto plain = plan_with({});
  ASSERT_TRUE(plain.plan);
  const auto plain_files = render_all(*plain.plan, k);
  EXPECT_EQ(file(plain_files, "condarc"), nullptr);
  EXPECT_EQ(file(plain_files, "tfrig.env")->content.find("HF_ENDPOINT"), std::string::npos);
}

// --mirror auto on captured machine trees: the region the host probe reads (as doctor does).
PlanOutcome plan_auto(const std::string& root, Method method = Method::kPip) {
  std::vector<core::Message> problems;
  inventory::Inventory inv;
  inv.region = probe::read_region(core::SysRoot(root), problems);
  EXPECT_TRUE(problems.empty()) << root << ": " << (problems.empty() ? "" : core::english(problems.front()));
  SetupOptions o;
  o.tf = {"2.17"};
  o.os = "ubuntu-22.04";
  o.method = method;
  o.gpu = "cc:8.0";
  o.mirrors.preset = "auto";
  auto out = make_setup_plan(knowledge::builtin(), &inv, o);
  EXPECT_TRUE(out.has_value()) << (out ? "" : out.error().to_string());
  return out ? *out : PlanOutcome{};
}

bool noted(const SetupPlan& p, const std::string& text) {
  for (const auto& n : p.notes) {
    if (n.find(text) != std::string::npos) return true;
  }
  return false;
}

TEST(SetupSources, MirrorAutoOnTheRegionFixtures) {
  // tests/data/region (doctor's os.configured_for_china fixtures): an Aliyun-configured Ubuntu, a Berlin Debian.
  auto china = plan_auto(tfrig::test::data_dir() + "/region/china-vm");
  ASSERT_TRUE(china.plan);
  EXPECT_EQ(china.plan->sources.preset, "aliyun");
  EXPECT_EQ(china.plan->sources.apt_mirror, "https://mirrors.aliyun.com/ubuntu");
  EXPECT_TRUE(noted(*china.plan, "--mirror auto chose aliyun")) << china.plan->sources.auto_reason;
  EXPECT_TRUE(noted(*china.plan, "mirrors.aliyun.com"));
  auto berlin = plan_auto(tfrig::test::data_dir() + "/region/berlin-vm");
  ASSERT_TRUE(berlin.plan);
  EXPECT_TRUE(berlin.plan->sources.preset.empty());
  EXPECT_TRUE(berlin.plan->sources.apt_mirror.empty());
  EXPECT_TRUE(noted(*berlin.plan, "nothing on the machine says mainland China"));
}

// A machine tree as a cloud's image ships it: its apt sources (and pip.conf) name the cloud's intranet mirror.
std::string cloud_root(TempDir& tmp, const std::string& name, const std::string& sources_list, const std::string& pip_conf) {
  const std::string root = tmp.file(name);
  EXPECT_EQ(sh("mkdir -p " + shell_word(root + "/etc/apt") + " " + shell_word(root + "/etc")), 0);
  std::ofstream(root + "/etc/apt/sources.list") << sources_list;
  if (!pip_conf.empty()) std::ofstream(root + "/etc/pip.conf") << pip_conf;
  return root;
}

TEST(SetupSources, MirrorAutoPicksTheCloudsIntranetMirror) {
  TempDir tmp;
  // The lines each cloud's Ubuntu 22.04 image writes (the hosts from setup.json's sources rows).
  const std::vector<std::tuple<std::string, std::string, std::string, std::string>> clouds = {
      {"aliyun-ecs", "deb http://mirrors.cloud.aliyuncs.com/ubuntu/ jammy main restricted\n",
       "[global]\nindex-url = http://mirrors.cloud.aliyuncs.com/pypi/simple/\ntrusted-host = mirrors.cloud.aliyuncs.com\n",
       "aliyun-intranet"},
      {"tencent-cvm", "deb http://mirrors.tencentyun.com/ubuntu/ jammy main restricted universe multiverse\n",
       "[global]\nindex-url = http://mirrors.tencentyun.com/pypi/simple\ntrusted-host = mirrors.tencentyun.com\n",
       "tencent-intranet"},
      {"huawei-ecs", "deb http://repo.myhuaweicloud.com/ubuntu/ jammy main restricted\n", "", "huaweicloud-intranet"},
  };
  for (const auto& [name, list, pip, want] : clouds) {
    auto out = plan_auto(cloud_root(tmp, name, list, pip), Method::kContainer);
    ASSERT_TRUE(out.plan) << name;
    EXPECT_EQ(out.plan->sources.preset, want) << name;
    EXPECT_TRUE(noted(*out.plan, "--mirror auto chose " + want)) << out.plan->sources.auto_reason;
    EXPECT_TRUE(noted(*out.plan, "only inside that cloud")) << out.plan->sources.auto_reason;
  }
  // Only a Chinese locale: the first university preset.
  const std::string zh = cloud_root(tmp, "zh-desktop", "deb http://archive.ubuntu.com/ubuntu jammy main\n", "");
  ASSERT_EQ(sh("mkdir -p " + shell_word(zh + "/etc/default")), 0);
  std::ofstream(zh + "/etc/default/locale") << "LANG=zh_CN.UTF-8\n";
  auto out = plan_auto(zh);
  ASSERT_TRUE(out.plan);
  EXPECT_EQ(out.plan->sources.preset, "tuna");
  EXPECT_TRUE(noted(*out.plan, "locale zh_CN.UTF-8"));
  // Nothing known of the machine: the defaults, said so.
  SetupOptions o;
  o.tf = {"2.17"};
  o.os = "ubuntu-22.04";
  o.gpu = "cc:8.0";
  o.mirrors.preset = "auto";
  auto none = make_setup_plan(knowledge::builtin(), nullptr, o);
  ASSERT_TRUE(none.has_value() && none->plan);
  EXPECT_TRUE(none->plan->sources.preset.empty());
  EXPECT_TRUE(noted(*none->plan, "nothing is known of the machine"));
}

}  // namespace
}  // namespace tfrig::setup::test

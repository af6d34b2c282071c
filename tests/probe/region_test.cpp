// The region part of the host probe (probe/region.cpp): the parsers, and
// read_region over two small trees through SysRoot (tests/data/region/).
#include <filesystem>

#include <gtest/gtest.h>

#include "core/sysroot.h"
#include "inventory/json.h"
#include "probe/region.h"
#include "test_support.h"

namespace tfrig::probe {
namespace {

TEST(Region, LocaleConf) {
  EXPECT_EQ(parse_locale_conf("LANG=\"zh_CN.UTF-8\"\nLANGUAGE=\"zh_CN:zh\"\n"), "zh_CN.UTF-8");
  EXPECT_EQ(parse_locale_conf("# comment\nexport LANG=en_US.UTF-8\n"), "en_US.UTF-8");
  EXPECT_EQ(parse_locale_conf("LANG=en_US.UTF-8\nLC_ALL=zh_CN.GB18030\n"), "zh_CN.GB18030");  // LC_ALL wins
  EXPECT_EQ(parse_locale_conf("LC_TIME=zh_CN.UTF-8\n"), std::nullopt);
  EXPECT_EQ(parse_locale_conf(""), std::nullopt);
}

TEST(Region, LocaltimeLink) {
  EXPECT_EQ(zone_from_localtime_link("/usr/share/zoneinfo/Asia/Shanghai"), "Asia/Shanghai");
  EXPECT_EQ(zone_from_localtime_link("../usr/share/zoneinfo/posix/Asia/Urumqi"), "Asia/Urumqi");
  EXPECT_EQ(zone_from_localtime_link("/etc/alternatives/localtime"), std::nullopt);
  EXPECT_EQ(zone_from_localtime_link("/usr/share/zoneinfo/"), std::nullopt);
}

TEST(Region, Hosts) {
  EXPECT_EQ(url_host("https://user:pw@Mirrors.Aliyun.com:8443/pypi/simple/"), "mirrors.aliyun.com");
  EXPECT_EQ(url_host("ftp://x/"), "");
  EXPECT_EQ(pip_conf_hosts("[global]\nindex-url = https://pypi.tuna.tsinghua.edu.cn/simple\n"
                           "extra-index-url =\n    https://mirrors.aliyun.com/pypi/simple/\ntrusted-host = a.b\n"),
            (std::vector<std::string>{"pypi.tuna.tsinghua.edu.cn", "mirrors.aliyun.com"}));
  EXPECT_EQ(apt_source_hosts("# deb http://old/\ndeb [arch=amd64] http://mirrors.aliyun.com/ubuntu/ jammy main\n"
                             "URIs: http://deb.debian.org/debian\nSuites: bookworm\n"),
            (std::vector<std::string>{"mirrors.aliyun.com", "deb.debian.org"}));
  EXPECT_EQ(docker_mirror_hosts("{\"registry-mirrors\": [\"https://x.mirror.aliyuncs.com\"]}"),
            (std::vector<std::string>{"x.mirror.aliyuncs.com"}));
  EXPECT_EQ(docker_mirror_hosts("{\"runtimes\": {}}"), std::vector<std::string>{});
  EXPECT_EQ(docker_mirror_hosts("{oops"), std::nullopt);
}

TEST(Region, ReadsAChinaTreeThroughSysRoot) {
  const core::SysRoot root(test::data_dir() + "/region/china-vm", {});
  std::vector<core::Message> problems;
  const auto r = read_region(root, problems);
  EXPECT_TRUE(problems.empty()) << core::english(problems.front());
  EXPECT_EQ(r.locale, "zh_CN.UTF-8");
  EXPECT_EQ(r.time_zone, "Asia/Shanghai");  // from the /etc/localtime link: there is no /etc/timezone
  std::vector<std::string> seen;
  for (const auto& s : r.sources) seen.push_back(s.kind + " " + s.host + " " + s.file);
  EXPECT_EQ(seen, (std::vector<std::string>{
                      "pip pypi.tuna.tsinghua.edu.cn /root/.config/pip/pip.conf",
                      "apt mirrors.aliyun.com /etc/apt/sources.list",
                      "apt mirrors.ustc.edu.cn /etc/apt/sources.list.d/nvidia-container-toolkit.list",
                      "docker abc123.mirror.aliyuncs.com /etc/docker/daemon.json",
                  }));
}

TEST(Region, ReadsAnotherTreeAndAnEmptyOne) {
  std::vector<core::Message> problems;
  const auto berlin = read_region(core::SysRoot(test::data_dir() + "/region/berlin-vm", {}), problems);
  EXPECT_EQ(berlin.locale, "en_US.UTF-8");
  EXPECT_EQ(berlin.time_zone, "Europe/Berlin");
  ASSERT_EQ(berlin.sources.size(), 1u);
  EXPECT_EQ(berlin.sources[0].host, "deb.debian.org");
  // Nothing there: nothing found, no problem, and the snapshot has no "region" key.
  test::TempDir tmp;
  const auto none = read_region(core::SysRoot(tmp.path(), {}), problems);
  EXPECT_TRUE(none.empty());
  EXPECT_TRUE(problems.empty());
  inventory::Inventory inv;
  EXPECT_FALSE(nlohmann::json(inv).contains("region"));
  inv.region = berlin;
  const nlohmann::json j = inv;
  ASSERT_TRUE(j.contains("region"));
  EXPECT_EQ(j.get<inventory::Inventory>().region.time_zone, "Europe/Berlin");
}

// An empty /etc/timezone (seen on minimal images) names no zone; the
// /etc/localtime link then decides, and nothing reads past the text.
TEST(Region, AnEmptyTimezoneFileNamesNoZone) {
  test::TempDir tmp;
  std::filesystem::create_directories(tmp.file("etc"));
  test::write_file(tmp.file("etc/timezone"), "");
  std::vector<core::Message> problems;
  const auto r = read_region(core::SysRoot(tmp.path(), {}), problems);
  EXPECT_FALSE(r.time_zone);
}

// doctor on the China tree: one info finding with the evidence, and the
// suggestion; on the other tree none.
TEST(Region, DoctorSuggestsMirrorCnOnAChinaMachine) {
  auto r = test::run_tfrig({"--root", test::data_dir() + "/region/china-vm", "doctor", "--format", "json"});
  ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 1 || r.exit_code == 2) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  int found = 0;
  for (const auto& f : doc.at("findings")) {
    if (f.at("rule_id") != "os.configured_for_china") continue;
    ++found;
    EXPECT_EQ(f.at("severity"), "info");
    EXPECT_NE(f.at("fix").get<std::string>().find("--mirror cn"), std::string::npos);
    const std::string ev = f.at("evidence").dump();
    for (const char* want : {"zh_CN.UTF-8", "Asia/Shanghai", "pypi.tuna.tsinghua.edu.cn", "mirrors.aliyun.com",
                             "abc123.mirror.aliyuncs.com"}) {
      EXPECT_NE(ev.find(want), std::string::npos) << want << " in " << ev;
    }
  }
  EXPECT_EQ(found, 1) << r.out;
  auto berlin = test::run_tfrig({"--root", test::data_dir() + "/region/berlin-vm", "doctor", "--format", "json"});
  EXPECT_EQ(nlohmann::json::parse(berlin.out).dump().find("\"rule_id\":\"os.configured_for_china\""), std::string::npos);
}

}  // namespace
}  // namespace tfrig::probe

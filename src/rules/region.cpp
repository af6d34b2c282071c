// A machine set up for mainland China: its locale, time zone or package
// sources say so, and `tfrig setup --mirror auto` would download from mirrors
// that answer there (setup/plan.cpp choose_auto_preset). Advice only; nothing is changed.
#include <fmt/format.h>

#include "core/i18n.h"
#include "core/text.h"
#include "knowledge/setup_facts.h"
#include "rules/areas.h"
#include "rules/util.h"

namespace tfrig::rules {

namespace {

bool listed(const std::vector<std::string>& list, std::string_view value) {
  for (const auto& v : list) {
    if (v == value) return true;
  }
  return false;
}

// "mirrors.tuna.tsinghua.edu.cn" is listed; so is "abc123.mirror.aliyuncs.com"
// (Aliyun's per-account accelerators) through its listed parent domain.
bool china_mirror_host(const std::vector<std::string>& hosts, const std::string& host) {
  for (const auto& h : hosts) {
    if (host == h || (host.size() > h.size() && core::ends_with(host, "." + h))) return true;
  }
  return false;
}

// The first reason, "locale zh_CN.UTF-8", with ", ..." when there are more.
core::Message first_evidence(const std::vector<Evidence>& ev) {
  const Evidence& e = ev.front();
  // TRANSLATORS: {0} what was read (locale, time zone, ...), {1} its value here.
  core::Message first(N_("{0} {1}"), e.fact_message ? core::MessageArg(*e.fact_message) : core::MessageArg(e.fact),
                      e.value);
  // TRANSLATORS: the first item of a list that goes on.
  return ev.size() > 1 ? core::Message(N_("{0}, ..."), std::move(first)) : first;
}

Check configured_for_china(const Context& ctx) {
  if (!ctx.probed("host")) return Check::skip(core::Message(N_("locale, time zone and package sources (host probe)")));
  const auto& china = ctx.k.setup().china;
  const auto& r = ctx.inv.region;
  std::vector<Evidence> ev;
  // "zh_CN.UTF-8", "zh_CN.GB18030", "zh_CN": the part before the codeset.
  if (r.locale && listed(china.locales, r.locale->substr(0, r.locale->find_first_of(".@")))) {
    ev.push_back({core::Message(N_("locale")), *r.locale, "/etc/default/locale or /etc/locale.conf"});
  }
  if (r.time_zone && listed(china.time_zones, *r.time_zone)) {
    ev.push_back({core::Message(N_("time zone")), *r.time_zone, "/etc/timezone or /etc/localtime"});
  }
  for (const auto& s : r.sources) {
    if (china_mirror_host(china.mirror_hosts, s.host))
      ev.push_back({core::Message(N_("{} mirror"), s.kind), s.host, s.file});
  }
  if (ev.empty()) return Check::pass();
  Check c;
  c.add(Hit{
      "host",
      core::Message(N_("This machine looks set up for mainland China ({}). Docker Hub, PyPI, NVIDIA's repositories "
                       "and the Container Toolkit's nvidia.github.io often answer slowly or not at all from there: "
                       "`tfrig setup --mirror auto` writes an installation that downloads from mirrors in China "
                       "(the cloud's own intranet mirror when the package sources name one, else TUNA; docs/setup.md) "
                       "and checks each answers first."),
                    first_evidence(ev)),
      ev,
      "",
      {}});
  return c;
}

}  // namespace

std::vector<Rule> region_rules() {
  return {
      {"os.configured_for_china",
       "os",
       Severity::kInfo,
       N_("Set up for mainland China: install with --mirror auto"),
       N_("The system locale (zh_CN), the time zone (Asia/Shanghai, Asia/Chongqing, Asia/Harbin, Asia/Urumqi) and the "
          "download hosts in pip.conf, /etc/apt and /etc/docker/daemon.json against the mirrors of mainland China "
          "(setup.json mirrors.china)."),
       N_("From mainland China, nvidia.github.io is reset by the firewall (NVIDIA/nvidia-docker#1722) and Docker Hub "
          "mirrors closed one after another (USTC 2022, SJTU 2024); installs that assume the default sources stall. "
          "tfrig setup can write one whose every source is a documented mirror."),
       N_("`tfrig setup --mirror auto -o DIR`: it takes the cloud's intranet mirror when the machine's package sources "
          "name one (Alibaba Cloud, Tencent Cloud, Huawei Cloud), else the mirror they already use, else TUNA (`--mirror cn`); "
          "or single sources: --apt-mirror, --pip-index, --cuda-repo, --container-toolkit-repo, --docker-registry-mirror. "
          "tfrig changes nothing by itself."),
       {"https://github.com/NVIDIA/nvidia-docker/issues/1722", "https://mirrors.ustc.edu.cn/help/dockerhub.html"},
       configured_for_china},
  };
}

}  // namespace tfrig::rules

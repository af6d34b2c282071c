#include "probe/region.h"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "core/i18n.h"
#include "core/text.h"

namespace tfrig::probe {

namespace {

std::string_view unquote(std::string_view s) {
  if (s.size() >= 2 && (s.front() == '"' || s.front() == '\'') && s.back() == s.front())
    return s.substr(1, s.size() - 2);
  return s;
}

void add_unique(std::vector<std::string>& v, std::string s) {
  if (!s.empty() && std::find(v.begin(), v.end(), s) == v.end()) v.push_back(std::move(s));
}

// Every http(s) URL host in a line's words.
void hosts_in_words(std::string_view line, std::vector<std::string>& out) {
  size_t pos = 0;
  while (pos < line.size()) {
    while (pos < line.size() && (line[pos] == ' ' || line[pos] == '\t')) ++pos;
    size_t end = pos;
    while (end < line.size() && line[end] != ' ' && line[end] != '\t') ++end;
    add_unique(out, url_host(line.substr(pos, end - pos)));
    pos = end;
  }
}

}  // namespace

std::optional<std::string> parse_locale_conf(std::string_view text) {
  std::optional<std::string> lang;
  for (auto line : core::split_lines(text)) {
    line = core::trim(line);
    if (line.empty() || line.front() == '#') continue;
    if (core::starts_with(line, "export ")) line = core::trim(line.substr(7));
    const size_t eq = line.find('=');
    if (eq == std::string_view::npos) continue;
    const std::string_view key = core::trim(line.substr(0, eq));
    const std::string_view value = unquote(core::trim(line.substr(eq + 1)));
    // LC_ALL overrides LANG for every category (locale(7)).
    if ((key == "LANG" && !lang) || key == "LC_ALL") {
      if (!value.empty()) lang = std::string(value);
    }
  }
  return lang;
}

std::optional<std::string> zone_from_localtime_link(std::string_view target) {
  constexpr std::string_view kDir = "zoneinfo/";
  const size_t at = target.rfind(kDir);
  if (at == std::string_view::npos) return std::nullopt;
  std::string_view zone = target.substr(at + kDir.size());
  // posix/ and right/ are the same zones with other leap-second handling.
  for (std::string_view prefix : {"posix/", "right/"}) {
    if (core::starts_with(zone, prefix)) zone.remove_prefix(prefix.size());
  }
  if (zone.empty()) return std::nullopt;
  return std::string(zone);
}

std::string url_host(std::string_view url) {
  for (std::string_view scheme : {"https://", "http://"}) {
    if (!core::starts_with(url, scheme)) continue;
    std::string_view rest = url.substr(scheme.size());
    rest = rest.substr(0, rest.find_first_of("/?#"));
    if (const size_t at = rest.rfind('@'); at != std::string_view::npos) rest.remove_prefix(at + 1);
    rest = rest.substr(0, rest.find(':'));
    return core::to_lower(std::string(rest));
  }
  return "";
}

std::vector<std::string> pip_conf_hosts(std::string_view text) {
  std::vector<std::string> out;
  bool in_index = false;  // the last key was an index URL: indented lines continue its list
  for (auto raw : core::split_lines(text)) {
    const bool indented = !raw.empty() && (raw.front() == ' ' || raw.front() == '\t');
    const std::string_view line = core::trim(raw);
    if (line.empty() || line.front() == '#' || line.front() == ';') continue;
    if (indented && in_index) {
      hosts_in_words(line, out);
      continue;
    }
    const size_t eq = line.find_first_of("=:");
    if (eq == std::string_view::npos) {
      in_index = false;
      continue;
    }
    const std::string key = core::to_lower(std::string(core::trim(line.substr(0, eq))));
    in_index = key == "index-url" || key == "extra-index-url" || key == "index_url" || key == "extra_index_url";
    if (in_index) hosts_in_words(core::trim(line.substr(eq + 1)), out);
  }
  return out;
}

std::vector<std::string> apt_source_hosts(std::string_view text) {
  std::vector<std::string> out;
  for (auto line : core::split_lines(text)) {
    line = core::trim(line);
    if (line.empty() || line.front() == '#') continue;
    if (core::starts_with(line, "deb ") || core::starts_with(line, "deb-src ") || core::starts_with(line, "URIs:")) {
      hosts_in_words(line, out);
    }
  }
  return out;
}

std::optional<std::vector<std::string>> docker_mirror_hosts(std::string_view text) {
  auto doc = nlohmann::json::parse(text, nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) return std::nullopt;
  std::vector<std::string> out;
  auto it = doc.find("registry-mirrors");
  if (it == doc.end() || !it->is_array()) return out;
  for (const auto& m : *it) {
    if (m.is_string()) add_unique(out, url_host(m.get<std::string>()));
  }
  return out;
}

inventory::RegionInfo read_region(const core::SysRoot& root, std::vector<core::Message>& problems) {
  inventory::RegionInfo r;
  // A missing file is the common case (not every system has each); other read errors are problems.
  auto read = [&](const std::string& rel) -> std::optional<std::string> {
    auto text = root.read_text(rel, 1 << 20);
    if (!text) {
      if (text.error().code != core::ErrorCode::kNotFound)
        problems.push_back(core::error_message(text.error())
                               .value_or(core::Message(N_("{0}: {1}"), text.error().where, text.error().message)));
      return std::nullopt;
    }
    return *text;
  };
  // Debian and Ubuntu keep the system locale in /etc/default/locale, systemd distributions in /etc/locale.conf.
  for (const char* rel : {"etc/default/locale", "etc/locale.conf"}) {
    if (r.locale) break;
    if (auto text = read(rel)) r.locale = parse_locale_conf(*text);
  }
  // Debian's /etc/timezone names the zone; otherwise the /etc/localtime link does (timedatectl).
  if (auto text = read("etc/timezone")) {
    const auto text_lines = core::split_lines(*text);
    const std::string_view zone = text_lines.empty() ? std::string_view() : core::trim(text_lines.front());
    if (!zone.empty()) r.time_zone = std::string(zone);
  }
  if (!r.time_zone && root.kind_of("etc/localtime") == core::SysRoot::Kind::kLink) {
    if (auto target = root.read_link("etc/localtime")) r.time_zone = zone_from_localtime_link(*target);
  }
  auto add = [&](const std::string& rel, const char* kind, const std::vector<std::string>& hosts) {
    for (const auto& h : hosts) r.sources.push_back({"/" + rel, kind, h});
  };
  for (const char* rel : {"etc/pip.conf", "etc/xdg/pip/pip.conf", "root/.config/pip/pip.conf", "root/.pip/pip.conf"}) {
    if (auto text = read(rel)) add(rel, "pip", pip_conf_hosts(*text));
  }
  if (auto text = read("etc/apt/sources.list")) add("etc/apt/sources.list", "apt", apt_source_hosts(*text));
  if (auto names = root.list_dir("etc/apt/sources.list.d")) {
    for (const auto& n : *names) {
      if (!core::ends_with(n, ".list") && !core::ends_with(n, ".sources")) continue;
      const std::string rel = "etc/apt/sources.list.d/" + n;
      if (auto text = read(rel)) add(rel, "apt", apt_source_hosts(*text));
    }
  }
  if (auto text = read("etc/docker/daemon.json")) {
    if (auto hosts = docker_mirror_hosts(*text)) {
      add("etc/docker/daemon.json", "docker", *hosts);
    } else {
      problems.push_back(core::Message(N_("{0}: {1}"), root.full_path("etc/docker/daemon.json"),
                                       core::Message(N_("not a JSON object"))));
    }
  }
  return r;
}

}  // namespace tfrig::probe

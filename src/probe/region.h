// The region a machine is set up for: the system locale, the time zone and
// the download hosts its pip, apt and Docker configurations name. Read by the
// host probe through SysRoot; the parsers are pure (tests/probe/region_test.cpp).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/sysroot.h"
#include "inventory/inventory.h"

namespace tfrig::probe {

// LANG=... from /etc/default/locale or /etc/locale.conf (shell-style KEY=VALUE, quotes allowed).
std::optional<std::string> parse_locale_conf(std::string_view text);
// The zone of a /etc/localtime link target: ".../zoneinfo/Asia/Shanghai" -> "Asia/Shanghai".
std::optional<std::string> zone_from_localtime_link(std::string_view target);
// "https://user@host:8080/path" -> "host"; "" for what is not an http(s) URL.
std::string url_host(std::string_view url);
// Hosts of index-url / extra-index-url in a pip.conf.
std::vector<std::string> pip_conf_hosts(std::string_view text);
// Hosts of the deb lines of a sources.list and the URIs: lines of a .sources file.
std::vector<std::string> apt_source_hosts(std::string_view text);
// Hosts of "registry-mirrors" in a Docker daemon.json; nullopt when it is not JSON.
std::optional<std::vector<std::string>> docker_mirror_hosts(std::string_view text);

// Reads them; a file that exists but cannot be read or parsed is a problem, not an error.
inventory::RegionInfo read_region(const core::SysRoot& root, std::vector<core::Message>& problems);

}  // namespace tfrig::probe

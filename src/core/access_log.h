// AccessLog: what a SysRoot was asked for, recorded while probes run, so that
// `tfrig capture` can pack exactly those files (and nothing else) for another
// machine to judge. Thread-safe: the probes run concurrently on one root.
#pragma once

#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>

namespace tfrig::core {

class AccessLog {
 public:
  struct Snapshot {
    std::map<std::string, std::string> reads;               // path -> the bytes the probe got
    std::set<std::string> listed;                           // directories listed
    std::set<std::string> looked_up;                        // exists / is_dir / read_link / failed reads
    std::map<std::string, std::optional<std::string>> env;  // name -> value (nullopt: unset)
  };

  void read(std::string_view rel, const std::string& bytes);
  void listed(std::string_view rel);
  void looked_up(std::string_view rel);
  void env(std::string_view name, const std::optional<std::string>& value);
  Snapshot snapshot() const;

 private:
  mutable std::mutex mutex_;
  Snapshot s_;
};

// "/proc//cpuinfo" and "proc/cpuinfo" -> "proc/cpuinfo": the key every
// recorded path is stored under.
std::string normalize_rel(std::string_view rel);

}  // namespace tfrig::core

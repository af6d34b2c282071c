// The record/replay format of tfrig watch (docs/watch.md): JSON Lines. The
// first line describes the run, each further line is one sample:
//   {"tfrig_watch":1,"interval_s":1,"cpus":16,"gpus":[...],...}
//   {"t":1.0,"cpu":{...},"process":{...},"disks":[...],"gpus":[...]}
// A recording is read back by parse_recording, which is fuzzed
// (fuzz/fuzz_watch_replay.cpp): every value is range-checked, an error names
// the line and the field.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/result.h"
#include "watch/sample.h"

namespace tfrig::watch {

inline constexpr int kRecordingVersion = 1;

nlohmann::ordered_json info_to_json(const RunInfo& info);
nlohmann::ordered_json sample_to_json(const Sample& s);
// The header line and every sample line, each ending in '\n'.
std::string info_line(const RunInfo& info);
std::string sample_line(const Sample& s);

// `where` names the file in errors ("rec.jsonl:3: gpus[0].util_percent: ...").
core::Result<Recording> parse_recording(std::string_view text, const std::string& where);

}  // namespace tfrig::watch

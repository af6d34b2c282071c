// gzip decompression (RFC 1952), shared by the importer, capture, fleet and
// plan's profiler traces. nvidia-bug-report.sh appends each section with
// `gzip -c >> file`, so a bug report is a stream of many gzip members
// (RFC 1952 section 2.2 allows it); every member is inflated in turn.
//
// Files from other machines may be gzip bombs (a few MB that inflate to GBs):
// nothing here inflates more than its caller's cap, and gunzip_head inflates
// exactly the few bytes kind detection needs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "core/result.h"

namespace tfrig::codec {

// True when the bytes start with the gzip magic 1f 8b.
bool is_gzip(std::string_view bytes);

// Inflates every member; fails on corrupt data (naming the byte offset), on
// a stream that ends inside a member ("truncated"), and when the output
// would pass max_output bytes.
// On a parse failure, `partial` (when given) receives what the members
// before the bad spot inflated to: a bug report cut short is still evidence.
core::Result<std::string> gunzip(std::string_view bytes, size_t max_output, std::string* partial = nullptr);

// The first max_output bytes the stream inflates to (all of it when
// shorter), inflating no more than that: what kind detection needs from a
// file without paying for a bomb. A stream cut short (or corrupt) before
// max_output gives what it held, and sets `cut` (when given) to gunzip's
// error for it.
core::Result<std::string> gunzip_head(std::string_view bytes, size_t max_output,
                                      std::optional<core::Error>* cut = nullptr);

// Streams every member through `sink` in chunks of at most `chunk` bytes,
// with the count of input bytes consumed so far; an error from sink stops
// the stream and is returned. Errors: as gunzip's.
using GunzipSink = std::function<core::Status(std::string_view chunk, size_t consumed)>;
core::Status gunzip_stream(std::string_view bytes, const GunzipSink& sink, size_t chunk = size_t{1} << 16);

// Bytes every gunzip* call of this process has inflated: lets a test assert
// that detection of a bomb inflated a few kB, not a GB.
uint64_t inflated_bytes_total();

}  // namespace tfrig::codec

// gzip decompression for imported files. nvidia-bug-report.sh appends each
// section with `gzip -c >> file`, so a bug report is a stream of many gzip
// members (RFC 1952 section 2.2 allows it); every member is inflated in turn.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "core/result.h"

namespace tfrig::importer {

// True when the bytes start with the gzip magic 1f 8b.
bool is_gzip(std::string_view bytes);

// Inflates every member; fails on corrupt data (naming the byte offset), on
// a stream that ends inside a member ("truncated"), and when the output
// would pass max_output bytes.
// On a parse failure, `partial` (when given) receives what the members
// before the bad spot inflated to: a bug report cut short is still evidence.
core::Result<std::string> gunzip(std::string_view bytes, size_t max_output, std::string* partial = nullptr);

}  // namespace tfrig::importer

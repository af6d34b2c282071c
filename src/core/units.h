// Units and human formatting. Sizes in the model are bytes; only the
// terminal sees "GiB". Binary units (GiB) for memory, decimal (GB, GB/s) for
// storage and bandwidth, as the vendors quote them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/message.h"
#include "core/result.h"

namespace tfrig::core {

constexpr uint64_t kKiB = 1024;
constexpr uint64_t kMiB = 1024 * kKiB;
constexpr uint64_t kGiB = 1024 * kMiB;

std::string format_bytes_binary(uint64_t bytes);                    // "15.6 GiB"
std::string format_bytes_decimal(uint64_t bytes);                   // "512 GB", "1.5 TB"
std::string format_rate(double bytes_per_second);                   // "12.3 GB/s"
std::string format_transfer_rate(double gigatransfers_per_second);  // "16 GT/s"
std::string format_seconds(double seconds);                         // "12 ms", "1.52 s"
core::Message seconds_message(double seconds);                      // format_seconds as a message (rendered later)

// "200MB", "1.5GiB", "4096", "64k" -> bytes. Decimal suffixes are powers of
// 1000, "i" suffixes powers of 1024; a bare "k"/"M"/"G" is taken as binary
// (as dd and fio read them).
Result<uint64_t> parse_size(std::string_view text);

}  // namespace tfrig::core

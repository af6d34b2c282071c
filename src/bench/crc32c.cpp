// crc32c: checksum throughput, GB/s on one core. TFRecord stores a masked
// CRC32C of every record's length and data (tensorflow/core/lib/io/record_writer.cc),
// so reading or verifying TFRecords costs at least this much CPU per byte.
// Measures core/crc32c (shared with tfrecord/): the implementation it picks
// on this machine, and each other implementation this build and CPU have.
#include <algorithm>
#include <vector>

#include <fmt/format.h>

#include "bench/benchmarks.h"
#include "bench/runner.h"
#include "core/clock.h"
#include "core/crc32c.h"
#include "core/i18n.h"

namespace tfrig::bench {

namespace {

// 128 KiB: about one ImageNet image (~110 KiB) per TFRecord record, and
// inside every current core's L2, so the number is the checksum's speed and
// not the memory's.
constexpr size_t kBufferBytes = 128 * 1024;

class Crc32cBenchmark final : public Benchmark {
 public:
  std::string_view id() const override { return "crc32c"; }
  std::string_view description() const override { return N_("CRC32C throughput on one core (TFRecord's checksum)"); }
  std::vector<std::pair<std::string, std::string>> metrics() const override {
    return {{"crc32c", "GB/s"}, {"crc32c_isal", "GB/s"}, {"crc32c_sse42", "GB/s"}, {"crc32c_portable", "GB/s"}};
  }
  std::optional<core::Message> skip_reason(const RunContext&) const override { return std::nullopt; }

  void run(const RunContext& ctx, Runner& runner) override {
    std::vector<unsigned char> buf(kBufferBytes);
    uint32_t x = 2463534242u;  // xorshift32 (Marsaglia 2003): incompressible bytes
    for (auto& b : buf) {
      x ^= x << 13;
      x ^= x >> 17;
      x ^= x << 5;
      b = static_cast<unsigned char>(x);
    }
    // The sink keeps the compiler from dropping the checksums.
    volatile uint32_t sink = 0;
    auto sample = [&](std::optional<core::Crc32cImpl> impl) {
      return [&, impl]() -> core::Result<double> {
        core::Stopwatch w;
        uint64_t bytes = 0;
        uint32_t crc = 0;
        // Check the clock every 64 buffers (8 MiB): negligible next to the work.
        while (w.seconds() < ctx.config.sample_seconds && !ctx.cancelled.load()) {
          for (int i = 0; i < 64; ++i) {
            crc = impl ? core::crc32c_extend_with(*impl, crc, buf.data(), buf.size()).value_or(0)
                       : core::crc32c_extend(crc, buf.data(), buf.size());
          }
          bytes += 64 * buf.size();
        }
        sink = sink + crc;
        return static_cast<double>(bytes) / std::max(w.seconds(), 1e-9) / 1e9;
      };
    };
    nlohmann::json params = {{"buffer_bytes", kBufferBytes}, {"threads", 1}};
    params["implementation"] = core::crc32c_impl_name(core::crc32c_best_impl());
    runner.measure("crc32c", "GB/s", params, sample(std::nullopt));
    for (auto impl : {core::Crc32cImpl::kIsal, core::Crc32cImpl::kSse42, core::Crc32cImpl::kPortable}) {
      std::string metric = fmt::format("crc32c_{}", impl == core::Crc32cImpl::kSse42  ? "sse42"
                                                    : impl == core::Crc32cImpl::kIsal ? "isal"
                                                                                      : "portable");
      params["implementation"] = core::crc32c_impl_name(impl);
      if (!core::crc32c_extend_with(impl, 0, buf.data(), 1)) {
        runner.skip(metric, "GB/s",
                    core::Message(impl == core::Crc32cImpl::kIsal ? N_("built without ISA-L (libisal-dev)")
                                                                  : N_("this CPU or build lacks SSE4.2")),
                    params);
        continue;
      }
      runner.measure(metric, "GB/s", params, sample(impl));
    }
  }
};

}  // namespace

std::unique_ptr<Benchmark> make_crc32c_benchmark() { return std::make_unique<Crc32cBenchmark>(); }

}  // namespace tfrig::bench

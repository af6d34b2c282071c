// Interoperability: shards written by `tfrig pack` read back by an
// independent reader (tests/interop/read_tfrecord.py: framing and CRC-32C
// from the published format, Examples decoded by Debian's python3-protobuf
// and protoc). Skips when python3 with google.protobuf, or protoc, is absent.
#include <gtest/gtest.h>

#include "tfrecord/tfrecord_test_util.h"

namespace tfrig::tfrecord {
namespace {

using namespace tfrig::testing;

std::string python() {
  // Debian's python3 first: a pyenv/venv python3 earlier on PATH may lack
  // python3-protobuf.
  for (const char* p : {"/usr/bin/python3", "python3"}) {
    if (run_shell(std::string(p) + " -c 'import google.protobuf' && protoc --version").exit_code == 0) return p;
  }
  return "";
}

TEST(Interop, IndependentReaderReadsPackedShards) {
  std::string py = python();
  if (py.empty()) GTEST_SKIP() << "python3 with google.protobuf, or protoc, not available";
  ScratchDir dir;
  for (int c = 0; c < 2; ++c) {
    for (int i = 0; i < 15; ++i) {
      std::string cls = c == 0 ? "ant" : "bee";
      write_file(dir / ("src/" + cls + "/" + std::to_string(i) + ".jpg"),
                 tiny_jpeg(static_cast<uint16_t>(40 + i), 30, 3, 500u + 700u * static_cast<unsigned>(i),
                           static_cast<uint32_t>(c * 50 + i)));
    }
  }
  for (const char* comp : {"none", "gzip", "zlib"}) {
    SCOPED_TRACE(comp);
    std::string out = dir / (std::string("out-") + comp);
    auto r = run_tfrig("pack " + shell_quote(dir / "src") + " -o " + shell_quote(out) +
                       " --shard-size 20KB --no-progress --compression " + comp);
    ASSERT_EQ(r.exit_code, 0) << r.out;
    auto check = run_shell(py + " " + shell_quote(data_path("../interop/read_tfrecord.py")) + " --src " +
                           shell_quote(dir / "src") + " " + shell_quote(out) + "/*.tfrecord");
    if (check.exit_code == 77) GTEST_SKIP() << check.out;
    EXPECT_EQ(check.exit_code, 0) << check.out;
    EXPECT_NE(check.out.find("\"records\": 30, \"images\": 30, \"problems\": []"), std::string::npos) << check.out;
  }
}

}  // namespace
}  // namespace tfrig::tfrecord

#include "tfrecord/record.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <map>

#include "tfrecord/tfrecord_test_util.h"

namespace tfrig::tfrecord {
namespace {

using testing::data_path;
using testing::read_file;
using testing::ScratchDir;
using testing::write_file;

std::string hex(std::string_view s) {
  static const char* d = "0123456789abcdef";
  std::string out;
  for (unsigned char c : s) {
    out += d[c >> 4];
    out += d[c & 15];
  }
  return out;
}

struct ReadAll {
  std::vector<std::string> records;
  std::optional<RecordError> error;
  Compression compression = Compression::kNone;
};

ReadAll read_all(std::unique_ptr<ByteSource> src, ReaderOptions opt = {}) {
  ReadAll r;
  RecordReader reader(std::move(src), opt);
  for (;;) {
    auto rec = reader.next();
    r.compression = reader.compression();
    if (!rec) {
      r.error = rec.error();
      return r;
    }
    if (!*rec) return r;
    r.records.emplace_back(**rec);
  }
}

ReadAll read_path(const std::string& path) {
  auto src = file_source(path);
  EXPECT_TRUE(src.has_value());
  return read_all(std::move(*src));
}

// Vectors from the TFRecord tutorial's format details (tensorflow.org), computed
// there from the published format (length LE, masked CRC-32C).
TEST(RecordFraming, KnownBytes) {
  std::string out;
  append_record(out, "hello");
  EXPECT_EQ(hex(out), "0500000000000000eab2043e68656c6c6fbb1f1c19");
  out.clear();
  append_record(out, "");
  EXPECT_EQ(hex(out), "000000000000000029039807d8ea82a2");
  out.clear();
  std::string example("\x0a\x0d\x0a\x0b\x0a\x01\x78\x12\x06\x1a\x04\x0a\x02\x01\x02", 15);
  append_record(out, example);
  EXPECT_EQ(hex(out), "0f000000000000006d532b090a0d0a0b0a017812061a040a0201028a05cc54");
}

// Record counts as listed in tests/data/tfrecord/README.md (checked when copied, by
// an independent reader); every CRC must match TensorFlow's.
TEST(RecordReader, ReadsEveryTensorFlowWrittenFixture) {
  const std::map<std::string, std::pair<size_t, Compression>> want = {
      {"magenta__tfrecord_iterator_test.tfrecord", {3, Compression::kNone}},
      {"tfx__tfjs_next_page_data.tfrecord.gz", {100, Compression::kGzip}},
      {"tfx__tfrecord_sequence_eval.gz", {4500, Compression::kGzip}},
      {"tfx__penguin_eval_data_tfrecord-00000-of-00001.gz", {100, Compression::kGzip}},
      {"baskerville__mm10_train-7.tfr", {0, Compression::kZlib}},
      {"baskerville__mm10_test-3.tfr", {1, Compression::kZlib}},
      {"trax__c4-train.tfrecord-00000-of-00001", {10, Compression::kNone}},
      {"ranking__train_elwc.tfrecord", {10, Compression::kNone}},
      {"lingvo__wmt14_ende_wpm_32k_test.tfrecord", {100, Compression::kNone}},
      {"tfx__cifar10_test.tfrecord", {128, Compression::kNone}},
  };
  for (const auto& [name, w] : want) {
    SCOPED_TRACE(name);
    auto r = read_path(data_path("tfrecord/" + name));
    EXPECT_FALSE(r.error.has_value()) << r.error->to_string(name);
    EXPECT_EQ(r.records.size(), w.first);
    EXPECT_EQ(r.compression, w.second);
  }
  auto magenta = read_path(data_path("tfrecord/magenta__tfrecord_iterator_test.tfrecord"));
  ASSERT_EQ(magenta.records.size(), 3u);
  EXPECT_EQ(magenta.records[0], "hello world");
  EXPECT_EQ(magenta.records[1], "12345");
  EXPECT_EQ(magenta.records[2], "success");
  auto bask = read_path(data_path("tfrecord/baskerville__mm10_test-3.tfr"));
  ASSERT_EQ(bask.records.size(), 1u);
  EXPECT_EQ(bask.records[0].size(), 262198u);  // README: payload length 262198
}

// Re-framing TF's records with our writer gives TF's bytes: uncompressed
// byte for byte, and GZIP/ZLIB too for the files the fixture README says
// tf.io.TFRecordWriter wrote (zlib level 6, memLevel 9).
TEST(RecordWriter, ReproducesTensorFlowFilesByteForByte) {
  ScratchDir dir;
  for (auto [name, c] : {std::pair{"trax__c4-train.tfrecord-00000-of-00001", Compression::kNone},
                         std::pair{"tfx__cifar10_test.tfrecord", Compression::kNone},
                         std::pair{"tfx__tfrecord_sequence_eval.gz", Compression::kGzip},
                         std::pair{"baskerville__mm10_test-3.tfr", Compression::kZlib},
                         std::pair{"baskerville__mm10_train-7.tfr", Compression::kZlib}}) {
    SCOPED_TRACE(name);
    auto r = read_path(data_path(std::string("tfrecord/") + name));
    ASSERT_FALSE(r.error.has_value());
    std::string out = dir / (std::string(name) + ".out");
    auto w = RecordWriter::create(out, WriterOptions{c});
    ASSERT_TRUE(w.has_value());
    for (const auto& rec : r.records) ASSERT_TRUE(w->write(rec).has_value());
    ASSERT_TRUE(w->commit().has_value());
    EXPECT_EQ(read_file(out), read_file(data_path(std::string("tfrecord/") + name)));
  }
}

TEST(RecordWriter, UncommittedWriterLeavesNothing) {
  ScratchDir dir;
  {
    auto w = RecordWriter::create(dir / "x.tfrecord");
    ASSERT_TRUE(w.has_value());
    ASSERT_TRUE(w->write("abc").has_value());
    ASSERT_TRUE(w->flush().has_value());
  }
  EXPECT_TRUE(std::filesystem::is_empty(dir.path()));
}

TEST(RecordWriter, LargeRecordsAndCompressionRoundTrip) {
  ScratchDir dir;
  std::vector<std::string> recs = {"", "x", testing::filler(5u << 20, 7), testing::filler(1000, 8)};
  for (auto c : {Compression::kNone, Compression::kGzip, Compression::kZlib}) {
    std::string path = dir / ("big-" + std::string(compression_name(c)));
    auto w = RecordWriter::create(path, WriterOptions{c});
    ASSERT_TRUE(w.has_value());
    for (const auto& r : recs) ASSERT_TRUE(w->write(r).has_value());
    ASSERT_TRUE(w->commit().has_value());
    auto back = read_path(path);
    EXPECT_FALSE(back.error.has_value());
    EXPECT_EQ(back.records, recs);
    EXPECT_EQ(back.compression, c);
  }
}

std::string small_shard() {
  std::string s;
  append_record(s, "first");
  append_record(s, "");
  append_record(s, "third record, a little longer");
  return s;
}

// Every single-byte change anywhere in a shard is caught: the length, its
// CRC, the data and its CRC are all covered by a CRC.
TEST(RecordReader, CorruptionSweepEveryByte) {
  const std::string good = small_shard();
  ASSERT_EQ(read_all(memory_source(good)).records.size(), 3u);
  for (size_t i = 0; i < good.size(); ++i) {
    for (unsigned char flip : {0x01, 0x80, 0xff}) {
      std::string bad = good;
      bad[i] = static_cast<char>(bad[i] ^ flip);
      auto r = read_all(memory_source(bad), ReaderOptions{Compression::kNone, true});
      ASSERT_TRUE(r.error.has_value()) << "byte " << i << " flip " << int(flip) << " not detected";
      // The reported record is the one holding the byte.
      EXPECT_LE(r.error->offset, i);
      EXPECT_NE(r.error->problem, RecordProblem::kNone);
    }
  }
}

TEST(RecordReader, CorruptionSweepGzip) {
  auto gz = compress_stream(small_shard(), Compression::kGzip);
  ASSERT_TRUE(gz.has_value());
  size_t detected = 0;
  for (size_t i = 0; i < gz->size(); ++i) {
    std::string bad = *gz;
    bad[i] = static_cast<char>(bad[i] ^ 0x01);
    auto r = read_all(memory_source(bad), ReaderOptions{Compression::kGzip, true});
    // gzip's own CRC-32 and ISIZE trailer (RFC 1952) or our CRCs catch it;
    // flips in header fields gzip ignores (MTIME, XFL, OS) change nothing.
    if (r.error) {
      ++detected;
    } else {
      EXPECT_TRUE(i >= 3 && i <= 9) << "undetected flip at gzip byte " << i;  // FLG.FTEXT, MTIME, XFL, OS
    }
  }
  EXPECT_GE(detected, gz->size() - 7);
}

TEST(RecordReader, TruncationAtEveryLength) {
  const std::string good = small_shard();
  // Record boundaries: a file cut there is valid with fewer records.
  std::vector<size_t> boundaries = {0, 5 + 16, 5 + 16 + 16, good.size()};
  for (size_t n = 0; n <= good.size(); ++n) {
    auto r = read_all(memory_source(std::string_view(good).substr(0, n)));
    bool boundary = std::find(boundaries.begin(), boundaries.end(), n) != boundaries.end();
    if (boundary) {
      EXPECT_FALSE(r.error.has_value()) << n;
    } else {
      ASSERT_TRUE(r.error.has_value()) << "truncation to " << n << " bytes not detected";
      EXPECT_TRUE(r.error->problem == RecordProblem::kTruncatedHeader ||
                  r.error->problem == RecordProblem::kTruncatedData)
          << record_problem_name(r.error->problem);
    }
  }
}

TEST(RecordReader, TruncatedCompressedStreams) {
  auto gz = compress_stream(small_shard(), Compression::kGzip);
  auto zl = compress_stream(small_shard(), Compression::kZlib);
  for (const auto& [data, c] : {std::pair{*gz, Compression::kGzip}, std::pair{*zl, Compression::kZlib}}) {
    for (size_t n = 1; n < data.size(); ++n) {
      auto r = read_all(memory_source(std::string_view(data).substr(0, n)), ReaderOptions{c, true});
      ASSERT_TRUE(r.error.has_value()) << compression_name(c) << " cut to " << n;
      EXPECT_EQ(r.error->problem, RecordProblem::kDecompress);
    }
  }
}

TEST(RecordReader, ErrorsNameOffsetAndExpectation) {
  std::string s = small_shard();
  s[21 + 12] ^= 0x40;  // the second record's (empty) data CRC
  auto r = read_all(memory_source(s));
  ASSERT_TRUE(r.error.has_value());
  EXPECT_EQ(r.records.size(), 1u);
  EXPECT_EQ(r.error->problem, RecordProblem::kDataCrc);
  EXPECT_EQ(r.error->offset, 21u);
  EXPECT_EQ(r.error->record_index, 1u);
  std::string text = r.error->to_string("f.tfrecord");
  EXPECT_NE(text.find("f.tfrecord: record 1 at byte offset 21"), std::string::npos) << text;
  EXPECT_NE(text.find("expected 0x"), std::string::npos) << text;
}

TEST(RecordReader, TrailingGarbageAfterCompressedStream) {
  auto zl = compress_stream(small_shard(), Compression::kZlib);
  auto r = read_all(memory_source(*zl + "junk"), ReaderOptions{Compression::kZlib, true});
  ASSERT_TRUE(r.error.has_value());
  EXPECT_EQ(r.error->problem, RecordProblem::kTrailingGarbage);
  EXPECT_EQ(r.records.size(), 3u);
  // Gzip members may follow one another (RFC 1952 2.2).
  auto gz = compress_stream(small_shard(), Compression::kGzip);
  auto two = read_all(memory_source(*gz + *gz));
  EXPECT_FALSE(two.error.has_value());
  EXPECT_EQ(two.records.size(), 6u);
}

TEST(RecordReader, EmptyFileAndMissingFile) {
  ScratchDir dir;
  write_file(dir / "empty.tfrecord", "");
  auto r = read_path(dir / "empty.tfrecord");
  EXPECT_FALSE(r.error.has_value());
  EXPECT_TRUE(r.records.empty());
  auto missing = RecordReader::open(dir / "nope.tfrecord");
  ASSERT_FALSE(missing.has_value());
  EXPECT_EQ(missing.error().code, core::ErrorCode::kNotFound);
  EXPECT_NE(missing.error().where.find("nope.tfrecord"), std::string::npos);
}

TEST(RecordReader, UnreadableFile) {
  ScratchDir dir;
  // A directory or a device is refused when opened, by name (a device such
  // as /dev/zero would never end).
  auto d = RecordReader::open(dir.path());
  ASSERT_FALSE(d.has_value());
  EXPECT_EQ(d.error().code, core::ErrorCode::kNotFound);
  EXPECT_NE(d.error().to_string().find(dir.path() + ": is a directory"), std::string::npos) << d.error().to_string();
  auto dev = RecordReader::open("/dev/zero");
  ASSERT_FALSE(dev.has_value());
  EXPECT_EQ(dev.error().code, core::ErrorCode::kIo);
  if (::geteuid() != 0) {  // root reads any file regardless of mode
    write_file(dir / "locked", small_shard());
    ::chmod((dir / "locked").c_str(), 0);
    auto locked = RecordReader::open(dir / "locked");
    ASSERT_FALSE(locked.has_value());
    EXPECT_EQ(locked.error().code, core::ErrorCode::kPermissionDenied);
  }
}

TEST(RecordReader, CorruptLengthCannotForceHugeAllocation) {
  // A header claiming 2^40 bytes with a valid length CRC, and nothing after.
  std::string s = encode_header(uint64_t{1} << 40);
  auto r = read_all(memory_source(s));
  ASSERT_TRUE(r.error.has_value());
  EXPECT_EQ(r.error->problem, RecordProblem::kTruncatedData);
}

TEST(Compression, ParseAndSniff) {
  EXPECT_EQ(*parse_compression("GZIP"), Compression::kGzip);
  EXPECT_EQ(*parse_compression(""), Compression::kNone);
  EXPECT_EQ(*parse_compression("zlib"), Compression::kZlib);
  EXPECT_FALSE(parse_compression("snappy").has_value());
  // An uncompressed record whose length starts with the gzip magic bytes is
  // still recognised as uncompressed by its valid length CRC.
  std::string rec;
  append_record(rec, std::string(0x8b1f, 'a'));
  EXPECT_EQ(static_cast<unsigned char>(rec[0]), 0x1f);
  EXPECT_EQ(sniff_compression(rec), Compression::kNone);
  EXPECT_EQ(read_all(memory_source(rec)).records.size(), 1u);
}

}  // namespace
}  // namespace tfrig::tfrecord

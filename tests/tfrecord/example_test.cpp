#include "tfrecord/example.h"

#include <gtest/gtest.h>

#include <cmath>

#include "tfrecord/record.h"
#include "tfrecord/tfrecord_test_util.h"

namespace tfrig::tfrecord {
namespace {

std::string bytes(std::initializer_list<int> b) {
  std::string s;
  for (int c : b) s += static_cast<char>(c);
  return s;
}

// {"x": int64_list [1, 2]} as protobuf serializes it (packed), from
// https://www.tensorflow.org/tutorials/load_data/tfrecord ("TFRecords format details").
TEST(Example, EncodesKnownBytes) {
  std::string out;
  encode_example({{"x", FeatureValue{FeatureKind::kInt64, {}, {}, {1, 2}}}}, out);
  EXPECT_EQ(out, bytes({0x0a, 0x0d, 0x0a, 0x0b, 0x0a, 0x01, 0x78, 0x12, 0x06, 0x1a, 0x04, 0x0a, 0x02, 0x01, 0x02}));
}

TEST(Example, RoundTripAllKinds) {
  std::string out;
  std::string big(300, 'z');  // a length needing a 2-byte varint
  encode_example({{"a", FeatureValue{FeatureKind::kBytes, {"", "hello", big}, {}, {}}},
                  {"b", FeatureValue{FeatureKind::kFloat, {}, {1.5f, -0.0f, 3.25e10f}, {}}},
                  {"c", FeatureValue{FeatureKind::kInt64, {}, {}, {0, -1, INT64_MIN, INT64_MAX, 300}}},
                  {"d", FeatureValue{FeatureKind::kInt64, {}, {}, {}}},
                  {"e", FeatureValue{}}},
                 out);
  auto ex = decode_example(out);
  ASSERT_TRUE(ex.has_value()) << ex.error().to_string();
  ASSERT_EQ(ex->size(), 5u);
  EXPECT_EQ(ex->at("a").kind, FeatureKind::kBytes);
  EXPECT_EQ(ex->at("a").bytes, (std::vector<std::string_view>{"", "hello", big}));
  EXPECT_EQ(ex->at("b").floats, (std::vector<float>{1.5f, -0.0f, 3.25e10f}));
  EXPECT_TRUE(std::signbit(ex->at("b").floats[1]));
  EXPECT_EQ(ex->at("c").ints, (std::vector<int64_t>{0, -1, INT64_MIN, INT64_MAX, 300}));
  EXPECT_EQ(ex->at("d").kind, FeatureKind::kInt64);
  EXPECT_TRUE(ex->at("d").ints.empty());
  EXPECT_EQ(ex->at("e").kind, FeatureKind::kNone);
}

// Protobuf parsers must accept unpacked repeated scalars too
// (protobuf.dev encoding guide, "Packed Repeated Fields").
TEST(Example, AcceptsUnpackedRepeatedFields) {
  // Int64List unpacked: 08 01 08 02; FloatList unpacked: 0d <4 bytes> twice.
  std::string ints = bytes({0x08, 0x01, 0x08, 0x96, 0x01});  // 1, 150
  std::string floats = bytes({0x0d, 0x00, 0x00, 0xc0, 0x3f, 0x0d, 0x00, 0x00, 0x80, 0xbf});  // 1.5, -1.0
  auto entry = [](const std::string& key, int kind_field, const std::string& list) {
    std::string feature;
    feature += static_cast<char>((kind_field << 3) | 2);
    put_varint(feature, list.size());
    feature += list;
    std::string e;
    e += '\x0a';
    put_varint(e, key.size());
    e += key;
    e += '\x12';
    put_varint(e, feature.size());
    e += feature;
    std::string wrapped = "\x0a";
    put_varint(wrapped, e.size());
    return wrapped + e;
  };
  std::string features = entry("i", 3, ints) + entry("f", 2, floats);
  std::string ex = "\x0a";
  put_varint(ex, features.size());
  ex += features;
  auto d = decode_example(ex);
  ASSERT_TRUE(d.has_value()) << d.error().to_string();
  EXPECT_EQ(d->at("i").ints, (std::vector<int64_t>{1, 150}));
  EXPECT_EQ(d->at("f").floats, (std::vector<float>{1.5f, -1.0f}));
}

TEST(Example, SkipsUnknownFields) {
  std::string out;
  encode_example({{"k", FeatureValue::of_int(7)}}, out);
  // Unknown varint field 5 and fixed64 field 6 at the top level.
  std::string with = bytes({0x28, 0x01, 0x31, 0, 0, 0, 0, 0, 0, 0, 0}) + out;
  auto d = decode_example(with);
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->at("k").ints, (std::vector<int64_t>{7}));
}

TEST(Example, ErrorsNameTheByte) {
  std::string out;
  encode_example({{"key", FeatureValue::of_bytes("value")}}, out);
  for (size_t n = 1; n < out.size(); ++n) {
    auto d = decode_example(std::string_view(out).substr(0, n));
    ASSERT_FALSE(d.has_value()) << "truncated to " << n << " accepted";
    EXPECT_EQ(d.error().where.rfind("byte ", 0), 0u);
  }
  auto bad = decode_example(bytes({0x0a, 0x05, 0x0a, 0x03}));
  ASSERT_FALSE(bad.has_value());
  EXPECT_NE(bad.error().message.find("remain"), std::string::npos) << bad.error().message;
  EXPECT_FALSE(decode_example(bytes({0x0f})).has_value());  // wire type 7
  EXPECT_FALSE(decode_example(bytes({0x0a, 0x02, 0x0a, 0x80})).has_value());  // varint cut
}

TEST(Example, DecodesTensorFlowWrittenExamples) {
  // lingvo wmt14: 100 Examples with 10 keys (fixture README lists them).
  auto reader = RecordReader::open(testing::data_path("tfrecord/lingvo__wmt14_ende_wpm_32k_test.tfrecord"));
  ASSERT_TRUE(reader.has_value());
  size_t n = 0;
  for (;;) {
    auto rec = reader->next();
    ASSERT_TRUE(rec.has_value());
    if (!*rec) break;
    auto ex = decode_example(**rec);
    ASSERT_TRUE(ex.has_value()) << ex.error().to_string();
    EXPECT_EQ(ex->size(), 10u);
    EXPECT_EQ(ex->at("source_id").kind, FeatureKind::kInt64);
    EXPECT_EQ(ex->at("source_padding").kind, FeatureKind::kFloat);
    EXPECT_EQ(ex->at("source_word").kind, FeatureKind::kBytes);
    EXPECT_EQ(ex->at("source_id").ints.size(), ex->at("source_padding").floats.size());
    // Re-encoding in key order gives the same bytes (the fixture was written
    // with packed lists and sorted map keys).
    std::vector<std::pair<std::string, FeatureValue>> fs;
    for (const auto& [k, f] : *ex) fs.emplace_back(k, FeatureValue{f.kind, f.bytes, f.floats, f.ints});
    std::string again;
    encode_example(fs, again);
    EXPECT_EQ(again.size(), (*rec)->size());
    ++n;
  }
  EXPECT_EQ(n, 100u);
}

}  // namespace
}  // namespace tfrig::tfrecord

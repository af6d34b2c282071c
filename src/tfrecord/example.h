// tf.train.Example, encoded and decoded by hand on the protobuf wire format.
//
// Schema (tensorflow/core/example/example.proto and feature.proto, proto3):
//   message Example   { Features features = 1; }
//   message Features  { map<string, Feature> feature = 1; }
//   message Feature   { oneof kind { BytesList bytes_list = 1;
//                                    FloatList float_list = 2;
//                                    Int64List int64_list = 3; } }
//   message BytesList { repeated bytes value = 1; }
//   message FloatList { repeated float value = 1 [packed = true]; }
//   message Int64List { repeated int64 value = 1 [packed = true]; }
// A map field is encoded as repeated entry messages {key = 1; value = 2;}
// (protobuf "Language Guide (proto3)", Maps, backwards compatibility).
// Wire format: https://protobuf.dev/programming-guides/encoding/ (varints,
// wire types 0/1/2/5, packed repeated fields; parsers must accept both packed
// and unpacked forms of a repeated scalar, "Packed Repeated Fields").
//
// Why by hand rather than libprotobuf (see docs/tfrecord.md): three tiny
// messages; decoding zero-copy (bytes features are views into the record,
// so `verify --examples` and `inspect` never copy image bytes); encoding
// straight from the file buffer; deterministic key order; no generated code
// or protoc at build time; and the fuzzer covers all of it.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace tfrig::tfrecord {

enum class FeatureKind { kNone, kBytes, kFloat, kInt64 };
std::string_view feature_kind_name(FeatureKind k);  // "none", "bytes_list", "float_list", "int64_list"

// One decoded feature. Bytes values point into the buffer that was decoded.
struct FeatureView {
  FeatureKind kind = FeatureKind::kNone;
  std::vector<std::string_view> bytes;
  std::vector<float> floats;
  std::vector<int64_t> ints;
  size_t size() const;
};

// Keys in sorted order; a key given twice keeps the last (protobuf map rule).
using FeaturesView = std::map<std::string, FeatureView, std::less<>>;

// Decodes a serialized Example. Errors name the byte offset inside the record
// and what was expected there.
core::Result<FeaturesView> decode_example(std::string_view data);

// A feature to encode; bytes values are views (the image stays where it was read).
struct FeatureValue {
  FeatureKind kind = FeatureKind::kNone;
  std::vector<std::string_view> bytes;
  std::vector<float> floats;
  std::vector<int64_t> ints;

  static FeatureValue of_bytes(std::string_view v) { return FeatureValue{FeatureKind::kBytes, {v}, {}, {}}; }
  static FeatureValue of_int(int64_t v) { return FeatureValue{FeatureKind::kInt64, {}, {}, {v}}; }
  static FeatureValue of_float(float v) { return FeatureValue{FeatureKind::kFloat, {}, {v}, {}}; }
};

// Encodes an Example with its features in the order given (callers pass them
// sorted by key, the order protobuf's deterministic serialization uses for
// maps, so equal inputs give equal bytes). Packed encoding for floats/int64s,
// as the schema declares. Appends to out (reusing its capacity).
void encode_example(const std::vector<std::pair<std::string, FeatureValue>>& features, std::string& out);

// --- Low-level wire format, shared with the decoder's tests and fuzzer -----

void put_varint(std::string& out, uint64_t v);
size_t varint_size(uint64_t v);

}  // namespace tfrig::tfrecord

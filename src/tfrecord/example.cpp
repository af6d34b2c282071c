#include "tfrecord/example.h"

#include <cstring>

#include <fmt/format.h>

#include "core/i18n.h"
#include "core/try.h"

namespace tfrig::tfrecord {

namespace {

using core::ErrorCode;

// Wire types (protobuf encoding guide, "Message Structure").
constexpr int kVarint = 0;
constexpr int kFixed64 = 1;
constexpr int kLengthDelimited = 2;
constexpr int kStartGroup = 3;
constexpr int kEndGroup = 4;
constexpr int kFixed32 = 5;

// A cursor over one message's bytes; `base` is the message's offset inside
// the whole record, so errors point at the record byte.
class Cursor {
 public:
  Cursor(std::string_view data, size_t base) : data_(data), base_(base) {}
  bool done() const { return pos_ >= data_.size(); }
  size_t offset() const { return base_ + pos_; }

  core::Result<uint64_t> varint() {
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (pos_ >= data_.size()) return error(core::Message(N_("varint runs past the end of its message")));
      auto b = static_cast<unsigned char>(data_[pos_++]);
      v |= uint64_t(b & 0x7f) << shift;
      if ((b & 0x80) == 0) return v;
    }
    return error(core::Message(N_("varint longer than 10 bytes")));
  }

  core::Result<std::string_view> bytes(size_t* at) {
    auto len = TFRIG_TRY(varint());
    if (len > data_.size() - pos_) {
      return error(core::Message(N_("length-delimited field of {} bytes, but only {} bytes remain in its message"), len,
                                 data_.size() - pos_));
    }
    *at = base_ + pos_;
    std::string_view v = data_.substr(pos_, static_cast<size_t>(len));
    pos_ += static_cast<size_t>(len);
    return v;
  }

  core::Result<uint32_t> fixed32() {
    if (data_.size() - pos_ < 4) return error(core::Message(N_("fixed32 runs past the end of its message")));
    uint32_t v = 0;
    for (int i = 3; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(data_[pos_ + i]);
    pos_ += 4;
    return v;
  }

  // Skips a field of an unknown number (forward compatibility).
  core::Status skip(int wire_type) {
    switch (wire_type) {
      case kVarint: {
        TFRIG_TRY(varint());
        return {};
      }
      case kFixed64:
        if (data_.size() - pos_ < 8) return error(core::Message(N_("fixed64 runs past the end of its message")));
        pos_ += 8;
        return {};
      case kLengthDelimited: {
        size_t at = 0;
        TFRIG_TRY(bytes(&at));
        return {};
      }
      case kFixed32:
        if (data_.size() - pos_ < 4) return error(core::Message(N_("fixed32 runs past the end of its message")));
        pos_ += 4;
        return {};
      default:
        // Groups (3, 4) are proto2-only and never appear in these messages.
        return error(core::Message(N_("unsupported wire type {} (expected 0, 1, 2 or 5)"), wire_type));
    }
  }

  tl::unexpected<core::Error> error(core::Message message) const {
    return core::fail(ErrorCode::kParse, core::Message(N_("byte {}"), base_ + pos_), std::move(message));
  }

 private:
  std::string_view data_;
  size_t base_;
  size_t pos_ = 0;
};

struct Tag {
  uint64_t field;
  int wire_type;
};

core::Result<Tag> read_tag(Cursor& c) {
  auto t = TFRIG_TRY(c.varint());
  Tag tag{t >> 3, static_cast<int>(t & 7)};
  if (tag.field == 0) return c.error(core::Message(N_("field number 0 is not valid")));
  return tag;
}

// Walks the fields of one message: `on_field(tag, cursor)` reads a field it
// knows and returns true; every other field is skipped by its wire type
// (protobuf's rule for unknown fields: forward compatibility).
template <typename OnField>
core::Status for_each_field(std::string_view msg, size_t base, OnField&& on_field) {
  Cursor c(msg, base);
  while (!c.done()) {
    auto tag = TFRIG_TRY(read_tag(c));
    const bool known = TFRIG_TRY(on_field(tag, c));
    if (!known) {
      if (auto st = c.skip(tag.wire_type); !st) return st;
    }
  }
  return {};
}

// A length-delimited field's bytes, with their offset in the record (errors
// inside a nested message name the byte of the whole record).
struct Nested {
  std::string_view data;
  size_t at = 0;
};

core::Result<Nested> read_nested(Cursor& c) {
  Nested n;
  auto v = TFRIG_TRY(c.bytes(&n.at));
  n.data = v;
  return n;
}

bool is_field(const Tag& tag, uint64_t field, int wire_type) {
  return tag.field == field && tag.wire_type == wire_type;
}

core::Status decode_bytes_list(std::string_view msg, size_t base, FeatureView& f) {
  return for_each_field(msg, base, [&](const Tag& tag, Cursor& c) -> core::Result<bool> {
    if (!is_field(tag, 1, kLengthDelimited)) return false;
    auto v = TFRIG_TRY(read_nested(c));
    f.bytes.push_back(v.data);
    return true;
  });
}

float float_from_bits(uint32_t bits) {
  float x;
  std::memcpy(&x, &bits, 4);
  return x;
}

core::Status decode_float_list(std::string_view msg, size_t base, FeatureView& f) {
  return for_each_field(msg, base, [&](const Tag& tag, Cursor& c) -> core::Result<bool> {
    if (is_field(tag, 1, kLengthDelimited)) {  // packed
      auto v = TFRIG_TRY(read_nested(c));
      if (v.data.size() % 4 != 0) {
        return core::fail(ErrorCode::kParse, core::Message(N_("byte {}"), v.at),
                          core::Message(N_("packed float list of {} bytes; expected a multiple of 4"), v.data.size()));
      }
      for (size_t i = 0; i < v.data.size(); i += 4) {
        uint32_t bits = 0;
        for (int k = 3; k >= 0; --k) bits = (bits << 8) | static_cast<unsigned char>(v.data[i + k]);
        f.floats.push_back(float_from_bits(bits));
      }
      return true;
    }
    if (is_field(tag, 1, kFixed32)) {  // unpacked
      auto bits = TFRIG_TRY(c.fixed32());
      f.floats.push_back(float_from_bits(bits));
      return true;
    }
    return false;
  });
}

core::Status decode_int64_list(std::string_view msg, size_t base, FeatureView& f) {
  return for_each_field(msg, base, [&](const Tag& tag, Cursor& c) -> core::Result<bool> {
    if (is_field(tag, 1, kLengthDelimited)) {  // packed
      auto v = TFRIG_TRY(read_nested(c));
      Cursor inner(v.data, v.at);
      while (!inner.done()) {
        auto x = TFRIG_TRY(inner.varint());
        f.ints.push_back(static_cast<int64_t>(x));
      }
      return true;
    }
    if (is_field(tag, 1, kVarint)) {  // unpacked
      auto x = TFRIG_TRY(c.varint());
      f.ints.push_back(static_cast<int64_t>(x));
      return true;
    }
    return false;
  });
}

core::Status decode_feature(std::string_view msg, size_t base, FeatureView& f) {
  return for_each_field(msg, base, [&](const Tag& tag, Cursor& c) -> core::Result<bool> {
    if (tag.wire_type != kLengthDelimited || tag.field < 1 || tag.field > 3) return false;
    auto v = TFRIG_TRY(read_nested(c));
    auto kind = tag.field == 1 ? FeatureKind::kBytes : tag.field == 2 ? FeatureKind::kFloat : FeatureKind::kInt64;
    // oneof: a different member replaces; the same one merges (protobuf
    // merge semantics for repeated fields append).
    if (f.kind != kind) f = FeatureView{kind, {}, {}, {}};
    TFRIG_TRY(kind == FeatureKind::kBytes   ? decode_bytes_list(v.data, v.at, f)
              : kind == FeatureKind::kFloat ? decode_float_list(v.data, v.at, f)
                                            : decode_int64_list(v.data, v.at, f));
    return true;
  });
}

core::Status decode_map_entry(std::string_view msg, size_t base, FeaturesView& out) {
  std::string_view key;
  FeatureView value;
  auto st = for_each_field(msg, base, [&](const Tag& tag, Cursor& c) -> core::Result<bool> {
    if (!is_field(tag, 1, kLengthDelimited) && !is_field(tag, 2, kLengthDelimited)) return false;
    auto v = TFRIG_TRY(read_nested(c));
    if (tag.field == 1) {
      key = v.data;
    } else {
      TFRIG_TRY(decode_feature(v.data, v.at, value));
    }
    return true;
  });
  if (!st) return st;
  out.insert_or_assign(std::string(key), std::move(value));
  return {};
}

core::Status decode_features(std::string_view msg, size_t base, FeaturesView& out) {
  return for_each_field(msg, base, [&](const Tag& tag, Cursor& c) -> core::Result<bool> {
    if (!is_field(tag, 1, kLengthDelimited)) return false;
    auto v = TFRIG_TRY(read_nested(c));
    TFRIG_TRY(decode_map_entry(v.data, v.at, out));
    return true;
  });
}

size_t tag_size(uint64_t field) { return varint_size(field << 3); }

size_t list_payload_size(const FeatureValue& f) {
  switch (f.kind) {
    case FeatureKind::kBytes: {
      size_t n = 0;
      for (auto b : f.bytes) n += tag_size(1) + varint_size(b.size()) + b.size();
      return n;
    }
    case FeatureKind::kFloat:
      if (f.floats.empty()) return 0;
      return tag_size(1) + varint_size(f.floats.size() * 4) + f.floats.size() * 4;
    case FeatureKind::kInt64: {
      if (f.ints.empty()) return 0;
      size_t packed = 0;
      for (auto x : f.ints) packed += varint_size(static_cast<uint64_t>(x));
      return tag_size(1) + varint_size(packed) + packed;
    }
    case FeatureKind::kNone: return 0;
  }
  return 0;
}

void put_tag(std::string& out, uint64_t field, int wire_type) {
  put_varint(out, (field << 3) | static_cast<uint64_t>(wire_type));
}

}  // namespace

std::string_view feature_kind_name(FeatureKind k) {
  switch (k) {
    case FeatureKind::kNone: return "none";
    case FeatureKind::kBytes: return "bytes_list";
    case FeatureKind::kFloat: return "float_list";
    case FeatureKind::kInt64: return "int64_list";
  }
  return "none";
}

size_t FeatureView::size() const {
  switch (kind) {
    case FeatureKind::kBytes: return bytes.size();
    case FeatureKind::kFloat: return floats.size();
    case FeatureKind::kInt64: return ints.size();
    case FeatureKind::kNone: return 0;
  }
  return 0;
}

void put_varint(std::string& out, uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}

size_t varint_size(uint64_t v) {
  size_t n = 1;
  while (v >= 0x80) {
    v >>= 7;
    ++n;
  }
  return n;
}

core::Result<FeaturesView> decode_example(std::string_view data) {
  FeaturesView out;
  TFRIG_TRY(for_each_field(data, 0, [&](const Tag& tag, Cursor& c) -> core::Result<bool> {
    if (tag.wire_type == kStartGroup || tag.wire_type == kEndGroup) {
      return c.error(core::Message(N_("group wire type {} in an Example; expected field 1 (features)"), tag.wire_type));
    }
    if (!is_field(tag, 1, kLengthDelimited)) return false;
    auto v = TFRIG_TRY(read_nested(c));
    TFRIG_TRY(decode_features(v.data, v.at, out));
    return true;
  }));
  return out;
}

void encode_example(const std::vector<std::pair<std::string, FeatureValue>>& features, std::string& out) {
  // Sizes first (protobuf's length prefixes come before the payload), then
  // one pass of appends: no intermediate buffers.
  size_t features_size = 0;
  std::vector<size_t> entry_sizes;
  entry_sizes.reserve(features.size());
  for (const auto& [key, f] : features) {
    size_t list = list_payload_size(f);
    size_t feature = f.kind == FeatureKind::kNone ? 0 : tag_size(1) + varint_size(list) + list;
    size_t entry = tag_size(1) + varint_size(key.size()) + key.size() + tag_size(2) + varint_size(feature) + feature;
    entry_sizes.push_back(entry);
    features_size += tag_size(1) + varint_size(entry) + entry;
  }
  out.reserve(out.size() + tag_size(1) + varint_size(features_size) + features_size);
  put_tag(out, 1, kLengthDelimited);  // Example.features
  put_varint(out, features_size);
  for (size_t i = 0; i < features.size(); ++i) {
    const auto& [key, f] = features[i];
    put_tag(out, 1, kLengthDelimited);  // Features.feature map entry
    put_varint(out, entry_sizes[i]);
    put_tag(out, 1, kLengthDelimited);  // entry.key
    put_varint(out, key.size());
    out.append(key);
    size_t list = list_payload_size(f);
    size_t feature = f.kind == FeatureKind::kNone ? 0 : tag_size(1) + varint_size(list) + list;
    put_tag(out, 2, kLengthDelimited);  // entry.value
    put_varint(out, feature);
    if (f.kind == FeatureKind::kNone) continue;
    int field = f.kind == FeatureKind::kBytes ? 1 : f.kind == FeatureKind::kFloat ? 2 : 3;
    put_tag(out, static_cast<uint64_t>(field), kLengthDelimited);  // Feature.kind
    put_varint(out, list);
    switch (f.kind) {
      case FeatureKind::kBytes:
        for (auto b : f.bytes) {
          put_tag(out, 1, kLengthDelimited);
          put_varint(out, b.size());
          out.append(b);
        }
        break;
      case FeatureKind::kFloat:
        if (f.floats.empty()) break;
        put_tag(out, 1, kLengthDelimited);
        put_varint(out, f.floats.size() * 4);
        for (float x : f.floats) {
          uint32_t bits;
          std::memcpy(&bits, &x, 4);
          for (int k = 0; k < 4; ++k) out.push_back(static_cast<char>((bits >> (8 * k)) & 0xff));
        }
        break;
      case FeatureKind::kInt64: {
        if (f.ints.empty()) break;
        size_t packed = 0;
        for (auto x : f.ints) packed += varint_size(static_cast<uint64_t>(x));
        put_tag(out, 1, kLengthDelimited);
        put_varint(out, packed);
        for (auto x : f.ints) put_varint(out, static_cast<uint64_t>(x));
        break;
      }
      case FeatureKind::kNone: break;
    }
  }
}

}  // namespace tfrig::tfrecord

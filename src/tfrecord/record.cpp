#include "tfrecord/record.h"

#include <fcntl.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "core/errno_text.h"
#include "core/crc32c.h"
#include "core/exit_code.h"
#include "core/i18n.h"
#include "core/input_file.h"
#include "core/name_table.h"
#include "core/text.h"
#include "core/try.h"

namespace tfrig::tfrecord {

namespace {

using core::ErrorCode;

void put_u64le(char* p, uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<char>((v >> (8 * i)) & 0xff);
}
void put_u32le(char* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<char>((v >> (8 * i)) & 0xff);
}
uint64_t get_u64le(const char* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(p[i]);
  return v;
}
uint32_t get_u32le(const char* p) {
  uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(p[i]);
  return v;
}

uint32_t masked_crc(const char* p, size_t n) { return core::crc32c_mask(core::crc32c(p, n)); }

// Plain file, read sequentially in large chunks.
class FileSource final : public ByteSource {
 public:
  FileSource(int fd, std::string path) : fd_(fd), path_(std::move(path)) {}
  ~FileSource() override {
    if (fd_ >= 0) ::close(fd_);
  }
  FileSource(const FileSource&) = delete;
  FileSource& operator=(const FileSource&) = delete;

  core::Result<size_t> read(char* buf, size_t n) override {
    for (;;) {
      ssize_t got = ::read(fd_, buf, n);
      if (got >= 0) return static_cast<size_t>(got);
      if (errno == EINTR) continue;
      return core::fail(ErrorCode::kIo, path_, core::Message(N_("read failed: {}"), core::errno_arg(errno)));
    }
  }

 private:
  int fd_;
  std::string path_;
};

class MemorySource final : public ByteSource {
 public:
  explicit MemorySource(std::string_view data) : data_(data) {}
  core::Result<size_t> read(char* buf, size_t n) override {
    size_t k = std::min(n, data_.size());
    std::memcpy(buf, data_.data(), k);
    data_.remove_prefix(k);
    return k;
  }

 private:
  std::string_view data_;
};

// Replays bytes already read (for sniffing) before the rest of the source.
class PrefixSource final : public ByteSource {
 public:
  PrefixSource(std::string prefix, std::unique_ptr<ByteSource> rest)
      : prefix_(std::move(prefix)), rest_(std::move(rest)) {}
  core::Result<size_t> read(char* buf, size_t n) override {
    if (pos_ < prefix_.size()) {
      size_t k = std::min(n, prefix_.size() - pos_);
      std::memcpy(buf, prefix_.data() + pos_, k);
      pos_ += k;
      return k;
    }
    return rest_->read(buf, n);
  }

 private:
  std::string prefix_;
  size_t pos_ = 0;
  std::unique_ptr<ByteSource> rest_;
};

// 128 KiB reads: large enough that syscalls cost nothing next to copying
// (verify runs at memory speed), small enough for short files and fuzzing.
constexpr size_t kReadChunk = 128u << 10;

// Inflates a gzip or zlib stream. Gzip: several members one after another are
// read as one stream, as gunzip does (RFC 1952 2.2 allows it). Anything after
// the end of a zlib stream, or non-gzip bytes after a gzip member, is
// trailing garbage.
class InflateSource final : public ByteSource {
 public:
  InflateSource(std::unique_ptr<ByteSource> raw, Compression c) : raw_(std::move(raw)), gzip_(c == Compression::kGzip) {
    in_.resize(kReadChunk);
    std::memset(&z_, 0, sizeof z_);
    // window_bits 15 (+16 = expect a gzip wrapper): zlib.h inflateInit2.
    ok_ = inflateInit2(&z_, gzip_ ? 15 + 16 : 15) == Z_OK;
  }
  ~InflateSource() override { inflateEnd(&z_); }
  InflateSource(const InflateSource&) = delete;
  InflateSource& operator=(const InflateSource&) = delete;

  RecordProblem problem() const { return problem_; }

  core::Result<size_t> read(char* buf, size_t n) override {
    if (!ok_) return fail_with(RecordProblem::kDecompress, core::Message(N_("cannot initialise zlib")));
    if (done_) return check_trailing();
    z_.next_out = reinterpret_cast<Bytef*>(buf);
    z_.avail_out = static_cast<uInt>(std::min<size_t>(n, 1u << 30));
    const uInt want = z_.avail_out;
    while (z_.avail_out == want) {
      if (z_.avail_in == 0) {
        auto got = raw_->read(in_.data(), in_.size());
        if (!got) {
          problem_ = RecordProblem::kIo;
          return tl::unexpected(got.error());
        }
        if (*got == 0) {
          return fail_with(RecordProblem::kDecompress,
                           core::Message(N_("{} stream ends early at compressed byte {} (file truncated?); expected "
                                            "more compressed data and the stream trailer"),
                                         gzip_ ? "gzip" : "zlib", consumed_));
        }
        z_.next_in = reinterpret_cast<Bytef*>(in_.data());
        z_.avail_in = static_cast<uInt>(*got);
      }
      uInt before_in = z_.avail_in;
      int rc = inflate(&z_, Z_NO_FLUSH);
      consumed_ += before_in - z_.avail_in;
      if (rc == Z_STREAM_END) {
        done_ = true;
        break;
      }
      if (rc != Z_OK && rc != Z_BUF_ERROR) {
        return fail_with(RecordProblem::kDecompress,
                         core::Message(N_("corrupt {} data near compressed byte {}: {}"), gzip_ ? "gzip" : "zlib",
                                       consumed_, z_.msg ? z_.msg : "inflate error"));
      }
    }
    size_t produced = want - z_.avail_out;
    if (produced == 0 && done_) return check_trailing();
    return produced;
  }

 private:
  core::Result<size_t> fail_with(RecordProblem p, core::Message message) {
    problem_ = p;
    return core::fail(ErrorCode::kParse, "", std::move(message));
  }

  // At the end of a member: more gzip members continue the stream; anything
  // else is garbage.
  core::Result<size_t> check_trailing() {
    for (;;) {
      if (z_.avail_in == 0) {
        auto got = raw_->read(in_.data(), in_.size());
        if (!got) {
          problem_ = RecordProblem::kIo;
          return tl::unexpected(got.error());
        }
        if (*got == 0) return size_t{0};
        z_.next_in = reinterpret_cast<Bytef*>(in_.data());
        z_.avail_in = static_cast<uInt>(*got);
      }
      if (gzip_ && z_.next_in[0] == 0x1f) {
        inflateReset(&z_);
        done_ = false;
        return size_t{0} + 0;  // caller loops; next read() inflates the new member
      }
      return fail_with(
          RecordProblem::kTrailingGarbage,
          core::Message(N_("{} bytes or more after the end of the {} stream at compressed byte {}; expected "
                           "end of file"),
                        z_.avail_in, gzip_ ? "gzip" : "zlib", consumed_));
    }
  }

  std::unique_ptr<ByteSource> raw_;
  bool gzip_;
  z_stream z_;
  bool ok_ = false;
  bool done_ = false;
  uint64_t consumed_ = 0;
  std::vector<char> in_;
  RecordProblem problem_ = RecordProblem::kNone;
};

bool looks_like_zlib(std::string_view b) {
  if (b.size() < 2) return false;
  auto cmf = static_cast<unsigned char>(b[0]);
  auto flg = static_cast<unsigned char>(b[1]);
  return (cmf & 0x0f) == 8 && (cmf >> 4) <= 7 && ((cmf << 8) | flg) % 31 == 0;
}

bool valid_uncompressed_header(std::string_view b) {
  if (b.size() < kHeaderSize) return false;
  return get_u32le(b.data() + 8) == masked_crc(b.data(), 8);
}

}  // namespace

// --compression's words, also those of pack's JSON and the shard index.
constexpr core::NameTable<Compression, 3> kCompressionNames{{{
    {Compression::kNone, "none"},
    {Compression::kGzip, "gzip"},
    {Compression::kZlib, "zlib"},
}}};
static_assert(kCompressionNames.unique());

std::string_view compression_name(Compression c) { return kCompressionNames.name(c, "none"); }

core::Result<Compression> parse_compression(std::string_view text) {
  std::string t = core::to_lower(core::trim(text));
  if (t.empty()) return Compression::kNone;
  if (auto c = kCompressionNames.value(t)) return *c;
  return core::fail(ErrorCode::kInvalidArgument, "--compression",
                    core::Message(N_("unknown compression '{}'; expected none, gzip or zlib"), std::string(text)));
}

Compression sniff_compression(std::string_view b) {
  // A valid first record header wins: a 2^-32 chance for compressed bytes to
  // carry a matching length CRC, against a 2^-16 one for an uncompressed
  // record's length to begin with the gzip magic.
  if (valid_uncompressed_header(b)) return Compression::kNone;
  if (b.size() >= 2 && static_cast<unsigned char>(b[0]) == 0x1f && static_cast<unsigned char>(b[1]) == 0x8b) {
    return Compression::kGzip;
  }
  if (looks_like_zlib(b)) return Compression::kZlib;
  return Compression::kNone;
}

std::string encode_header(uint64_t length) {
  std::string h(kHeaderSize, '\0');
  put_u64le(h.data(), length);
  put_u32le(h.data() + 8, masked_crc(h.data(), 8));
  return h;
}

void append_record(std::string& out, std::string_view data) {
  out += encode_header(data.size());
  out.append(data);
  char footer[kFooterSize];
  put_u32le(footer, masked_crc(data.data(), data.size()));
  out.append(footer, kFooterSize);
}

std::unique_ptr<ByteSource> memory_source(std::string_view data) { return std::make_unique<MemorySource>(data); }

core::Result<std::unique_ptr<ByteSource>> file_source(const std::string& path) {
  // A directory or a device (/dev/zero never ends) is refused by name.
  TFRIG_TRY(core::check_input_file(path));
  // O_NONBLOCK for the open only: a FIFO with no writer reads as empty
  // instead of blocking for ever.
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd >= 0) {
    const int flags = ::fcntl(fd, F_GETFL);
    if (flags >= 0) ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
  }
  if (fd < 0) {
    int err = errno;
    return core::fail(core::error_code_for_errno(err), path,
                      core::Message(N_("cannot open: {}"), core::errno_arg(err)));
  }
  // Shards are read front to back once: ask for aggressive read-ahead.
  (void)::posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
  return std::unique_ptr<ByteSource>(std::make_unique<FileSource>(fd, path));
}

std::string_view record_problem_name(RecordProblem p) {
  switch (p) {
    case RecordProblem::kNone: return "ok";
    case RecordProblem::kTruncatedHeader: return "truncated_header";
    case RecordProblem::kLengthCrc: return "length_crc";
    case RecordProblem::kTruncatedData: return "truncated_record";
    case RecordProblem::kDataCrc: return "data_crc";
    case RecordProblem::kDecompress: return "decompress";
    case RecordProblem::kTrailingGarbage: return "trailing_garbage";
    case RecordProblem::kIo: return "io";
  }
  return "io";
}

core::Message RecordError::message_at(const std::string& path) const {
  return core::Message(N_("{}: record {} at byte offset {}: {}"), path, record_index, offset, text);
}

std::string RecordError::to_string(const std::string& path) const {
  return core::render(message_at(path), core::i18n::language());
}

// --- RecordReader ------------------------------------------------------------

struct RecordReader::Impl {
  std::unique_ptr<ByteSource> source;
  InflateSource* inflate = nullptr;  // owned by source when compressed
  ReaderOptions options;
  Compression compression = Compression::kNone;
  bool started = false;
  bool failed = false;
  RecordError error;

  std::vector<char> buf;
  size_t begin = 0;
  size_t end = 0;
  bool eof = false;
  bool source_failed = false;
  core::Error source_error;
  uint64_t stream_offset = 0;  // uncompressed offset of buf[begin]

  void start() {
    started = true;
    Compression c = Compression::kNone;
    if (options.compression) {
      c = *options.compression;
    } else {
      // Sniff from the first bytes, then replay them.
      std::string first(64, '\0');
      size_t have = 0;
      while (have < first.size()) {
        auto got = source->read(first.data() + have, first.size() - have);
        if (!got) {
          source_failed = true;
          source_error = got.error();
          break;
        }
        if (*got == 0) break;
        have += *got;
      }
      first.resize(have);
      c = sniff_compression(first);
      source = std::make_unique<PrefixSource>(std::move(first), std::move(source));
    }
    compression = c;
    if (c != Compression::kNone) {
      auto inf = std::make_unique<InflateSource>(std::move(source), c);
      inflate = inf.get();
      source = std::move(inf);
    }
  }

  // Makes at least n bytes available at buf[begin] if the stream has them.
  // Returns the bytes available. Grows the buffer only as data arrives.
  size_t fill(uint64_t n) {
    while (end - begin < n && !eof && !source_failed) {
      if (begin > 0 && (begin == end || buf.size() - end < kReadChunk)) {
        std::memmove(buf.data(), buf.data() + begin, end - begin);
        end -= begin;
        begin = 0;
      }
      if (buf.size() - end < kReadChunk) {
        size_t want = std::max(end + kReadChunk, buf.size() * 2);
        buf.resize(want);
      }
      auto got = source->read(buf.data() + end, buf.size() - end);
      if (!got) {
        source_failed = true;
        source_error = got.error();
        break;
      }
      if (*got == 0) {
        // A gzip member boundary returns 0 once; the inflater then continues.
        if (inflate != nullptr && inflate_can_continue()) continue;
        eof = true;
        break;
      }
      end += *got;
    }
    return end - begin;
  }

  // After an InflateSource returned 0 at a member boundary it may have more.
  bool inflate_can_continue() {
    auto got = source->read(buf.data() + end, buf.size() - end);
    if (!got) {
      source_failed = true;
      source_error = got.error();
      return false;
    }
    end += *got;
    return *got > 0;
  }

  RecordError make_error(RecordProblem p, uint64_t record_index, core::Message message) {
    failed = true;
    error = RecordError{p, stream_offset, record_index, core::english(message), std::move(message)};
    return error;
  }

  RecordError source_problem(uint64_t record_index) {
    RecordProblem p = RecordProblem::kIo;
    if (inflate != nullptr && inflate->problem() != RecordProblem::kNone) p = inflate->problem();
    // The source's error as one message ("PATH: read failed: ..."); one built
    // from a plain string (zlib's own words) shows as it is.
    core::Message message = core::error_message(source_error).value_or(core::Message("{}", source_error.to_string()));
    return make_error(p, record_index, std::move(message));
  }
};

RecordReader::RecordReader(std::unique_ptr<ByteSource> source, ReaderOptions options)
    : impl_(std::make_unique<Impl>()) {
  impl_->source = std::move(source);
  impl_->options = options;
}
RecordReader::~RecordReader() = default;
RecordReader::RecordReader(RecordReader&&) noexcept = default;
RecordReader& RecordReader::operator=(RecordReader&&) noexcept = default;

core::Result<RecordReader> RecordReader::open(const std::string& path, ReaderOptions options) {
  auto src = TFRIG_TRY(file_source(path));
  return RecordReader(std::move(src), options);
}

Compression RecordReader::compression() const { return impl_->compression; }

tl::expected<std::optional<std::string_view>, RecordError> RecordReader::next() {
  Impl& s = *impl_;
  if (s.failed) return tl::unexpected(s.error);
  if (!s.started) s.start();
  const uint64_t index = records_;

  size_t avail = s.fill(kHeaderSize);
  if (avail == 0) {
    if (s.source_failed) return tl::unexpected(s.source_problem(index));
    return std::optional<std::string_view>{};
  }
  if (avail < kHeaderSize) {
    if (s.source_failed) return tl::unexpected(s.source_problem(index));
    return tl::unexpected(s.make_error(
        RecordProblem::kTruncatedHeader, index,
        core::Message(N_("{} byte(s) after the last complete record; expected a {}-byte record header or end of file "
                         "(truncated file or trailing garbage)"),
                      avail, kHeaderSize)));
  }
  const char* h = s.buf.data() + s.begin;
  const uint64_t length = get_u64le(h);
  if (s.options.check_crc) {
    uint32_t stored = get_u32le(h + 8);
    uint32_t computed = masked_crc(h, 8);
    if (stored != computed) {
      return tl::unexpected(s.make_error(
          RecordProblem::kLengthCrc, index,
          core::Message(N_("length CRC mismatch: stored 0x{:08x}, expected 0x{:08x} (masked CRC-32C of the 8 length "
                           "bytes, which read {})"),
                        stored, computed, length)));
    }
  }
  // A length so large that header + data + footer overflows cannot be real.
  constexpr uint64_t kMax = UINT64_MAX - kHeaderSize - kFooterSize;
  const uint64_t need = length > kMax ? UINT64_MAX : kHeaderSize + length + kFooterSize;
  avail = s.fill(need);
  if (avail < need) {
    if (s.source_failed) return tl::unexpected(s.source_problem(index));
    return tl::unexpected(s.make_error(
        RecordProblem::kTruncatedData, index,
        core::Message(
            N_("truncated record: header says {} data bytes, so {} bytes with header and CRCs, but only {} "
               "remain"),
            length, need == UINT64_MAX ? core::MessageArg(core::Message(N_("more than 2^64"))) : core::MessageArg(need),
            avail)));
  }
  const char* data = s.buf.data() + s.begin + kHeaderSize;
  const size_t len = static_cast<size_t>(length);
  if (s.options.check_crc) {
    uint32_t stored = get_u32le(data + len);
    uint32_t computed = masked_crc(data, len);
    if (stored != computed) {
      return tl::unexpected(s.make_error(
          RecordProblem::kDataCrc, index,
          core::Message(
              N_("data CRC mismatch: stored 0x{:08x}, expected 0x{:08x} (masked CRC-32C of the {} data bytes)"), stored,
              computed, len)));
    }
  }
  record_offset_ = s.stream_offset;
  s.begin += need;
  s.stream_offset += need;
  ++records_;
  return std::optional<std::string_view>{std::string_view(data, len)};
}

// --- RecordWriter ------------------------------------------------------------

struct RecordWriter::Impl {
  core::AtomicWriter file;
  WriterOptions options;
  std::string buf;  // uncompressed framing (kNone) or compressed output
  bool deflating = false;
  bool finished = false;
  z_stream z{};
  std::string zout;

  ~Impl() {
    if (deflating) deflateEnd(&z);
  }

  core::Status flush_buf() {
    if (buf.empty()) return {};
    auto st = file.write(buf);
    buf.clear();
    return st;
  }

  core::Status put(std::string_view data) {
    if (!deflating) {
      if (buf.size() + data.size() > options.buffer_size) {
        if (auto st = flush_buf(); !st) return st;
        if (data.size() >= options.buffer_size) return file.write(data);
      }
      buf.append(data);
      return {};
    }
    return deflate_some(data, Z_NO_FLUSH);
  }

  core::Status deflate_some(std::string_view data, int flush) {
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
    z.avail_in = static_cast<uInt>(data.size());
    for (;;) {
      z.next_out = reinterpret_cast<Bytef*>(zout.data());
      z.avail_out = static_cast<uInt>(zout.size());
      int rc = deflate(&z, flush);
      if (rc == Z_STREAM_ERROR) return core::fail(ErrorCode::kInternal, file.path(), "deflate failed");
      size_t produced = zout.size() - z.avail_out;
      if (produced > 0) {
        buf.append(zout.data(), produced);
        if (buf.size() >= options.buffer_size) {
          if (auto st = flush_buf(); !st) return st;
        }
      }
      if (flush == Z_FINISH) {
        if (rc == Z_STREAM_END) return {};
      } else if (z.avail_in == 0 && z.avail_out != 0) {
        return {};
      }
    }
  }
};

RecordWriter::RecordWriter() = default;
RecordWriter::~RecordWriter() = default;
RecordWriter::RecordWriter(RecordWriter&&) noexcept = default;
RecordWriter& RecordWriter::operator=(RecordWriter&&) noexcept = default;

core::Result<RecordWriter> RecordWriter::create(const std::string& path, WriterOptions options) {
  auto file = TFRIG_TRY(core::AtomicWriter::open(path));
  RecordWriter w;
  w.impl_ = std::make_unique<Impl>();
  w.impl_->file = std::move(file);
  w.impl_->options = options;
  w.impl_->buf.reserve(options.buffer_size);
  if (options.compression != Compression::kNone) {
    int bits = options.compression == Compression::kGzip ? 15 + 16 : 15;
    // mem_level 9: TensorFlow's ZlibCompressionOptions default.
    if (deflateInit2(&w.impl_->z, options.level, Z_DEFLATED, bits, 9, Z_DEFAULT_STRATEGY) != Z_OK) {
      return core::fail(ErrorCode::kInternal, path, _("cannot initialise zlib deflate"));
    }
    w.impl_->deflating = true;
    w.impl_->zout.resize(256u << 10);
  }
  return w;
}

core::Status RecordWriter::write(std::string_view record) {
  if (!impl_) return core::fail(ErrorCode::kInternal, "", "write on a closed RecordWriter");
  std::string header = encode_header(record.size());
  char footer[kFooterSize];
  put_u32le(footer, masked_crc(record.data(), record.size()));
  if (auto st = impl_->put(header); !st) return st;
  if (auto st = impl_->put(record); !st) return st;
  if (auto st = impl_->put(std::string_view(footer, kFooterSize)); !st) return st;
  uncompressed_offset_ += kHeaderSize + record.size() + kFooterSize;
  ++records_;
  return {};
}

core::Status RecordWriter::flush() {
  if (!impl_) return core::fail(ErrorCode::kInternal, "", "flush on a closed RecordWriter");
  return impl_->flush_buf();
}

core::Status RecordWriter::finish() {
  if (!impl_) return core::fail(ErrorCode::kInternal, "", "finish on a closed RecordWriter");
  if (impl_->finished) return {};
  if (impl_->deflating) {
    if (auto st = impl_->deflate_some({}, Z_FINISH); !st) return st;
  }
  if (auto st = impl_->flush_buf(); !st) return st;
  impl_->finished = true;
  return {};
}

core::Status RecordWriter::commit() {
  if (auto st = finish(); !st) return st;
  return impl_->file.commit();
}

uint64_t RecordWriter::file_bytes() const { return impl_ ? impl_->file.bytes_written() : 0; }

void RecordWriter::abort() {
  if (impl_) impl_->file.abort();
}

const std::string& RecordWriter::path() const {
  static const std::string kEmpty;
  return impl_ ? impl_->file.path() : kEmpty;
}

core::Result<std::string> compress_stream(std::string_view data, Compression c, int level) {
  if (c == Compression::kNone) return std::string(data);
  z_stream z{};
  int bits = c == Compression::kGzip ? 15 + 16 : 15;
  if (deflateInit2(&z, level, Z_DEFLATED, bits, 9, Z_DEFAULT_STRATEGY) != Z_OK) {
    return core::fail(ErrorCode::kInternal, "", _("cannot initialise zlib deflate"));
  }
  std::string out(deflateBound(&z, data.size()) + 64, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  z.avail_in = static_cast<uInt>(data.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  int rc = deflate(&z, Z_FINISH);
  out.resize(out.size() - z.avail_out);
  deflateEnd(&z);
  if (rc != Z_STREAM_END) return core::fail(ErrorCode::kInternal, "", "deflate did not finish");
  return out;
}

}  // namespace tfrig::tfrecord

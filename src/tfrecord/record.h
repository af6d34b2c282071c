// TFRecord framing and compression: reading and writing the record stream.
//
// Each record (tensorflow/core/lib/io/record_writer.cc, RecordWriter::WriteRecord;
// tensorflow/docs site/en/tutorials/load_data/tfrecord.ipynb "TFRecords format
// details"):
//   uint64 length              little-endian (core::EncodeFixed64, coding.cc)
//   uint32 masked_crc32c(length bytes)
//   byte   data[length]
//   uint32 masked_crc32c(data)
// Records are concatenated; there is no file header or trailer.
//
// Compression wraps the whole framed stream, not each record
// (record_writer.cc feeds the framing into a ZlibOutputBuffer): "ZLIB" is a
// zlib stream (RFC 1950), "GZIP" a gzip member (RFC 1952) made by zlib with
// window_bits + 16 (tensorflow/core/lib/io/zlib_compression_options.h).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/atomic_file.h"
#include "core/result.h"

namespace tfrig::tfrecord {

// 8 length bytes + 4 length CRC; the data CRC follows the data.
constexpr size_t kHeaderSize = 12;
constexpr size_t kFooterSize = 4;

enum class Compression { kNone, kGzip, kZlib };

std::string_view compression_name(Compression c);  // "none", "gzip", "zlib"
// "", "none", "gzip", "zlib" (any case), as tf.io.TFRecordOptions takes them.
core::Result<Compression> parse_compression(std::string_view text);
// What the first bytes say: 1f 8b = gzip (RFC 1952 2.3.1); a zlib header is
// CMF=0x78 (deflate, 32K window) with (CMF*256+FLG) % 31 == 0 (RFC 1950 2.2).
// An uncompressed TFRecord starts with a length whose high bytes are almost
// always zero, so the two cannot be confused in practice for records < 2^56 B.
Compression sniff_compression(std::string_view first_bytes);

// The 12-byte header of a record of `length` bytes.
std::string encode_header(uint64_t length);
// Appends one framed record to out.
void append_record(std::string& out, std::string_view data);

// --- Reading ---------------------------------------------------------------

// Where the bytes of a (possibly compressed) stream come from.
class ByteSource {
 public:
  virtual ~ByteSource() = default;
  // Reads up to n bytes; 0 = end of stream. Errors name the file.
  virtual core::Result<size_t> read(char* buf, size_t n) = 0;
};

std::unique_ptr<ByteSource> memory_source(std::string_view data);
core::Result<std::unique_ptr<ByteSource>> file_source(const std::string& path);

// What is wrong with a stream, for `verify` (one kind per first problem).
enum class RecordProblem {
  kNone,
  kTruncatedHeader,  // fewer than 12 bytes left after the last good record
  kLengthCrc,        // the length's CRC does not match
  kTruncatedData,    // the stream ends inside the data or its CRC
  kDataCrc,          // the data's CRC does not match
  kDecompress,       // the gzip/zlib stream is corrupt or cut short
  kTrailingGarbage,  // bytes after the end of the compressed stream
  kIo,               // the file could not be read
};
std::string_view record_problem_name(RecordProblem p);

struct ReaderOptions {
  // nullopt = sniff from the first bytes.
  std::optional<Compression> compression;
  bool check_crc = true;
};

struct RecordError {
  RecordProblem problem = RecordProblem::kNone;
  uint64_t offset = 0;  // in the uncompressed stream: the start of the bad record
  uint64_t record_index = 0;
  std::string message;  // what was found and what was expected, in English (english(text))
  core::Message text;   // the same as a message, rendered by each output in its language
  // "PATH: record N at byte offset B: MESSAGE", as a message and in the
  // process's language (for the terminal).
  core::Message message_at(const std::string& path) const;
  std::string to_string(const std::string& path) const;
};

// Reads records one at a time from a source, checking framing and CRCs.
// Memory: one read chunk plus the largest record seen (the buffer grows only
// as real bytes arrive, so a corrupt length cannot make it allocate more).
class RecordReader {
 public:
  RecordReader(std::unique_ptr<ByteSource> source, ReaderOptions options);
  ~RecordReader();
  RecordReader(RecordReader&&) noexcept;
  RecordReader& operator=(RecordReader&&) noexcept;

  static core::Result<RecordReader> open(const std::string& path, ReaderOptions options = {});

  // The next record's data (valid until the next call), nullopt at a clean end
  // of stream, or the first problem (after which the reader stays failed).
  tl::expected<std::optional<std::string_view>, RecordError> next();

  // Offset (uncompressed) of the record next() last returned.
  uint64_t record_offset() const { return record_offset_; }
  uint64_t records_read() const { return records_; }
  Compression compression() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  uint64_t record_offset_ = 0;
  uint64_t records_ = 0;
};

// --- Writing ---------------------------------------------------------------

struct WriterOptions {
  Compression compression = Compression::kNone;
  // TensorFlow's ZlibCompressionOptions defaults (zlib_compression_options.h):
  // level Z_DEFAULT_COMPRESSION (6), mem_level 9, window_bits 15, default
  // strategy. With these a GZIP/ZLIB shard is bit-identical to what
  // tf.io.TFRecordWriter writes for the same records.
  int level = -1;
  size_t buffer_size = 4u << 20;  // bytes gathered before each write(2)
};

// Writes a shard under a temporary name (core::AtomicWriter); commit() makes
// it appear under its final name, complete. Destroyed uncommitted = removed.
class RecordWriter {
 public:
  RecordWriter();
  ~RecordWriter();
  RecordWriter(RecordWriter&&) noexcept;
  RecordWriter& operator=(RecordWriter&&) noexcept;

  static core::Result<RecordWriter> create(const std::string& path, WriterOptions options = {});

  core::Status write(std::string_view record);
  // Offset in the uncompressed stream where the next record will start.
  uint64_t uncompressed_offset() const { return uncompressed_offset_; }
  uint64_t records() const { return records_; }
  // Writes buffered bytes to the temporary file (for crash tests; the
  // compressed stream stays open).
  core::Status flush();
  // Ends the compressed stream and writes everything out (still under the
  // temporary name); file_bytes() is final afterwards.
  core::Status finish();
  // finish() if not done, then fsync and rename into place.
  core::Status commit();
  // Bytes written so far (final after finish()).
  uint64_t file_bytes() const;
  void abort();
  const std::string& path() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  uint64_t uncompressed_offset_ = 0;
  uint64_t records_ = 0;
};

// Compresses a whole buffer as TensorFlow's writer would (for tests/tools).
core::Result<std::string> compress_stream(std::string_view data, Compression c, int level = -1);

}  // namespace tfrig::tfrecord

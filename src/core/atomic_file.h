// Writes that never leave a half file under the final name: write to a
// temporary name in the same directory, fsync, rename, fsync the directory.
// A crash leaves either the old file or the new one, plus at most a stray
// "*.tmp-*" that the next run can remove.
#pragma once

#include <string>
#include <string_view>

#include "core/result.h"

namespace tfrig::core {

Status write_file_atomic(const std::string& path, std::string_view content, unsigned mode = 0644);

// For large outputs written in pieces (TFRecord shards, reports).
// Not committed = the temporary file is removed when the writer dies.
class AtomicWriter {
 public:
  AtomicWriter() = default;
  ~AtomicWriter();
  AtomicWriter(const AtomicWriter&) = delete;
  AtomicWriter& operator=(const AtomicWriter&) = delete;
  AtomicWriter(AtomicWriter&& other) noexcept;
  AtomicWriter& operator=(AtomicWriter&& other) noexcept;

  static Result<AtomicWriter> open(const std::string& path, unsigned mode = 0644);

  Status write(std::string_view data);
  // fsync + rename into place + fsync of the directory.
  Status commit();
  // Removes the temporary file; safe to call twice.
  void abort();

  const std::string& path() const { return path_; }
  const std::string& temp_path() const { return temp_path_; }
  uint64_t bytes_written() const { return bytes_written_; }

 private:
  std::string path_;
  std::string temp_path_;
  int fd_ = -1;
  uint64_t bytes_written_ = 0;
};

}  // namespace tfrig::core

// Helpers for the tfrecord tests: scratch directories, files, running the
// tfrig binary, and tiny synthetic image headers.
#pragma once

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>

#include "test_paths.h"

namespace tfrig::testing {

inline std::string data_path(const std::string& rel) { return std::string(TFRIG_TEST_DATA) + "/" + rel; }

class ScratchDir {
 public:
  ScratchDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "tfrig-test-XXXXXX").string();
    char* p = ::mkdtemp(tmpl.data());
    path_ = p != nullptr ? p : "";
  }
  ~ScratchDir() {
    std::error_code ec;
    // Restore permissions we may have taken away, then remove everything.
    for (auto it = std::filesystem::recursive_directory_iterator(path_, ec);
         !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
      ::chmod(it->path().c_str(), 0755);
    }
    std::filesystem::remove_all(path_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const std::string& path() const { return path_; }
  std::string operator/(const std::string& rel) const { return path_ + "/" + rel; }

 private:
  std::string path_;
};

inline void write_file(const std::string& path, const std::string& data) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream out(path, std::ios::binary);
  out.write(data.data(), static_cast<std::streamsize>(data.size()));
}

inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') out += "'\\''";
    else out += c;
  }
  return out + "'";
}

struct RunResult {
  int exit_code = -1;
  std::string out;  // stdout and stderr together
};

// Runs a shell command line, capturing stdout+stderr.
inline RunResult run_shell(const std::string& cmd) {
  RunResult r;
  FILE* p = ::popen((cmd + " 2>&1").c_str(), "r");
  if (p == nullptr) return r;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  int status = ::pclose(p);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return r;
}

inline RunResult run_tfrig(const std::string& args) {
  return run_shell(shell_quote(TFRIG_BINARY) + " " + args);
}

// Random filler bytes (deterministic per seed) standing in for entropy-coded data.
inline std::string filler(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::string s(n, '\0');
  for (auto& c : s) c = static_cast<char>(rng() & 0xff);
  return s;
}

// Minimal JPEG: SOI, APP0 (JFIF), SOF0 (T.81 B.2.2) with the given size and
// components, SOS, filler, EOI. Enough for header sniffing, not for decoding.
inline std::string tiny_jpeg(uint16_t w, uint16_t h, uint8_t comps = 3, size_t payload = 200, uint32_t seed = 1) {
  std::string s = "\xFF\xD8";
  s += std::string("\xFF\xE0\x00\x10JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00", 18);
  uint16_t len = static_cast<uint16_t>(8 + 3 * comps);
  s += "\xFF\xC0";
  s += static_cast<char>(len >> 8);
  s += static_cast<char>(len & 0xff);
  s += static_cast<char>(8);
  s += static_cast<char>(h >> 8);
  s += static_cast<char>(h & 0xff);
  s += static_cast<char>(w >> 8);
  s += static_cast<char>(w & 0xff);
  s += static_cast<char>(comps);
  for (uint8_t c = 0; c < comps; ++c) s += std::string{static_cast<char>(c + 1), '\x11', '\x00'};
  s += std::string("\xFF\xDA\x00\x08\x01\x01\x00\x00\x3f\x00", 10);
  std::string f = filler(payload, seed);
  for (auto& c : f) {
    if (c == '\xFF') c = '\x00';
  }
  s += f;
  s += "\xFF\xD9";
  return s;
}

inline std::string be32(uint32_t v) {
  return std::string{static_cast<char>(v >> 24), static_cast<char>((v >> 16) & 0xff), static_cast<char>((v >> 8) & 0xff),
                     static_cast<char>(v & 0xff)};
}
inline std::string le16(uint16_t v) { return std::string{static_cast<char>(v & 0xff), static_cast<char>(v >> 8)}; }
inline std::string le32(uint32_t v) { return le16(static_cast<uint16_t>(v & 0xffff)) + le16(static_cast<uint16_t>(v >> 16)); }

// PNG signature + IHDR (CRC left zero: sniffing does not check it).
inline std::string tiny_png(uint32_t w, uint32_t h, uint8_t colour_type) {
  std::string s("\x89PNG\r\n\x1a\n", 8);
  s += be32(13) + "IHDR" + be32(w) + be32(h);
  s += static_cast<char>(8);
  s += static_cast<char>(colour_type);
  s += std::string(3, '\0') + be32(0);
  return s;
}

}  // namespace tfrig::testing

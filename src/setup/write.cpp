#include "setup/write.h"

#include <filesystem>

#include "core/atomic_file.h"
#include "core/i18n.h"

namespace tfrig::setup {

namespace fs = std::filesystem;

core::Status write_outputs(const std::string& dir, const std::vector<OutputFile>& files, bool force) {
  std::error_code ec;
  if (fs::exists(dir, ec)) {
    if (!fs::is_directory(dir, ec)) return core::fail(core::ErrorCode::kInvalidArgument, dir, _("-o must be a directory"));
    if (!force && !fs::is_empty(dir, ec)) {
      return core::fail(core::ErrorCode::kInvalidArgument, dir,
                        _("is not empty; choose a new directory or pass --force to replace tfrig's files in it"));
    }
  }
  for (const auto& f : files) {
    const fs::path path = fs::path(dir) / f.path;
    fs::create_directories(path.parent_path(), ec);
    if (ec) return core::fail(core::ErrorCode::kIo, path.parent_path().string(), trf("cannot create: {}", ec.message()));
    if (auto st = core::write_file_atomic(path.string(), f.content, f.mode); !st) return st;
  }
  return {};
}

}  // namespace tfrig::setup

#include "capture/capture.h"

#include <filesystem>
#include <fstream>
#include <set>

#include <nlohmann/json.hpp>

#include "core/i18n.h"
#include "core/text.h"
#include "importer/gzip.h"

namespace tfrig::capture {

namespace {

using Kind = core::SysRoot::Kind;

std::vector<std::string> components(std::string_view path) {
  std::vector<std::string> out;
  for (auto part : core::split(path, '/')) {
    if (!part.empty() && part != ".") out.emplace_back(part);
  }
  return out;
}

std::string join(const std::vector<std::string>& parts, size_t n) {
  std::string out;
  for (size_t i = 0; i < n && i < parts.size(); ++i) out += (i ? "/" : "") + parts[i];
  return out;
}

std::string parent_of(const std::string& rel) {
  auto slash = rel.rfind('/');
  return slash == std::string::npos ? "" : rel.substr(0, slash);
}

// A link target as seen from inside the tree: an absolute target becomes
// relative to the link's folder, so the unpacked tree never points outside.
std::string relative_target(const std::string& link_rel, const std::string& target) {
  if (target.empty() || target.front() != '/') return target;
  std::string up;
  for (size_t i = 0; i < components(parent_of(link_rel)).size(); ++i) up += "../";
  const std::string rest = join(components(target), components(target).size());
  return up.empty() ? (rest.empty() ? "." : rest) : up + rest;
}

class TreeBuilder {
 public:
  explicit TreeBuilder(const core::SysRoot& root) : root_(root) {}

  // Walks rel component by component through symlinks (each stored as a
  // link), creating the folders on the way; returns the path the last
  // component really has in the tree, or nullopt when it does not exist.
  std::optional<std::string> add_path(const std::string& rel) {
    std::vector<std::string> todo = components(rel);
    std::vector<std::string> done;
    int links = 0;
    while (!todo.empty()) {
      const std::string part = todo.front();
      todo.erase(todo.begin());
      if (part == "..") {
        if (!done.empty()) done.pop_back();
        continue;
      }
      done.push_back(part);
      const std::string here = join(done, done.size());
      const Kind kind = root_.kind_of(here);
      if (kind == Kind::kMissing) return std::nullopt;
      if (kind == Kind::kLink) {
        auto target = root_.read_link(here);
        if (!target || ++links > 40) return std::nullopt;
        put(here, TarEntry{TarEntry::Type::kSymlink, here, "", relative_target(here, *target)});
        done.pop_back();
        if (!target->empty() && target->front() == '/') done.clear();
        auto t = components(*target);
        todo.insert(todo.begin(), t.begin(), t.end());
        continue;
      }
      if (!todo.empty()) {
        if (kind != Kind::kDir) return std::nullopt;
        put_dir(here);
      } else if (kind == Kind::kDir) {
        put_dir(here);
      } else if (!entries_.count(here)) {
        // A file looked up but not read (a library found by name, a device
        // node): present, empty.
        put(here, TarEntry{TarEntry::Type::kFile, here, "", ""});
      }
    }
    return join(done, done.size());
  }

  void add_read(const std::string& rel, const std::string& bytes) {
    auto real = add_path(rel);
    if (!real || real->empty()) return;
    entries_[*real] = TarEntry{TarEntry::Type::kFile, *real, bytes, ""};
  }

  void add_listing(const std::string& rel) {
    auto real = add_path(rel);
    if (!real) return;
    auto names = root_.list_dir(*real);
    if (!names) return;
    for (const auto& name : *names) {
      const std::string child = real->empty() ? name : *real + "/" + name;
      if (entries_.count(child)) continue;
      switch (root_.kind_of(child)) {
        case Kind::kLink:
          if (auto t = root_.read_link(child)) {
            put(child, TarEntry{TarEntry::Type::kSymlink, child, "", relative_target(child, *t)});
          }
          break;
        case Kind::kDir: put_dir(child); break;
        case Kind::kFile:
        case Kind::kOther: put(child, TarEntry{TarEntry::Type::kFile, child, "", ""}); break;
        case Kind::kMissing: break;
      }
    }
  }

  std::vector<TarEntry> entries() const {
    std::vector<TarEntry> out;
    for (const auto& [path, e] : entries_) {
      if (path.empty()) continue;
      TarEntry copy = e;
      copy.path = std::string(kTreePrefix) + path;
      out.push_back(std::move(copy));
    }
    return out;
  }

 private:
  void put(const std::string& path, TarEntry e) {
    if (path.empty()) return;
    auto it = entries_.find(path);
    if (it != entries_.end() && it->second.type == TarEntry::Type::kFile && !it->second.data.empty()) return;
    entries_[path] = std::move(e);
  }
  void put_dir(const std::string& path) {
    if (!path.empty() && !entries_.count(path)) entries_[path] = TarEntry{TarEntry::Type::kDir, path, "", ""};
  }

  const core::SysRoot& root_;
  std::map<std::string, TarEntry> entries_;  // sorted: a folder before what it holds
};

nlohmann::json manifest_json(const Manifest& m) {
  return {{"tfrig_capture", m.format},   {"tool_version", m.tool_version}, {"captured_at", m.captured_at},
          {"env", m.env},                {"data_paths", m.data_paths},     {"python_prefixes", m.python_prefixes}};
}

core::Result<Manifest> manifest_from_json(std::string_view text) {
  auto j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("tfrig_capture")) {
    return core::fail(core::ErrorCode::kParse, std::string(kManifestName), _("expected a JSON object with \"tfrig_capture\""));
  }
  Manifest m;
  try {
    m.format = j.at("tfrig_capture").get<int>();
    m.tool_version = j.value("tool_version", "");
    m.captured_at = j.value("captured_at", "");
    m.env = j.value("env", std::map<std::string, std::string>{});
    m.data_paths = j.value("data_paths", std::vector<std::string>{});
    m.python_prefixes = j.value("python_prefixes", std::vector<std::string>{});
  } catch (const nlohmann::json::exception& e) {
    return core::fail(core::ErrorCode::kParse, std::string(kManifestName), e.what());
  }
  if (m.format != 1) {
    return core::fail(core::ErrorCode::kUnsupported, std::string(kManifestName),
                      trf("capture format {}, this tfrig reads format 1", m.format));
  }
  return m;
}

// A path from the archive that stays inside the tree.
bool safe_relative(std::string_view path) {
  if (path.empty() || path.front() == '/') return false;
  for (const auto& part : components(path)) {
    if (part == "..") return false;
  }
  return true;
}

// A symlink at link_rel pointing at target stays inside the tree.
bool safe_link(const std::string& link_rel, const std::string& target) {
  if (target.empty() || target.front() == '/') return false;
  int depth = static_cast<int>(components(parent_of(link_rel)).size());
  for (const auto& part : components(target)) {
    depth += part == ".." ? -1 : 1;
    if (depth < 0) return false;
  }
  return true;
}

constexpr size_t kMaxUnpacked = 1u << 30;

}  // namespace

std::vector<TarEntry> capture_entries(const core::SysRoot& root, const core::AccessLog::Snapshot& log,
                                      const Manifest& manifest) {
  TreeBuilder tree(root);
  for (const auto& rel : log.looked_up) tree.add_path(rel);
  for (const auto& rel : log.listed) tree.add_listing(rel);
  for (const auto& [rel, bytes] : log.reads) tree.add_read(rel, bytes);
  std::vector<TarEntry> out;
  out.push_back(TarEntry{TarEntry::Type::kFile, std::string(kManifestName), manifest_json(manifest).dump(1) + "\n", ""});
  out.push_back(TarEntry{TarEntry::Type::kDir, "root", "", ""});
  for (auto& e : tree.entries()) out.push_back(std::move(e));
  return out;
}

bool is_capture(std::string_view bytes) {
  std::string plain;
  if (importer::is_gzip(bytes)) {
    // The manifest is the first entry: the first few kB decide.
    auto head = importer::gunzip(bytes, kMaxUnpacked);
    if (!head) return false;
    plain = std::move(*head);
    bytes = plain;
  }
  if (bytes.size() < 512) return false;
  return bytes.substr(0, kManifestName.size()) == kManifestName && bytes[kManifestName.size()] == '\0';
}

core::Result<Unpacked> unpack_capture(std::string_view bytes, const std::string& dir) {
  std::string plain;
  if (importer::is_gzip(bytes)) {
    auto out = importer::gunzip(bytes, kMaxUnpacked);
    if (!out) return tl::unexpected(out.error());
    plain = std::move(*out);
    bytes = plain;
  }
  auto entries = read_tar(bytes);
  if (!entries) return tl::unexpected(entries.error());
  if (entries->empty() || (*entries)[0].path != kManifestName) {
    return core::fail(core::ErrorCode::kParse, trf("offset {}", 0),
                      _("not a tfrig capture: the first entry is not tfrig-capture.json"));
  }
  auto manifest = manifest_from_json((*entries)[0].data);
  if (!manifest) return tl::unexpected(manifest.error());
  namespace fs = std::filesystem;
  const fs::path base = fs::path(dir) / "root";
  std::error_code ec;
  fs::create_directories(base, ec);
  if (ec) return core::fail(core::ErrorCode::kIo, base.string(), ec.message());
  for (size_t i = 1; i < entries->size(); ++i) {
    const TarEntry& e = (*entries)[i];
    if (e.path == "root") continue;
    if (!core::starts_with(e.path, kTreePrefix) || !safe_relative(e.path)) {
      return core::fail(core::ErrorCode::kParse, e.path, _("path outside the capture's root/ folder"));
    }
    const std::string rel = e.path.substr(kTreePrefix.size());
    const fs::path target = base / rel;
    fs::create_directories(target.parent_path(), ec);
    if (ec) return core::fail(core::ErrorCode::kIo, target.string(), ec.message());
    switch (e.type) {
      case TarEntry::Type::kDir:
        fs::create_directories(target, ec);
        if (ec) return core::fail(core::ErrorCode::kIo, target.string(), ec.message());
        break;
      case TarEntry::Type::kSymlink:
        if (!safe_link(rel, e.target)) {
          return core::fail(core::ErrorCode::kParse, e.path, trf("symlink to '{}' leaves the capture", e.target));
        }
        fs::create_symlink(e.target, target, ec);
        if (ec) return core::fail(core::ErrorCode::kIo, target.string(), ec.message());
        break;
      case TarEntry::Type::kFile: {
        std::ofstream out(target, std::ios::binary | std::ios::trunc);
        out.write(e.data.data(), static_cast<std::streamsize>(e.data.size()));
        if (!out) return core::fail(core::ErrorCode::kIo, target.string(), _("cannot write"));
        break;
      }
    }
  }
  return Unpacked{std::move(*manifest), base.string()};
}

}  // namespace tfrig::capture

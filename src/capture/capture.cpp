#include "capture/capture.h"

#include <algorithm>
#include <iterator>
#include <set>

#include <nlohmann/json.hpp>

#include "core/escape.h"
#include "core/i18n.h"
#include "core/text.h"
#include "core/try.h"
#include "codec/gzip.h"

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
  return {{"tfrig_capture", m.format},    {"tool_version", m.tool_version},
          {"captured_at", m.captured_at}, {"env", m.env},
          {"data_paths", m.data_paths},   {"python_prefixes", m.python_prefixes}};
}

core::Result<Manifest> manifest_from_json(std::string_view text) {
  auto j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("tfrig_capture")) {
    return core::fail(core::ErrorCode::kParse, std::string(kManifestName),
                      _("expected a JSON object with \"tfrig_capture\""));
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

std::string entry_name(std::string_view path) { return core::escape_bytes(path); }

// Refuses a header over the limits, naming the entry, the limit and the flag
// that raises it.
core::Status check_header(const TarHeader& h, const Limits& limits, uint64_t& entries) {
  if (h.type == 'L' || h.type == 'K') {
    // A long name longer than any path (PATH_MAX is 4096 on Linux).
    if (h.size > 65536) {
      return core::fail(core::ErrorCode::kParse, trf("offset {}", h.offset), _("long-name record larger than 64 KiB"));
    }
    return {};
  }
  if (++entries > limits.max_entries) {
    return core::fail(core::ErrorCode::kUnsupported, trf("offset {}", h.offset),
                      trf("more than {} entries (the limit; --max-capture-entries N raises it)", limits.max_entries));
  }
  if (h.size > limits.max_entry_bytes) {
    return core::fail(
        core::ErrorCode::kUnsupported, entry_name(h.name),
        trf("an entry of {} bytes, over the limit of {} bytes per entry (--max-capture-entry-bytes raises it)", h.size,
            limits.max_entry_bytes));
  }
  return {};
}

core::Error over_total(uint64_t at, const Limits& limits) {
  return core::Error{
      core::ErrorCode::kUnsupported, trf("offset {}", at),
      trf("the capture inflates to more than {} bytes (the limit; --max-capture-bytes raises it)", limits.max_bytes)};
}

// The archive's bytes as a tar: inflated (within the limits) when gzip'd.
// The headers are checked while the bytes arrive, so a bomb is refused
// before it is held whole.
core::Result<std::string> inflate_checked(std::string_view bytes, const Limits& limits, uint64_t& entries) {
  std::string tar;
  TarHeaderScan scan([&](const TarHeader& h) { return check_header(h, limits, entries); });
  auto done = codec::gunzip_stream(bytes, [&](std::string_view chunk, size_t consumed) -> core::Status {
    if (tar.size() + chunk.size() > limits.max_bytes)
      return tl::unexpected(over_total(tar.size() + chunk.size(), limits));
    tar.append(chunk);
    if (tar.size() > kRatioFloor && consumed > 0 && tar.size() / consumed > limits.max_ratio) {
      return core::fail(core::ErrorCode::kUnsupported, trf("offset {}", consumed),
                        trf("{} bytes inflated from {}: a compression ratio over {} to 1 (the limit; "
                            "--max-capture-ratio raises it)",
                            tar.size(), consumed, limits.max_ratio));
    }
    return scan.feed(tar);
  });
  if (!done) return tl::unexpected(done.error());
  entries = 0;  // read_tar counts them again
  return tar;
}

// Where a symlink in the tree leads must stay inside it.
std::optional<std::string> link_leaves_tree(const core::MemoryTree& tree, const std::string& real) {
  const core::MemoryTree::Node* node = tree.at(real);
  if (node == nullptr) return std::nullopt;
  if (!node->data.empty() && node->data.front() == '/')
    return trf("symlink to '{}': an absolute target", entry_name(node->data));
  core::MemoryTree::Found found;
  bool escaped = false;
  (void)tree.resolve(real, true, found, &escaped);  // a missing target or a loop is the other machine's; leaving is not
  if (escaped) return trf("symlink to '{}' leads outside the capture", entry_name(node->data));
  return std::nullopt;
}

}  // namespace

std::vector<TarEntry> capture_entries(const core::SysRoot& root, const core::AccessLog::Snapshot& log,
                                      const Manifest& manifest) {
  TreeBuilder tree(root);
  for (const auto& rel : log.looked_up) tree.add_path(rel);
  for (const auto& rel : log.listed) tree.add_listing(rel);
  for (const auto& [rel, bytes] : log.reads) tree.add_read(rel, bytes);
  std::vector<TarEntry> out;
  out.push_back(
      TarEntry{TarEntry::Type::kFile, std::string(kManifestName), manifest_json(manifest).dump(1) + "\n", ""});
  out.push_back(TarEntry{TarEntry::Type::kDir, "root", "", ""});
  for (auto& e : tree.entries()) out.push_back(std::move(e));
  return out;
}

bool is_capture(std::string_view bytes) {
  std::string head;
  if (codec::is_gzip(bytes)) {
    // The manifest is the first entry: its name, in the first header, decides.
    auto h = codec::gunzip_head(bytes, 512);
    if (!h) return false;
    head = std::move(*h);
    bytes = head;
  }
  return bytes.size() > kManifestName.size() && bytes.substr(0, kManifestName.size()) == kManifestName &&
         bytes[kManifestName.size()] == '\0';
}

bool is_fact_variable(std::string_view name) {
  // The variables the probes read (grep 'env("' src/probe) that describe
  // the other machine; CUDA_VISIBLE_DEVICES too, the same kind of fact as
  // NVIDIA_VISIBLE_DEVICES. Kept in step by CaptureEnv.ProbesReadOnlyFacts.
  static constexpr std::string_view kFacts[] = {
      "CONDA_PREFIX",    "CUDA_VISIBLE_DEVICES",   "HOME", "KUBERNETES_SERVICE_HOST",
      "LD_LIBRARY_PATH", "NVIDIA_VISIBLE_DEVICES", "PATH", "VIRTUAL_ENV",
      "container"};
  return std::find(std::begin(kFacts), std::end(kFacts), name) != std::end(kFacts);
}

core::Result<Loaded> load_capture(std::string_view bytes, const Limits& limits) {
  uint64_t entries_seen = 0;
  std::string plain;
  if (codec::is_gzip(bytes)) {
    auto out = TFRIG_TRY(inflate_checked(bytes, limits, entries_seen));
    plain = std::move(out);
    bytes = plain;
  } else if (bytes.size() > limits.max_bytes) {
    return tl::unexpected(over_total(bytes.size(), limits));
  }
  auto entries = read_tar(bytes, [&](const TarHeader& h) { return check_header(h, limits, entries_seen); });
  std::string().swap(plain);  // the entries hold the bytes now
  if (!entries) return tl::unexpected(entries.error());
  if (entries->empty() || (*entries)[0].path != kManifestName || (*entries)[0].type != TarEntry::Type::kFile) {
    return core::fail(core::ErrorCode::kParse, trf("offset {}", 0),
                      _("not a tfrig capture: the first entry is not tfrig-capture.json"));
  }
  auto manifest = TFRIG_TRY(manifest_from_json((*entries)[0].data));
  Loaded loaded;
  for (auto it = manifest.env.begin(); it != manifest.env.end();) {
    if (is_fact_variable(it->first)) {
      ++it;
    } else {
      loaded.dropped_env.push_back(it->first);
      it = manifest.env.erase(it);
    }
  }
  loaded.manifest = std::move(manifest);
  auto tree = std::make_shared<core::MemoryTree>();
  for (size_t i = 1; i < entries->size(); ++i) {
    TarEntry& e = (*entries)[i];
    if (e.path == "root") {
      if (e.type != TarEntry::Type::kDir) return core::fail(core::ErrorCode::kParse, e.path, _("root is not a folder"));
      continue;
    }
    if (!core::starts_with(e.path, kTreePrefix)) {
      return core::fail(core::ErrorCode::kParse, entry_name(e.path), _("path outside the capture's root/ folder"));
    }
    const std::string_view rel = std::string_view(e.path).substr(kTreePrefix.size());
    const auto type = e.type == TarEntry::Type::kDir       ? core::MemoryTree::Type::kDir
                      : e.type == TarEntry::Type::kSymlink ? core::MemoryTree::Type::kLink
                                                           : core::MemoryTree::Type::kFile;
    if (auto why =
            tree->add(rel, type, type == core::MemoryTree::Type::kLink ? std::move(e.target) : std::move(e.data))) {
      return core::fail(core::ErrorCode::kParse, entry_name(e.path), *why);
    }
  }
  for (const auto& link : tree->links()) {
    if (auto why = link_leaves_tree(*tree, link)) {
      return core::fail(core::ErrorCode::kParse, entry_name(std::string(kTreePrefix) + link), *why);
    }
  }
  loaded.tree = std::move(tree);
  return loaded;
}

}  // namespace tfrig::capture

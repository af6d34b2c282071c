#include "core/memory_tree.h"

#include <algorithm>
#include <cerrno>

#include "core/escape.h"
#include "core/i18n.h"

namespace tfrig::core {

namespace {

std::string join_parts(const std::vector<std::string>& parts) {
  std::string out;
  for (const auto& p : parts) {
    if (!out.empty()) out.push_back('/');
    out += p;
  }
  return out;
}

}  // namespace

std::vector<std::string> path_components(std::string_view path) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= path.size()) {
    size_t slash = path.find('/', start);
    if (slash == std::string_view::npos) slash = path.size();
    std::string_view part = path.substr(start, slash - start);
    if (!part.empty() && part != ".") out.emplace_back(part);
    start = slash + 1;
  }
  return out;
}

MemoryTree::MemoryTree() { nodes_.emplace("", Node{}); }

const MemoryTree::Node* MemoryTree::at(std::string_view real) const {
  auto it = nodes_.find(real);
  return it == nodes_.end() ? nullptr : &it->second;
}

std::vector<std::string> MemoryTree::links() const {
  std::vector<std::string> out;
  for (const auto& [path, node] : nodes_) {
    if (node.type == Type::kLink) out.push_back(path);
  }
  return out;
}

std::optional<std::string> MemoryTree::add(std::string_view path, Type type, std::string data) {
  // Canonical only: the name is the path, so two spellings of one path (or
  // a ".." hidden in one) can never reach the same node unnoticed.
  if (path.empty()) return std::string(_("empty name"));
  if (path.front() == '/') return std::string(_("absolute path"));
  std::vector<std::string> parts;
  size_t start = 0;
  while (start <= path.size()) {
    size_t slash = path.find('/', start);
    if (slash == std::string_view::npos) slash = path.size();
    std::string_view part = path.substr(start, slash - start);
    if (part.empty() || part == "." || part == "..") {
      return std::string(_("not a plain relative path (an empty, '.' or '..' component)"));
    }
    parts.emplace_back(part);
    start = slash + 1;
  }
  std::string here;
  for (size_t i = 0; i + 1 < parts.size(); ++i) {
    const std::string parent = here;
    here += (here.empty() ? "" : "/") + parts[i];
    auto it = nodes_.find(here);
    if (it == nodes_.end()) {
      Node dir;
      dir.implicit = true;
      nodes_.emplace(here, std::move(dir));
      nodes_.at(parent).children.insert(parts[i]);
      continue;
    }
    if (it->second.type == Type::kLink) return trf("lies under the symlink '{}'", escape_bytes(here));
    if (it->second.type != Type::kDir) return trf("lies under '{}', which is a file", escape_bytes(here));
  }
  const std::string full = join_parts(parts);
  auto it = nodes_.find(full);
  if (it != nodes_.end()) {
    Node& old = it->second;
    if (type == Type::kDir && old.type == Type::kDir) {
      old.implicit = false;
      return std::nullopt;
    }
    if (type == old.type && old.data == data) return std::nullopt;
    return std::string(_("conflicts with an earlier entry at the same path (another type or other contents)"));
  }
  Node node;
  node.type = type;
  if (type != Type::kDir) node.data = std::move(data);
  nodes_.emplace(full, std::move(node));
  const std::string parent = parts.size() == 1 ? std::string() : full.substr(0, full.rfind('/'));
  nodes_.at(parent).children.insert(parts.back());
  return std::nullopt;
}

int MemoryTree::resolve(std::string_view rel, bool follow_last, Found& out, bool* escaped) const {
  std::vector<std::string> todo = path_components(rel);
  std::reverse(todo.begin(), todo.end());  // a stack: the next component at the back
  std::vector<std::string> cur;            // the real path so far: folders, no links
  int links = 0;
  while (!todo.empty()) {
    std::string part = std::move(todo.back());
    todo.pop_back();
    if (part == "..") {
      if (cur.empty()) {
        if (escaped != nullptr) *escaped = true;
      } else {
        cur.pop_back();
      }
      continue;
    }
    cur.push_back(std::move(part));
    const Node* node = at(join_parts(cur));
    if (node == nullptr) return ENOENT;
    if (node->type == Type::kLink && (!todo.empty() || follow_last)) {
      if (++links > kMaxLinks) return ELOOP;
      if (node->data.empty()) return ENOENT;  // as the kernel answers an empty link
      cur.pop_back();
      if (!node->data.empty() && node->data.front() == '/') cur.clear();
      auto target = path_components(node->data);
      for (auto t = target.rbegin(); t != target.rend(); ++t) todo.push_back(*t);
      continue;
    }
    if (!todo.empty() && node->type != Type::kDir) return ENOTDIR;
  }
  out.path = join_parts(cur);
  out.node = at(out.path);
  return out.node == nullptr ? ENOENT : 0;
}

}  // namespace tfrig::core

#include "fleet/load.h"

#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <filesystem>
#include <fstream>
#include <map>
#include <thread>

#include <nlohmann/json.hpp>

#include "core/i18n.h"
#include "core/input_file.h"
#include "core/sysroot.h"
#include "core/text.h"
#include "importer/gzip.h"
#include "importer/importer.h"

namespace tfrig::fleet {

namespace fs = std::filesystem;

namespace {

// The suffixes a directory's files are taken by, longest first (so that
// node_name strips ".log.gz" whole).
const std::vector<std::string_view> kSuffixes = {".json.gz", ".log.gz", ".json", ".log", ".xml", ".txt", ".gz"};

// A snapshot is tens of kB; the largest real bug report in tests/data is
// 17.6 MB of text, which the importer's own limit covers.
constexpr size_t kMaxFileBytes = importer::kMaxTextBytes;

// Through core::read_input_file: a device is refused and a FIFO without a
// writer reads as empty (an ifstream blocked on one, and read 256 MiB of
// /dev/zero before giving up).
core::Result<std::string> read_bytes(const std::string& path) { return core::read_input_file(path, kMaxFileBytes); }

bool looks_like_json(std::string_view text) {
  for (char c : text) {
    if (c == ' ' || c == '\n' || c == '\r' || c == '\t') continue;
    return c == '{';
  }
  return false;
}

core::Result<report::Report> snapshot_from_text(const std::string& file, const std::string& text,
                                                std::vector<std::string>& notes) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    return core::fail(core::ErrorCode::kParse, file + ": " + trf("byte {}", e.byte), trf("not valid JSON: {}", e.what()));
  } catch (const nlohmann::json::exception& e) {  // out_of_range.406: a number beyond a double (1e400)
    return core::fail(core::ErrorCode::kParse, file, trf("not valid JSON: {}", e.what()));
  }
  // A newer tfrig's snapshot still compares on the fields this one knows:
  // adding fields is not a schema bump (inventory.h), so what a newer schema
  // changed is at most a few facts, which then show as drift or unknown.
  std::optional<int> newer_schema;
  if (j.is_object() && j.contains("schema_version") && j["schema_version"].is_number_unsigned() &&
      j["schema_version"].get<uint64_t>() > static_cast<uint64_t>(inventory::kSchemaVersion) &&
      j["schema_version"].get<uint64_t>() <= 1'000'000) {  // the range report_from_json reads
    newer_schema = j["schema_version"].get<int>();
    notes.push_back(trf("schema {0} is newer than this tfrig's ({1}): read the fields it knows", *newer_schema,
                        inventory::kSchemaVersion));
    j["schema_version"] = inventory::kSchemaVersion;
  }
  auto r = report::report_from_json(j);
  if (!r) {
    core::Error err = r.error();
    err.where = file + (err.where.empty() ? "" : ": " + err.where);
    return tl::unexpected(err);
  }
  if (newer_schema) r->schema_version = *newer_schema;
  return r;
}

}  // namespace

core::Result<std::vector<std::string>> list_inputs(const std::vector<std::string>& inputs) {
  std::vector<std::string> files;
  for (const auto& in : inputs) {
    std::error_code ec;
    const auto st = fs::status(in, ec);
    if (ec || !fs::exists(st)) return core::fail(core::ErrorCode::kNotFound, in, _("no such file or directory"));
    if (!fs::is_directory(st)) {
      files.push_back(in);
      continue;
    }
    std::vector<std::string> found;
    for (const auto& entry : fs::directory_iterator(in, ec)) {
      const std::string name = entry.path().filename().string();
      if (name.empty() || name[0] == '.') continue;
      std::error_code ec2;
      // A subdirectory is one machine described by several files (a bug
      // report with a `topo -m` matrix, a capture's outputs): one node.
      if (entry.is_directory(ec2)) {
        found.push_back(entry.path().string());
        continue;
      }
      if (!entry.is_regular_file(ec2)) continue;
      const bool taken = std::any_of(kSuffixes.begin(), kSuffixes.end(),
                                     [&](std::string_view s) { return core::ends_with(name, s); });
      if (taken) found.push_back(entry.path().string());
    }
    if (ec) return tl::unexpected(core::errno_error(ec.value(), in, "list"));
    std::sort(found.begin(), found.end());
    files.insert(files.end(), found.begin(), found.end());
  }
  return files;
}

std::string node_name(const std::string& file) {
  std::string name = fs::path(file).filename().string();
  for (auto s : kSuffixes) {
    if (name.size() > s.size() && core::ends_with(name, s)) {
      name.resize(name.size() - s.size());
      break;
    }
  }
  return name;
}

core::Result<report::Report> read_report(const std::string& file, std::vector<std::string>& notes) {
  std::error_code ec;
  if (fs::is_directory(file, ec)) {
    std::vector<std::string> parts;
    for (const auto& entry : fs::directory_iterator(file, ec)) {
      const std::string name = entry.path().filename().string();
      std::error_code ec2;
      if (!name.empty() && name[0] != '.' && entry.is_regular_file(ec2)) parts.push_back(entry.path().string());
    }
    if (ec) return tl::unexpected(core::errno_error(ec.value(), file, "list"));
    if (parts.empty()) return core::fail(core::ErrorCode::kNotFound, file, _("an empty directory (expected one machine's files)"));
    std::sort(parts.begin(), parts.end());
    notes.push_back(trnf("imported from {} file", "imported from {} files", parts.size(), parts.size()));
    return importer::import_files(parts);
  }
  auto bytes = read_bytes(file);
  if (!bytes) return tl::unexpected(bytes.error());
  std::string text;
  if (importer::is_gzip(*bytes)) {
    auto plain = importer::gunzip(*bytes, kMaxFileBytes);
    if (!plain) return core::fail(plain.error().code, file + ": " + plain.error().where, plain.error().message);
    text = std::move(*plain);
  } else {
    text = std::move(*bytes);
  }
  if (looks_like_json(text)) {
    auto r = snapshot_from_text(file, text, notes);
    if (r) r->source = "snapshot:" + file;
    return r;
  }
  const auto kind = importer::detect_kind(text);
  auto r = importer::import_inputs({importer::Input{file, std::move(text)}});
  if (r) notes.push_back(trf("imported from {} output", importer::kind_name(kind)));
  return r;
}

core::Result<Node> load_node(const std::string& file, const knowledge::Knowledge& k, const LoadOptions& options) {
  std::vector<std::string> notes;
  auto r = read_report(file, notes);
  if (!r) return tl::unexpected(r.error());
  Node n = summarize_node(*r, k, options.tf);
  n.name = node_name(file);
  n.file = file;
  n.source = core::starts_with(r->source, "snapshot:") ? "snapshot" : "import";
  n.notes = std::move(notes);
  return n;
}

Loaded load_nodes(const std::vector<std::string>& files, const knowledge::Knowledge& k, const LoadOptions& options) {
  std::vector<std::optional<Node>> nodes(files.size());
  std::vector<std::optional<core::Error>> errors(files.size());
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t i = next++; i < files.size(); i = next++) {
      auto n = load_node(files[i], k, options);
      if (n) {
        nodes[i] = std::move(*n);
      } else {
        errors[i] = n.error();
      }
    }
  };
  // Reading is CPU-bound (JSON parsing, the rules): more threads than cores
  // only add memory, one document each.
  constexpr unsigned kMaxJobs = 256;
  unsigned jobs = options.jobs ? options.jobs : std::max(1u, std::thread::hardware_concurrency());
  jobs = static_cast<unsigned>(std::min<size_t>({jobs, kMaxJobs, std::max<size_t>(files.size(), 1)}));
  {
    // The caller is worker 0; the others join when this scope ends (also
    // when a worker throws, where std::thread would call std::terminate).
    std::vector<std::jthread> threads;
    for (unsigned t = 1; t < jobs; ++t) threads.emplace_back(worker);
    worker();
  }

  // Two files with one name (a/node1.json, b/node1.json): name both by path.
  std::map<std::string, int> seen;
  for (const auto& f : files) ++seen[node_name(f)];
  Loaded out;
  for (size_t i = 0; i < files.size(); ++i) {
    const std::string name = seen[node_name(files[i])] > 1 ? files[i] : node_name(files[i]);
    if (nodes[i]) {
      nodes[i]->name = name;
      out.nodes.push_back(std::move(*nodes[i]));
    } else {
      out.unreadable.push_back(Unreadable{name, files[i], errors[i]->to_string()});
    }
  }
  return out;
}

}  // namespace tfrig::fleet

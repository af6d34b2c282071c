// Reading a fleet: the inputs named on the command line (files, or
// directories of them) become nodes, one file per node, read in parallel.
// A snapshot (`tfrig snapshot`, `doctor --format json`, `import -o`; gzip or
// not) is read as JSON; any other file goes through the importer (a bug
// report, `nvidia-smi -q` text or XML, ...). A file that cannot be read is
// an Unreadable, not a failure of the whole run.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "core/result.h"
#include "fleet/node.h"
#include "knowledge/knowledge.h"

namespace tfrig::fleet {

struct LoadOptions {
  std::optional<std::string> tf;  // --tf: the TensorFlow version rules judge against when none is installed
  unsigned jobs = 0;              // 0: every core; at most 256
};

// The files of the inputs: a file as given, a directory's *.json, *.json.gz,
// *.log, *.log.gz, *.gz, *.xml and *.txt files and its subdirectories (each
// one node whose files are imported together; not deeper), sorted.
// Fails naming an input that does not exist.
core::Result<std::vector<std::string>> list_inputs(const std::vector<std::string>& inputs);

// "node07" for ".../node07.json" or ".../node07.log.gz".
std::string node_name(const std::string& file);

// The fast way a fleet reads a snapshot: simdjson's On-Demand API (Debian 12
// libsimdjson-dev) straight into the report's structs, without building a
// JSON tree first. nlohmann-json's tree was most of `tfrig fleet`'s time, and
// its allocations most of the rest (bench/RESULTS.md, fleet).
//
// It reads only documents it can read exactly as report::report_from_json
// would: every value of the type the field has, every number in its field's
// range, valid JSON all through (the parts fleet does not use, such as a
// doctor report's findings, are walked and checked too, not skipped). Anything
// else (a syntax error, a string where a number belongs, a number out of
// range, an unknown probe state, a document above kMaxFastBytes) returns
// nullopt, and the caller reads the file with nlohmann-json, whose errors name
// the file, the byte offset or the JSON path and what was expected, as before.
// So the fast path changes speed only, never a result or an error text.
//
// Larger documents go to nlohmann-json. A snapshot is tens of kB (a large
// machine a few hundred); simdjson's parser holds about 6 bytes per byte of
// the largest document it has read, so a bound keeps a worker's memory small.
constexpr size_t kMaxFastBytes = size_t{16} << 20;

// The report of a snapshot's text, or nullopt (see above). `text` is padded
// for simdjson and given back unchanged. A newer schema_version (up to
// 1,000,000) is kept in the report: the caller reads its known fields and
// says so, as it does for nlohmann's.
std::optional<report::Report> read_snapshot_fast(std::string& text);

// One file -> its report (snapshot, or imported). Errors name the file.
core::Result<report::Report> read_report(const std::string& file, std::vector<std::string>& notes);

// One file -> a node.
core::Result<Node> load_node(const std::string& file, const knowledge::Knowledge& k, const LoadOptions& options);

struct Loaded {
  std::vector<Node> nodes;
  std::vector<Unreadable> unreadable;
};

// Every file, on `jobs` threads; each thread holds one document at a time.
// Nodes whose names collide are named by their path instead.
Loaded load_nodes(const std::vector<std::string>& files, const knowledge::Knowledge& k, const LoadOptions& options);

}  // namespace tfrig::fleet

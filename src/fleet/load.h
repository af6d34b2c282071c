// Reading a fleet: the inputs named on the command line (files, or
// directories of them) become nodes, one file per node, read in parallel.
// A snapshot (`tfrig snapshot`, `doctor --format json`, `import -o`; gzip or
// not) is read as JSON; any other file goes through the importer (a bug
// report, `nvidia-smi -q` text or XML, ...). A file that cannot be read is
// an Unreadable, not a failure of the whole run.
#pragma once

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

// Helpers shared by every test file: where the fixture data and the built
// binary are, files in and out, a scratch directory, running the binary with
// its output captured, and the normalisation the golden tests apply.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "test_paths.h"

namespace tfrig::test {

// TFRIG_TEST_DATA (absolute path of tests/data).
std::string data_dir();
// data_dir()/roots/<name>.
std::string root_dir(std::string_view name);
// Every fixture root under data_dir()/roots, sorted.
std::vector<std::string> root_names();
// The five roots taken from hwloc's test suite.
std::vector<std::string> hwloc_root_names();
// TFRIG_BINARY (the built tfrig).
std::string binary_path();
// The python3 the project's dependency lists install (Debian's /usr/bin/python3,
// with python3-yaml and python3-protobuf), or python3 on PATH when there is none.
// A pyenv shim first on PATH costs about 1.5 s a start (0.2 s for Debian's) and
// lacks Debian's modules: the setup grid alone starts python some 120 times.
const std::string& python3();

// Whole file as bytes; an empty string (and a gtest failure) when unreadable.
std::string read_file(const std::string& path);
// Writes bytes, failing the current test when it cannot.
void write_file(const std::string& path, std::string_view content);
bool path_exists(const std::string& path);
// Sorted names in a directory, without "." and "..".
std::vector<std::string> list_dir(const std::string& path);

// A fresh directory under $TMPDIR (or /tmp), removed with everything in it.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  std::string file(std::string_view name) const { return path_ + "/" + std::string(name); }

 private:
  std::string path_;
};

// Text wraps and folds to the output width before <ROOT> replaces the root's
// path, so a golden of text naming the root needs the path to have one length
// in every checkout: a symlink /tmp/tfrig-golden-XXXXXX/r (mkdtemp keeps the
// length) to the real root, removed afterwards.
class FixedLengthRoot {
 public:
  explicit FixedLengthRoot(const std::string& target);
  ~FixedLengthRoot();
  FixedLengthRoot(const FixedLengthRoot&) = delete;
  FixedLengthRoot& operator=(const FixedLengthRoot&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string dir_, path_;
};

struct RunResult {
  int exit_code = -1;  // the exit status; 128+N when killed by signal N
  std::string out;
  std::string err;
  long max_rss_kib = 0;  // this child's own peak resident set (wait4), not earlier children's
};

struct RunOptions {
  // Drop to uid/gid 65534 (nobody) in the child when the tests run as root,
  // so that permission checks apply (root writes into a 0555 directory).
  bool as_nobody = false;
  // Extra "NAME=value" entries on top of this process's environment.
  std::vector<std::string> env;
  // The child's working directory (empty: this process's). Golden tests run
  // from tests/data with relative paths, so what they print (and where the
  // text wraps) does not depend on where the tree was checked out.
  std::string cwd;
};

// Run options for a locale test: LANG=lang decides alone (LANGUAGE, LC_ALL and
// LC_MESSAGES emptied), in cwd when one is given.
RunOptions in_locale(const std::string& lang, const std::string& cwd = "");
// args after "--lang zh_CN".
std::vector<std::string> with_zh_lang(std::vector<std::string> args);

// Runs the built tfrig binary with args (argv[0] is added), waits, and
// returns its exit code, stdout and stderr.
RunResult run_tfrig(const std::vector<std::string>& args, const RunOptions& options = {});

// Golden-file normalisation: replaces what differs between runs and checkouts.
//  text: the absolute root path -> "<ROOT>", the tool version in the heading
//        -> "<VERSION>", each probe time ("850 us", "1.2 ms", "1.52 s") in the
//        Probes table -> "<TIME>" in its fixed 10-column cell (the table, and
//        how its detail column folds, stays the same whatever the times);
//        control bytes other than newline and tab as "\xNN" (golden files stay text).
std::string normalize_text_report(std::string_view text, const std::string& root);
//  json: the absolute root path -> "<ROOT>" in every string, "generated_at"
//        -> "<GENERATED_AT>", "tool_version" -> "<VERSION>", each probe's
//        "seconds" -> 0; re-dumped with 2-space indent and a final newline.
std::string normalize_json_report(std::string_view json_text, const std::string& root);

// Replaces every occurrence of `from` in s by `to`.
std::string replace_all(std::string s, std::string_view from, std::string_view to);

}  // namespace tfrig::test

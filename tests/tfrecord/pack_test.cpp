// End to end: the tfrig binary packs a generated dataset; the shards are read
// back with the library's reader and decoder.
#include <gtest/gtest.h>

#include "test_paths.h"
#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "core/units.h"
#include "tfrecord/example.h"
#include "tfrecord/pack.h"
#include "tfrecord/image_header.h"
#include "tfrecord/record.h"
#include "tfrecord/shard_index.h"
#include "tfrecord/tfrecord_test_util.h"
#include "test_paths.h"

namespace tfrig::tfrecord {
namespace {

namespace fs = std::filesystem;
using namespace tfrig::testing;

// 3 classes, 60 images (JPEG and PNG headers, 1-20 KB each).
std::map<std::string, std::string> make_dataset(const std::string& root) {
  std::map<std::string, std::string> files;
  const char* classes[] = {"cat", "dog", "emu"};
  for (int c = 0; c < 3; ++c) {
    for (int i = 0; i < 20; ++i) {
      uint32_t seed = static_cast<uint32_t>(c * 100 + i);
      std::string rel = std::string(classes[c]) + "/" + std::to_string(i) + (i % 4 == 0 ? ".png" : ".jpg");
      std::string data = i % 4 == 0 ? tiny_png(10 + i, 20 + c, 2) + filler(1000 + 300 * i, seed)
                                    : tiny_jpeg(static_cast<uint16_t>(100 + i), static_cast<uint16_t>(50 + c), 3,
                                                1000 + 900 * static_cast<size_t>(i), seed);
      write_file(root + "/" + rel, data);
      files[rel] = data;
    }
  }
  return files;
}

std::map<std::string, std::string> dir_contents(const std::string& dir) {
  std::map<std::string, std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) out[e.path().filename().string()] = read_file(e.path().string());
  return out;
}

std::vector<std::string> shards_in(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) {
    std::string n = e.path().filename().string();
    if (n.size() > 9 && n.substr(n.size() - 9) == ".tfrecord") out.push_back(e.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string pack_args(const std::string& src, const std::string& out, const std::string& extra = "") {
  return "pack " + shell_quote(src) + " -o " + shell_quote(out) + " --shard-size 40KB --prefix train --no-progress " +
         extra;
}

// pack's summary is a pure function of the run's result: every line, the
// slice, the skipped entries and at most 20 failures by (escaped) name.
TEST(Pack, SummaryRendersToText) {
  PackOptions o;
  o.src = "photos";
  o.out_dir = "shards";
  o.shard_index = 1;
  o.num_slices = 4;
  o.validate = Validate::kFull;
  PackSummary sum;
  sum.source_kind = "class folders";
  sum.files_listed = 1000;
  sum.shards_total = 8;
  sum.shards_in_slice = 2;
  sum.shards_written = 1;
  sum.shards_resumed = 1;
  sum.records = 250;
  sum.bytes_read = 50'000'000;
  sum.bytes_written = 51'000'000;
  sum.seconds = 2.0;
  sum.label_map_path = "shards/labels.json";
  sum.skipped_not_regular = 1;
  for (int i = 0; i < 22; ++i) sum.failures.push_back(FileFailure{fmt::format("photos/cat/{:02}.jpg", i), "not an image"});
  sum.failures[0].path = "photos/cat/\xe9t\xe9.jpg";  // Latin-1, not UTF-8

  std::string expected = fmt::format(
      "packed 250 records from photos (class folders, 1000 files listed) into 2 of 8 shards in shards (slice 1 of 4)\n"
      "  written 1 shard(s), {}; kept 1 complete shard(s) from an earlier run\n"
      "  read {} in {}: 125 files/s, {}\n"
      "  label map: shards/labels.json\n"
      "  images checked: every JPEG decoded to pixels (--validate full); other formats by their header\n"
      "  skipped 1 entry of the source folder that is not a regular file (FIFOs, devices, sockets)\n"
      "  skipped 22 file(s) that could not be read or are not images:\n"
      "    photos/cat/\\xe9t\\xe9.jpg: not an image\n",
      core::format_bytes_decimal(51'000'000), core::format_bytes_decimal(50'000'000), core::format_seconds(2.0),
      core::format_rate(25'000'000));
  for (int i = 1; i < 20; ++i) expected += fmt::format("    photos/cat/{:02}.jpg: not an image\n", i);
  expected += "    ... and 2 more\n";
  EXPECT_EQ(render_pack_text(sum, o, 1000), expected);  // one line each: the wrapping has its own tests

  // One machine, header checks, nothing skipped: no slice, no skip lines.
  o.num_slices = 1;
  o.validate = Validate::kHeader;
  sum.label_map_path.clear();
  sum.skipped_not_regular = 0;
  sum.failures.clear();
  const std::string plain = render_pack_text(sum, o);
  EXPECT_EQ(plain.substr(0, plain.find('\n')), "packed 250 records from photos (class folders, 1000 files listed) into 2 of 8 shards in shards");
  EXPECT_NE(plain.find("  images checked: header only (--validate header)"), std::string::npos) << plain;
  EXPECT_EQ(plain.find("skipped"), std::string::npos) << plain;
  EXPECT_EQ(plain.find("label map"), std::string::npos) << plain;
}

TEST(Pack, ShardsReadBackExactly) {
  ScratchDir dir;
  auto files = make_dataset(dir / "src");
  auto r = run_tfrig(pack_args(dir / "src", dir / "out", "--seed 3"));
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("packed 60 records"), std::string::npos) << r.out;
  auto shards = shards_in(dir / "out");
  ASSERT_GT(shards.size(), 5u);
  std::set<std::string> seen;
  const std::map<std::string, int64_t> labels = {{"cat", 0}, {"dog", 1}, {"emu", 2}};
  for (const auto& shard : shards) {
    EXPECT_NE(shard.find("-of-" + fmt::format("{:05d}", shards.size())), std::string::npos) << shard;
    auto reader = RecordReader::open(shard);
    ASSERT_TRUE(reader.has_value());
    std::vector<uint64_t> offsets;
    for (;;) {
      auto rec = reader->next();
      ASSERT_TRUE(rec.has_value()) << rec.error().to_string(shard);
      if (!*rec) break;
      offsets.push_back(reader->record_offset());
      auto ex = decode_example(**rec);
      ASSERT_TRUE(ex.has_value());
      std::string name(ex->at("image/filename").bytes.at(0));
      ASSERT_TRUE(files.count(name)) << name;
      EXPECT_TRUE(seen.insert(name).second);
      EXPECT_EQ(ex->at("image/encoded").bytes.at(0), files[name]);
      auto info = sniff_image(files[name]);
      ASSERT_TRUE(info.has_value());
      EXPECT_EQ(ex->at("image/width").ints.at(0), info->width);
      EXPECT_EQ(ex->at("image/height").ints.at(0), info->height);
      EXPECT_EQ(ex->at("image/channels").ints.at(0), info->channels);
      EXPECT_EQ(std::string(ex->at("image/format").bytes.at(0)), info->format);
      std::string cls = name.substr(0, 3);
      EXPECT_EQ(std::string(ex->at("image/class/text").bytes.at(0)), cls);
      EXPECT_EQ(ex->at("image/class/label").ints.at(0), labels.at(cls));
      EXPECT_EQ(ex->size(), 8u);
    }
    auto idx = read_index(index_path_for(shard));
    ASSERT_TRUE(idx.has_value()) << idx.error().to_string();
    EXPECT_EQ(idx->offsets, offsets);
    EXPECT_EQ(idx->records, offsets.size());
    EXPECT_EQ(idx->file_bytes, fs::file_size(shard));
  }
  EXPECT_EQ(seen.size(), 60u);
  auto lm = nlohmann::json::parse(read_file(dir / "out/train.label_map.json"));
  ASSERT_EQ(lm["labels"].size(), 3u);
  EXPECT_EQ(lm["labels"][2]["name"], "emu");
  EXPECT_EQ(lm["labels"][2]["id"], 2);
  auto v = run_tfrig("verify --examples " + shell_quote(dir / "out"));
  EXPECT_EQ(v.exit_code, 0) << v.out;
  EXPECT_NE(v.out.find("0 bad, 60 good records"), std::string::npos) << v.out;
}

// The summary goes through the checked output path: a full disk on stdout
// is exit 73 naming standard output, though every shard was written.
TEST(Pack, SummaryOnAFullDiskIsExit73) {
  if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full";
  ScratchDir dir;
  make_dataset(dir / "src");
  // run_shell adds 2>&1 after the group, so stderr still reaches the test.
  auto r = run_shell("{ " + shell_quote(TFRIG_BINARY) + " " + pack_args(dir / "src", dir / "out") + " >/dev/full; }");
  EXPECT_EQ(r.exit_code, 73) << r.out;
  EXPECT_NE(r.out.find("standard output"), std::string::npos) << r.out;
  EXPECT_FALSE(shards_in(dir / "out").empty());
}

TEST(Pack, DeterministicAndSlicesEqualOneRun) {
  ScratchDir dir;
  make_dataset(dir / "src");
  ASSERT_EQ(run_tfrig(pack_args(dir / "src", dir / "a", "--seed 11")).exit_code, 0);
  ASSERT_EQ(run_tfrig(pack_args(dir / "src", dir / "b", "--seed 11 -j 1")).exit_code, 0);
  ASSERT_EQ(run_tfrig(pack_args(dir / "src", dir / "c", "--seed 12")).exit_code, 0);
  auto a = dir_contents(dir / "a");
  EXPECT_EQ(a, dir_contents(dir / "b"));
  EXPECT_NE(a, dir_contents(dir / "c"));
  // Three slices, as three machines of a batch job would run them, into one
  // shared output directory.
  for (int i = 0; i < 3; ++i) {
    auto r = run_tfrig(pack_args(dir / "src", dir / "sliced", "--seed 11 --num-shards 3 --shard-index " +
                                                               std::to_string(i)));
    ASSERT_EQ(r.exit_code, 0) << r.out;
    EXPECT_NE(r.out.find("slice " + std::to_string(i) + " of 3"), std::string::npos) << r.out;
  }
  EXPECT_EQ(dir_contents(dir / "sliced"), a);
  EXPECT_EQ(run_tfrig(pack_args(dir / "src", dir / "x", "--num-shards 3 --shard-index 3")).exit_code, 64);
}

// --shard-index auto: each task of a Slurm job array (--array=1-4, so the
// IDs start at 1) or of a Kubernetes Indexed Job finds its slice in the
// environment, and the tasks together write exactly what one run writes.
TEST(Pack, ShardIndexAutoFromSlurmOrKubernetesEqualsOneRun) {
  ScratchDir dir;
  make_dataset(dir / "src");
  ASSERT_EQ(run_tfrig(pack_args(dir / "src", dir / "one", "--seed 11")).exit_code, 0);
  const auto one = dir_contents(dir / "one");
  for (int id = 1; id <= 4; ++id) {
    auto r = run_shell(fmt::format("env SLURM_ARRAY_TASK_ID={} SLURM_ARRAY_TASK_MIN=1 SLURM_ARRAY_TASK_COUNT=4 ", id) +
                       shell_quote(TFRIG_BINARY) + " " + pack_args(dir / "src", dir / "slurm", "--seed 11 --shard-index auto"));
    ASSERT_EQ(r.exit_code, 0) << r.out;
    EXPECT_NE(r.out.find(fmt::format("slice {} of 4", id - 1)), std::string::npos) << r.out;
  }
  EXPECT_EQ(dir_contents(dir / "slurm"), one);
  for (int index = 0; index < 3; ++index) {
    auto r = run_shell(fmt::format("env -u SLURM_ARRAY_TASK_ID JOB_COMPLETION_INDEX={} ", index) + shell_quote(TFRIG_BINARY) +
                       " " + pack_args(dir / "src", dir / "k8s", "--seed 11 --shard-index auto --num-shards 3"));
    ASSERT_EQ(r.exit_code, 0) << r.out;
  }
  EXPECT_EQ(dir_contents(dir / "k8s"), one);
  // No batch system, or a count that contradicts the array's: a usage error naming it.
  auto none = run_shell("env -u SLURM_ARRAY_TASK_ID -u JOB_COMPLETION_INDEX " + shell_quote(TFRIG_BINARY) + " " +
                        pack_args(dir / "src", dir / "x", "--shard-index auto"));
  EXPECT_EQ(none.exit_code, 64);
  EXPECT_NE(none.out.find("SLURM_ARRAY_TASK_ID"), std::string::npos) << none.out;
  auto clash = run_shell("env SLURM_ARRAY_TASK_ID=0 SLURM_ARRAY_TASK_COUNT=4 " + shell_quote(TFRIG_BINARY) + " " +
                         pack_args(dir / "src", dir / "x", "--shard-index auto --num-shards 3"));
  EXPECT_EQ(clash.exit_code, 64);
  EXPECT_NE(clash.out.find("SLURM_ARRAY_TASK_COUNT 4"), std::string::npos) << clash.out;
}

// kill -9 in the middle of a shard, then --resume: the result is byte for
// byte what an uninterrupted run writes, and no temporary file is left.
TEST(Pack, ResumeAfterKillNineIsByteIdentical) {
  ScratchDir dir;
  make_dataset(dir / "src");
  ASSERT_EQ(run_tfrig(pack_args(dir / "src", dir / "whole", "--seed 5")).exit_code, 0);
  const auto whole = dir_contents(dir / "whole");

  pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::setenv("TFRIG_TEST_STOP_AFTER_RECORDS", "25", 1);
    int devnull = ::open("/dev/null", O_WRONLY);
    ::dup2(devnull, 1);
    ::dup2(devnull, 2);
    std::string src = dir / "src";
    std::string out = dir / "crashed";
    ::execl(TFRIG_BINARY, "tfrig", "pack", src.c_str(), "-o", out.c_str(), "--shard-size", "40KB", "--prefix",
            "train", "--no-progress", "--seed", "5", "-j", "1", static_cast<char*>(nullptr));
    ::_exit(127);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, WUNTRACED), pid);
  ASSERT_TRUE(WIFSTOPPED(status)) << "pack finished before the test hook stopped it";
  ASSERT_EQ(::kill(pid, SIGKILL), 0);
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFSIGNALED(status));
  EXPECT_EQ(WTERMSIG(status), SIGKILL);

  auto partial = dir_contents(dir / "crashed");
  size_t temps = 0;
  size_t finals = 0;
  for (const auto& [name, data] : partial) {
    if (name.find(".tmp-") != std::string::npos) {
      ++temps;
    } else if (name.size() > 9 && name.substr(name.size() - 9) == ".tfrecord") {
      ++finals;
      EXPECT_EQ(data, whole.at(name)) << name << ": a shard under its final name must be complete";
    }
  }
  EXPECT_EQ(temps, 1u) << "the shard being written when killed";
  EXPECT_GT(finals, 0u);
  EXPECT_LT(finals, shards_in(dir / "whole").size());

  // Without --resume the existing shards are refused, not overwritten.
  auto refused = run_tfrig(pack_args(dir / "src", dir / "crashed", "--seed 5"));
  EXPECT_EQ(refused.exit_code, 73) << refused.out;
  EXPECT_NE(refused.out.find("--resume"), std::string::npos) << refused.out;

  auto resumed = run_tfrig(pack_args(dir / "src", dir / "crashed", "--seed 5 --resume"));
  ASSERT_EQ(resumed.exit_code, 0) << resumed.out;
  EXPECT_NE(resumed.out.find("kept " + std::to_string(finals) + " complete shard"), std::string::npos)
      << resumed.out;
  EXPECT_EQ(dir_contents(dir / "crashed"), whole);
}

TEST(Pack, BadAndUnreadableFilesSkippedOrFatal) {
  ScratchDir dir;
  make_dataset(dir / "src");
  write_file(dir / "src/dog/notes.txt", "not an image");
  fs::create_symlink(dir / "gone.jpg", dir / "src/cat/dangling.jpg");
  if (::geteuid() != 0) {
    write_file(dir / "src/emu/locked.jpg", tiny_jpeg(5, 5));
    ::chmod((dir / "src/emu/locked.jpg").c_str(), 0);
  }
  size_t bad = ::geteuid() != 0 ? 3 : 2;
  auto r = run_tfrig(pack_args(dir / "src", dir / "out"));
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("packed 60 records"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("skipped " + std::to_string(bad) + " file(s)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(dir / "src/dog/notes.txt"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("not a JPEG, PNG, GIF, BMP or WebP"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(dir / "src/cat/dangling.jpg"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("No such file or directory"), std::string::npos) << r.out;

  auto f = run_tfrig(pack_args(dir / "src", dir / "out2", "--on-error fail -j 1"));
  // 65 (EX_DATAERR) for a non-image, 66 (EX_NOINPUT) for the missing file:
  // which comes first depends on the shuffle.
  EXPECT_TRUE(f.exit_code == 65 || f.exit_code == 66) << f.out;
  EXPECT_NE(f.out.find("--on-error fail"), std::string::npos) << f.out;
  for (const auto& [name, data] : dir_contents(dir / "out2")) {
    EXPECT_EQ(name.find(".tmp-"), std::string::npos) << name;
  }
}

// Disk full, simulated by RLIMIT_FSIZE (writes past it fail with EFBIG once
// SIGXFSZ is ignored): the run fails naming the file, and leaves neither a
// shard under its final name nor a temporary file.
TEST(Pack, WriteFailureLeavesNoHalfShard) {
  ScratchDir dir;
  make_dataset(dir / "src");
  auto r = run_shell("bash -c " + shell_quote("trap '' XFSZ; ulimit -f 16; exec " + shell_quote(TFRIG_BINARY) +
                                              " pack " + shell_quote(dir / "src") + " -o " + shell_quote(dir / "out") +
                                              " --shard-size 1MB --prefix train --no-progress -j 1"));
  EXPECT_EQ(r.exit_code, 73) << r.out;
  EXPECT_NE(r.out.find("train-00000-of-00001.tfrecord"), std::string::npos) << r.out;
  EXPECT_TRUE(shards_in(dir / "out").empty());
  for (const auto& [name, data] : dir_contents(dir / "out")) {
    EXPECT_EQ(name.find(".tmp-"), std::string::npos) << name;
  }
}

TEST(Pack, GzipAndManifest) {
  ScratchDir dir;
  auto files = make_dataset(dir / "src");
  write_file(dir / "src/m.csv", "path,label,score\ncat/1.jpg,feline,0.5\ndog/2.jpg,canine,2\n");
  auto r = run_tfrig(pack_args(dir / "src/m.csv", dir / "out", "--compression gzip"));
  ASSERT_EQ(r.exit_code, 0) << r.out;
  auto shards = shards_in(dir / "out");
  ASSERT_EQ(shards.size(), 1u);
  auto reader = RecordReader::open(shards[0]);
  ASSERT_TRUE(reader.has_value());
  std::vector<std::string> names;
  for (;;) {
    auto rec = reader->next();
    ASSERT_TRUE(rec.has_value());
    if (!*rec) break;
    auto ex = decode_example(**rec);
    ASSERT_TRUE(ex.has_value());
    names.emplace_back(ex->at("image/filename").bytes.at(0));
    EXPECT_EQ(ex->at("score").kind, FeatureKind::kFloat);
    EXPECT_EQ(ex->size(), 9u);
  }
  EXPECT_EQ(reader->compression(), Compression::kGzip);
  EXPECT_EQ(names.size(), 2u);
  auto idx = read_index(index_path_for(shards[0]));
  ASSERT_TRUE(idx.has_value());
  EXPECT_EQ(idx->compression, Compression::kGzip);
  EXPECT_EQ(run_tfrig("verify " + shell_quote(dir / "out")).exit_code, 0);
}

}  // namespace
}  // namespace tfrig::tfrecord

// The tfrig binary against hostile input and failing outputs: every command
// that reads a file, given each kind of bad file, exits with the code
// docs/cli.md documents and one message naming the file; a failed write is
// exit 73 with nothing left under the final name; signals leave no
// temporary files. Fast on purpose (CI runs it on two cores): small inputs,
// no sleeps where a condition can be waited on.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <thread>

#include "core/escape.h"
#include "tfrecord/example.h"
#include "tfrecord/record.h"
#include "tfrecord/tfrecord_test_util.h"

namespace tfrig::hostile_inputs {
namespace {

namespace fs = std::filesystem;
using testing::RunResult;
using testing::ScratchDir;
using testing::shell_quote;

// Runs tfrig with args (already quoted) through sh; stdout goes to
// `stdout_to` (a path, /dev/null by default) and the result holds stderr
// only. `timeout` turns a hang into a failure (exit 124) instead of a stuck CI;
// 90 s, not less: under ASan with the suite running beside it, reading a 70 MB
// file of NULs through every importer's detection once took more than 30 s.
RunResult run_stderr(const std::string& args, const std::string& stdout_to = "/dev/null", const std::string& prefix = "") {
  // run_shell adds "2>&1" after the command: the group keeps stdout apart.
  return testing::run_shell("{ " + prefix + "timeout 90 " + shell_quote(TFRIG_BINARY) + " " + args + " 2>&1 >" +
                            shell_quote(stdout_to) + "; }");
}

std::vector<std::string> names_in(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) out.push_back(e.path().filename().string());
  return out;
}

size_t line_count(const std::string& s) {
  size_t n = 0;
  for (char c : s) n += c == '\n' ? 1 : 0;
  return n;
}

// The kinds of bad input, each made under dir; name -> path.
std::map<std::string, std::string> make_bad_inputs(const ScratchDir& dir) {
  std::map<std::string, std::string> in;
  in["missing"] = dir / "missing.txt";
  in["directory"] = dir / "a-directory";
  fs::create_directories(in["directory"]);
  in["empty"] = dir / "empty.txt";
  testing::write_file(in["empty"], "");
  in["garbage"] = dir / "garbage.txt";
  testing::write_file(in["garbage"], std::string("garbage \x01\x02 no known format\n"));
  in["invalid_utf8"] = dir / "invalid-utf8.txt";
  testing::write_file(in["invalid_utf8"], std::string("\xff\xfe{\"a\":\xc3\x28 \x80\n"));
  in["truncated"] = dir / "truncated.json";
  testing::write_file(in["truncated"], "{\"schema_version\": 1, \"inventory\": {\"cpu\": {\"mod");
  in["device"] = "/dev/zero";
  in["fifo"] = dir / "a-fifo";
  ::mkfifo(in["fifo"].c_str(), 0644);
  in["symlink_loop"] = dir / "loop-a";
  ::symlink((dir / "loop-b").c_str(), (dir / "loop-a").c_str());
  ::symlink((dir / "loop-a").c_str(), (dir / "loop-b").c_str());
  // One "line" of 70 MB (a sparse file: no disk used), above every cap.
  in["huge"] = dir / "huge.txt";
  {
    int fd = ::open(in["huge"].c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    EXPECT_GE(fd, 0);
    EXPECT_EQ(::ftruncate(fd, 70 << 20), 0);
    ::close(fd);
  }
  return in;
}

struct Command {
  std::string args;  // FILE stands for the input
  // kind -> exit code where it differs from the default for that kind.
  std::map<std::string, int> overrides;
  // A folder is a valid input (of snapshots): an empty one says "none found".
  bool takes_a_folder = false;
};

// What each kind of bad input exits with (docs/cli.md).
int default_code(const std::string& kind) {
  if (kind == "missing" || kind == "directory" || kind == "device" || kind == "symlink_loop") return 66;
  return 65;  // empty, garbage, invalid UTF-8, truncated, huge, FIFO (no writer: read as empty)
}

TEST(BadInput, EveryCommandEveryKindHasTheDocumentedExitCodeAndNamesTheFile) {
  ScratchDir dir;
  const auto inputs = make_bad_inputs(dir);
  const std::vector<Command> commands = {
      {"doctor --snapshot FILE", {}},
      {"plan --model resnet50 --snapshot FILE", {}},
      {"setup --from-snapshot FILE", {}},
      {"plan --keras-summary FILE", {}},
      {"watch --replay FILE", {}},
      {"import FILE -o -", {}},
      {"doctor --from FILE", {}},
      // A folder is a valid pack source (of class folders); this one has none: malformed.
      {"pack FILE -o " + shell_quote(dir / "pack-out"), {{"directory", 65}}},
      // An empty TFRecord file is a valid file of no records.
      {"inspect FILE", {{"empty", 0}, {"fifo", 0}}},
      // A log with no known signature is an answer, not an error (a FIFO
      // with no writer and /dev/zero once blocked or never ended).
      {"explain FILE", {{"empty", 0}, {"garbage", 0}, {"invalid_utf8", 0}, {"truncated", 0}, {"fifo", 0}, {"huge", 0}}},
      {"plan --model resnet50 --prices FILE", {}},
      // fleet lists what it could not read and exits 66 when nothing was read.
      {"fleet FILE", {{"empty", 66}, {"garbage", 66}, {"invalid_utf8", 66}, {"truncated", 66}, {"fifo", 66}, {"huge", 66}}, true},
  };
  for (const auto& cmd : commands) {
    for (const auto& [kind, path] : inputs) {
      std::string args = cmd.args;
      args.replace(args.find("FILE"), 4, shell_quote(path));
      const int expected = cmd.overrides.count(kind) ? cmd.overrides.at(kind) : default_code(kind);
      const auto r = run_stderr(args);
      SCOPED_TRACE("tfrig " + args + " (" + kind + ")");
      EXPECT_EQ(r.exit_code, expected) << r.out;
      EXPECT_EQ(r.out.find("internal error"), std::string::npos) << r.out;
      if (expected >= 64) {
        EXPECT_NE(r.out.find(fs::path(path).filename().string()), std::string::npos)
            << "the message names the file: " << r.out;
        EXPECT_EQ(line_count(r.out), 1u) << "one line: " << r.out;
      }
      if (kind == "directory" && expected == 66 && !cmd.takes_a_folder) {
        EXPECT_NE(r.out.find("is a directory"), std::string::npos) << r.out;
      }
    }
  }
}

TEST(BadInput, VerifyNamesAMissingFileOrDeviceBeforeVerifying) {
  ScratchDir dir;
  const auto inputs = make_bad_inputs(dir);
  for (const std::string kind : {"missing", "device", "symlink_loop"}) {
    const auto r = run_stderr("verify " + shell_quote(inputs.at(kind)));
    EXPECT_EQ(r.exit_code, 66) << kind << ": " << r.out;
    EXPECT_NE(r.out.find(fs::path(inputs.at(kind)).filename().string()), std::string::npos) << r.out;
  }
  // Garbage is a file with a bad record: a verdict (1), not an error.
  EXPECT_EQ(run_stderr("verify " + shell_quote(inputs.at("garbage"))).exit_code, 1);
}

TEST(BadInput, NoPermissionIsUnreadable) {
  // Root reads a 0000 file: drop to nobody for the check.
  if (::geteuid() == 0 && testing::run_shell("command -v setpriv >/dev/null 2>&1").exit_code != 0) {
    GTEST_SKIP() << "running as root without setpriv";
  }
  ScratchDir dir;
  ::chmod(dir.path().c_str(), 0755);
  const std::string file = dir / "secret.json";
  testing::write_file(file, "{}");
  ::chmod(file.c_str(), 0);
  const std::string as_nobody = ::geteuid() == 0 ? "setpriv --reuid=65534 --regid=65534 --clear-groups " : "";
  // Every command that reads a file: 66 with the system's reason (docs/cli.md).
  for (const std::string args : {"doctor --snapshot ", "plan --keras-summary ", "watch --replay ",
                                 "plan --model resnet50 --snapshot ", "setup --from-snapshot ", "import ", "doctor --from ",
                                 "inspect ", "verify "}) {
    const auto r = run_stderr(args + shell_quote(file), "/dev/null", as_nobody);
    EXPECT_EQ(r.exit_code, 66) << args << r.out;
    EXPECT_NE(r.out.find("Permission denied"), std::string::npos) << args << r.out;
    EXPECT_NE(r.out.find("secret.json"), std::string::npos) << args << r.out;
  }
}

TEST(BadInput, ImportReadsStdinAndPipes) {
  const std::string xml = shell_quote(testing::data_path("nvidia-smi-xml/telegraf/a100-sxm4-v12.xml"));
  // In braces: run_shell sends stderr to the output after the command, and
  // the warnings (this capture's header counts 4 GPUs, it holds 1) are not JSON.
  auto from_stdin = testing::run_shell("{ " + shell_quote(TFRIG_BINARY) + " import - < " + xml + " 2>/dev/null; }");
  EXPECT_EQ(from_stdin.exit_code, 0) << from_stdin.out;
  EXPECT_TRUE(nlohmann::json::accept(from_stdin.out)) << from_stdin.out;
  auto from_pipe = testing::run_shell("bash -c " + shell_quote(shell_quote(TFRIG_BINARY) + " import <(cat " + xml +
                                                               ") 2>/dev/null"));
  EXPECT_EQ(from_pipe.exit_code, 0) << from_pipe.out;
  EXPECT_NE(from_pipe.out.find("A100"), std::string::npos);
}

TEST(BadInput, PipesAreReadWithTheSameCaps) {
  const std::string summary = testing::data_path("keras_summary/tf_keras_2_2_mnist_convnet.txt");
  // A pipe (bash's <(...) is /dev/fd/N) is read like a file.
  auto ok = testing::run_shell("bash -c " +
                               shell_quote("timeout 30 " + shell_quote(TFRIG_BINARY) +
                                           " plan --keras-summary <(cat " + shell_quote(summary) + ") >/dev/null"));
  EXPECT_EQ(ok.exit_code, 0) << ok.out;
  // An endless pipe stops at the cap instead of eating memory.
  auto capped = testing::run_shell("bash -c " + shell_quote("timeout 60 " + shell_quote(TFRIG_BINARY) +
                                                            " plan --keras-summary <(cat /dev/zero) >/dev/null"));
  EXPECT_EQ(capped.exit_code, 65) << capped.out;
  EXPECT_NE(capped.out.find("larger than"), std::string::npos) << capped.out;
}

// What a Keras summary says that cannot be is malformed input (65) naming
// the file and line; an absurd output shape was a usage error (64) naming
// only "line 5".
TEST(BadInput, AnImpossibleKerasSummaryIsMalformedNamingFileAndLine) {
  ScratchDir dir;
  std::string text = testing::read_file(testing::data_path("keras_summary/tf_keras_2_2_mnist_convnet.txt"));
  const std::string shape = "(None, 26, 26, 32)";
  ASSERT_NE(text.find(shape), std::string::npos);
  text.replace(text.find(shape), shape.size(), "(None, 2600000000, 2600000000, 32)");
  const std::string file = dir / "absurd-summary.txt";
  testing::write_file(file, text);
  const auto r = run_stderr("plan --keras-summary " + shell_quote(file));
  EXPECT_EQ(r.exit_code, 65) << r.out;
  EXPECT_NE(r.out.find("absurd-summary.txt: line 5"), std::string::npos) << r.out;
}

// Commands whose whole result goes to stdout: /dev/full makes every write
// fail with ENOSPC, as a full disk does.
TEST(FailedWrites, StdoutOnAFullDiskIsExit73) {
  if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full";
  ScratchDir dir;
  const std::string root = shell_quote(testing::data_path("roots/debian12-vm"));
  const std::string shard = shell_quote(testing::data_path("tfrecord/tfx__cifar10_test.tfrecord"));
  const std::string snapshot = shell_quote(testing::data_path("snapshots/gpu_box_two_a100_old_driver.json"));
  for (const std::string& args : std::vector<std::string>{"rules", "knowledge", "compat --tf 2.15 --cuda 12.2", "plan --model resnet50 --snapshot " + snapshot,
        "inspect " + shard, "verify " + shard, "doctor --format json --root " + root, "snapshot -o - --root " + root,
        "watch --replay " + shell_quote(testing::data_path("watch/cpu-heavy.jsonl")),
        // Printed in one piece: the errno was lost to a later flush ("Input/output error").
        "metrics --markdown", "explain --markdown", "fleet " + snapshot + " " + snapshot, "--help", "plan --help"}) {
    const auto r = run_stderr(args, "/dev/full");
    EXPECT_EQ(r.exit_code, 73) << args << ": " << r.out;
    EXPECT_NE(r.out.find("standard output"), std::string::npos) << args << ": " << r.out;
    EXPECT_NE(r.out.find("No space left on device"), std::string::npos) << args << ": " << r.out;
  }
}

// RLIMIT_FSIZE makes a write past 1 KiB fail with EFBIG (SIGXFSZ ignored):
// a full disk for one process, without mounting anything.
const char* kOneKiBDisk = "trap '' XFSZ; ulimit -f 1; ";

TEST(FailedWrites, SnapshotFileOnAFullDiskLeavesNothing) {
  ScratchDir dir;
  const std::string out = dir / "snap.json";
  const auto r = run_stderr("snapshot -o " + shell_quote(out) + " --root " +
                                shell_quote(testing::data_path("roots/debian12-vm")),
                            "/dev/null", kOneKiBDisk);
  EXPECT_EQ(r.exit_code, 73) << r.out;
  EXPECT_NE(r.out.find("snap.json"), std::string::npos) << r.out;
  EXPECT_EQ(names_in(dir.path()), std::vector<std::string>{}) << "no file, no temporary";
}

TEST(FailedWrites, WatchRecordingOnAFullDiskIsRemovedAnd73) {
  ScratchDir dir;
  const std::string rec = dir / "run.jsonl";
  // A few samples of a short command: the header alone is over 1 KiB.
  const auto r = run_stderr("watch --no-gpu --interval 50ms --record " + shell_quote(rec) + " -- sleep 0.3",
                            "/dev/null", kOneKiBDisk);
  EXPECT_EQ(r.exit_code, 73) << r.out;
  EXPECT_NE(r.out.find("run.jsonl"), std::string::npos) << r.out;
  EXPECT_EQ(names_in(dir.path()), std::vector<std::string>{}) << "no recording, no temporary";
}

TEST(FailedWrites, WatchRecordIntoADirectoryIsRefusedBeforeTheCommandRuns) {
  ScratchDir dir;
  const std::string marker = dir / "ran";
  const auto r = run_stderr("watch --no-gpu --record " + shell_quote(dir.path()) + " -- touch " + shell_quote(marker));
  EXPECT_EQ(r.exit_code, 66) << r.out;
  EXPECT_NE(r.out.find("is a directory"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(marker)) << "the command must not run";
}

TEST(Watch, ACommandThatCannotRunExitsLikeAShell) {
  const auto missing = run_stderr("watch --no-gpu -- /nonexistent/tfrig-no-such-command");
  EXPECT_EQ(missing.exit_code, 127) << missing.out;
  EXPECT_NE(missing.out.find("tfrig-no-such-command"), std::string::npos) << missing.out;
  ScratchDir dir;
  const std::string not_exec = dir / "not-executable";
  testing::write_file(not_exec, "#!/bin/sh\n");
  ::chmod(not_exec.c_str(), 0644);
  // execve needs an execute bit even for root, and never runs a directory.
  for (const std::string& cmd : {not_exec, dir.path()}) {
    const auto r = run_stderr("watch --no-gpu -- " + shell_quote(cmd));
    EXPECT_EQ(r.exit_code, 126) << cmd << ": " << r.out;
    EXPECT_NE(r.out.find("Permission denied"), std::string::npos) << r.out;
  }
}

TEST(Cli, AnUnknownCommandNamesItselfAndTheNearest) {
  for (const std::string args : {"doctr", "-v doctr", "--root / doctr --format json"}) {
    const auto r = run_stderr(args);
    EXPECT_EQ(r.exit_code, 64) << args << ": " << r.out;
    EXPECT_NE(r.out.find("unknown command 'doctr'; did you mean 'doctor'?"), std::string::npos) << r.out;
    EXPECT_EQ(line_count(r.out), 1u) << r.out;
  }
  const auto far = run_stderr("xyzzy");
  EXPECT_EQ(far.exit_code, 64) << far.out;
  EXPECT_NE(far.out.find("unknown command 'xyzzy'"), std::string::npos) << far.out;
  EXPECT_EQ(far.out.find("did you mean"), std::string::npos) << "nothing near: " << far.out;
}

TEST(Watch, DurationEndsTheRunInsideALongInterval) {
  const auto start = std::chrono::steady_clock::now();
  const auto r = run_stderr("watch --no-gpu --interval 60s --duration 300ms");
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_LT(s, 10.0) << "--duration 300ms waited for the 60 s interval";
}

TEST(Watch, SigtermIsForwardedToTheCommandsProcessGroup) {
  ScratchDir dir;
  const std::string pidfile = dir / "child.pid";
  pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    int devnull = ::open("/dev/null", O_WRONLY);
    ::dup2(devnull, 1);
    ::dup2(devnull, 2);
    const std::string script = "echo $$ > " + shell_quote(pidfile) + ".tmp && mv " + shell_quote(pidfile) + ".tmp " +
                               shell_quote(pidfile) + " && exec sleep 60";
    ::execl(TFRIG_BINARY, "tfrig", "watch", "--no-gpu", "--interval", "100ms", "--", "sh", "-c", script.c_str(),
            static_cast<char*>(nullptr));
    ::_exit(127);
  }
  // Wait (bounded) for the command to have started.
  for (int i = 0; i < 400 && !fs::exists(pidfile); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(25));
  ASSERT_TRUE(fs::exists(pidfile));
  const pid_t child = static_cast<pid_t>(std::stol(testing::read_file(pidfile)));
  ASSERT_EQ(::kill(pid, SIGTERM), 0);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 128 + SIGTERM);
  // The command was waited for by tfrig, so it is gone (not a zombie).
  EXPECT_NE(::kill(child, 0), 0) << "the watched command (pid " << child << ") is still running";
}

TEST(OptionValues, OutOfRangeValuesAreUsageErrorsNamingTheOption) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"plan --model resnet50 --dataset-size -1", "--dataset-size"},
      {"plan --model resnet50 --image-size 0", "--image-size"},
      {"plan --model gpt2 --seq-len -3", "--seq-len"},
      {"plan --model resnet50 --decode-rate-per-core 0", "--decode-rate-per-core"},
      {"plan --model resnet50 --price-per-hour nan", "--price-per-hour"},
      {"plan --model resnet50 --price-per-hour inf", "--price-per-hour"},
      {"plan --model resnet50 --gpus 0", "--gpus"},
      {"doctor --root " + shell_quote(testing::data_path("roots/debian12-vm")) + " --tf abc", "--tf"},
      {"doctor --root " + shell_quote(testing::data_path("roots/debian12-vm")) + " --tf 9.9", "--tf"},
      {"compat --only-given --tf abc", "--tf"},
      {"compat --only-given --tf 9.9", "--tf"},
      // A version that is not one is a usage error, not a "no" verdict about it.
      {"compat --only-given --cuda abc", "--cuda"},
      {"compat --only-given --cudnn x", "--cudnn"},
      {"compat --only-given --driver abc", "--driver"},
      {"compat --only-given --python three", "--python"},
      {"plan --model resnet50 --epochs -1", "--epochs"},
      {"plan --model resnet50 --kwh -1", "--kwh"},
      {"plan --model resnet50 --steps 0", "--steps"},
      {"plan --model resnet50 --runs-per-month -2", "--runs-per-month"},
      // Unsigned options read "-1" as their largest value without a range check.
      {"pack " + shell_quote(testing::data_path("tfrecord")) + " -o /nonexistent-out --seed -1", "--seed"},
      {"inspect --show -1 " + shell_quote(testing::data_path("tfrecord/tfx__cifar10_test.tfrecord")), "--show"},
  };
  for (const auto& [args, option] : cases) {
    const auto r = run_stderr(args);
    EXPECT_EQ(r.exit_code, 64) << args << ": " << r.out;
    EXPECT_NE(r.out.find(option), std::string::npos) << args << ": " << r.out;
    EXPECT_EQ(r.out.find("internal error"), std::string::npos) << r.out;
  }
  // An unknown version names the range tfrig knows.
  const auto r = run_stderr("compat --only-given --tf 9.9");
  EXPECT_NE(r.out.find("tfrig knows TensorFlow"), std::string::npos) << r.out;
}

// Every number of a snapshot is checked against what its field can hold: a
// whole number where an integer is expected, in range, not negative, finite.
// Before, "threads": 1e300 showed as "-2147483648 threads", 2.5 as 2 and -5
// as -5, and "1e400" (beyond a double) was an internal error.
TEST(SnapshotNumbers, OutOfRangeNumbersAreExit65NamingTheJsonPath) {
  ScratchDir dir;
  const auto good = nlohmann::json::parse(
      testing::read_file(testing::data_path("snapshots/gpu_box_two_a100_old_driver.json")));
  const std::vector<std::pair<std::string, nlohmann::json>> cases = {
      {"/inventory/cpu/threads", 1e300},
      {"/inventory/cpu/threads", -5},
      {"/inventory/cpu/threads", 2.5},
      {"/inventory/cpu/physical_cores", -1},
      {"/inventory/cpu/sockets", 4294967297ull},
      {"/inventory/cpu/numa_nodes/0/cpus/1", 1e300},
      {"/inventory/memory/total_bytes", -1},
      {"/inventory/memory/swappiness", -60},
      {"/inventory/gpus/0/power_limit_watts", -3.5},
      {"/inventory/gpus/1/index", 2.5},
      {"/inventory/gpus/0/memory_total_bytes", 1e30},
      {"/inventory/pci/devices/0/vendor_id", 1099511627776ull},
  };
  const std::string file = dir / "bad-number.json";
  for (const auto& [path, value] : cases) {
    auto j = good;
    const nlohmann::json::json_pointer ptr(path);
    j[ptr] = value;  // a key this snapshot lacks (read as unknown) is added
    testing::write_file(file, j.dump());
    // All three read the snapshot through one parser: doctor for every case,
    // plan and setup for the first (kept short for CI).
    std::vector<std::string> commands = {"doctor --snapshot "};
    if (&path == &cases.front().first) commands = {"doctor --snapshot ", "plan --model resnet50 --snapshot ", "setup --from-snapshot "};
    for (const std::string& command : commands) {
      const auto r = run_stderr(command + shell_quote(file));
      SCOPED_TRACE(command + path + " = " + value.dump());
      EXPECT_EQ(r.exit_code, 65) << r.out;
      EXPECT_NE(r.out.find(path), std::string::npos) << "names the JSON path: " << r.out;
      EXPECT_NE(r.out.find("bad-number.json"), std::string::npos) << r.out;
    }
  }
  // A whole number written as 64.0 is still 64.
  auto j = good;
  j["inventory"]["cpu"]["threads"] = 64.0;
  testing::write_file(file, j.dump());
  EXPECT_LT(run_stderr("doctor --snapshot " + shell_quote(file)).exit_code, 3);
  // A number beyond a double is malformed JSON, not an internal error.
  std::string text = good.dump();
  const std::string threads = "\"threads\":64";
  ASSERT_NE(text.find(threads), std::string::npos);
  text.replace(text.find(threads), threads.size(), "\"threads\":1e400");
  testing::write_file(file, text);
  for (const std::string command : {"doctor --snapshot ", "fleet ", "plan --model resnet50 --snapshot "}) {
    const auto r = run_stderr(command + shell_quote(file));
    EXPECT_EQ(r.exit_code, command == "fleet " ? 66 : 65) << command << r.out;  // fleet: no snapshot read
    EXPECT_EQ(r.out.find("internal error"), std::string::npos) << command << r.out;
    EXPECT_NE(r.out.find("bad-number.json"), std::string::npos) << command << r.out;
  }
}

// A snapshot whose GPUs have no name or memory and whose CPU and RAM are
// unknown: plan says "unknown", never "0 B per GPU" short, "need 0" GPUs or
// "0 B" of RAM (what it printed before).
TEST(PlanSnapshot, UnknownCountsAndSizesPrintUnknown) {
  ScratchDir dir;
  auto j = nlohmann::json::parse(testing::read_file(testing::data_path("snapshots/gpu_box_two_a100_old_driver.json")));
  for (auto& g : j["inventory"]["gpus"]) {
    g["memory_total_bytes"] = nullptr;
    g["name"] = nullptr;
    g["pci_device_id"] = nullptr;
  }
  for (const char* k : {"threads", "physical_cores", "sockets"}) j["inventory"]["cpu"][k] = nullptr;
  for (const char* k : {"total_bytes", "available_bytes"}) j["inventory"]["memory"][k] = nullptr;
  const std::string file = dir / "unknown.json";
  testing::write_file(file, j.dump());
  const std::string out = dir / "plan.txt";
  ASSERT_EQ(run_stderr("plan --model resnet50 --snapshot " + shell_quote(file), out).exit_code, 0);
  const std::string text = testing::read_file(out);
  const std::string barrel = text.substr(text.find("The barrel on snapshot"));
  EXPECT_EQ(barrel.find(" 0 B"), std::string::npos) << barrel;
  EXPECT_EQ(barrel.find("largest batch 0"), std::string::npos) << barrel;
  EXPECT_EQ(barrel.find("at 0 samples/s"), std::string::npos) << barrel;
  EXPECT_EQ(barrel.find("shortest stave"), std::string::npos) << "nothing is known to be short: " << barrel;
  EXPECT_EQ(barrel.find("  short\n"), std::string::npos) << barrel;
  EXPECT_NE(barrel.find("4 unknown"), std::string::npos) << barrel;
  EXPECT_NE(barrel.find("GPU memory  unknown"), std::string::npos) << barrel;
  ASSERT_EQ(run_stderr("plan --model resnet50 --format json --snapshot " + shell_quote(file), out).exit_code, 0);
  const auto plan = nlohmann::json::parse(testing::read_file(out));
  for (const auto& stave : plan.at("machine").at("staves")) {
    const std::string name = stave.at("name");
    if (name == "PCIe") continue;  // the link width is in this snapshot
    EXPECT_EQ(stave.at("verdict"), "unknown") << stave.dump();
    EXPECT_TRUE(stave.at("ratio").is_null()) << stave.dump();
    EXPECT_NE(stave.at("need"), "0") << stave.dump();
    EXPECT_EQ(stave.at("have").get<std::string>().find("0 B"), std::string::npos) << stave.dump();
  }
}

// docs/cli.md: --color auto colours only a terminal and never with NO_COLOR
// set; an explicit --color always or never wins over both.
TEST(Cli, NoColorAndColorOptionsAgreeWithTheDocs) {
  const std::string snapshot = shell_quote(testing::data_path("snapshots/gpu_box_two_a100_old_driver.json"));
  const std::string log = shell_quote(testing::data_path("logs/behaviormetrics-385-cusolver-cudnn.log"));
  const bool have_script = testing::run_shell("command -v script >/dev/null 2>&1").exit_code == 0;
  for (const std::string& args : {"doctor --snapshot " + snapshot, "fleet " + snapshot + " " + snapshot, "explain " + log}) {
    auto colours = [&](const std::string& env, const std::string& flags) {
      const auto r = testing::run_shell(env + shell_quote(TFRIG_BINARY) + " " + args + flags + " 2>/dev/null");
      return r.out.find("\x1b[") != std::string::npos;
    };
    EXPECT_TRUE(colours("NO_COLOR=1 ", " --color always")) << args;
    EXPECT_TRUE(colours("", " --color always")) << args;
    EXPECT_FALSE(colours("", " --color never")) << args;
    EXPECT_FALSE(colours("", "")) << args << ": not a terminal";
    if (!have_script) continue;
    // On a terminal (script(1) gives one): colour unless NO_COLOR is set.
    auto on_tty = [&](const std::string& env) {
      const auto r = testing::run_shell("script -qec " + shell_quote(env + shell_quote(TFRIG_BINARY) + " " + args) + " /dev/null");
      return r.out.find("\x1b[") != std::string::npos;
    };
    EXPECT_TRUE(on_tty("")) << args;
    EXPECT_FALSE(on_tty("NO_COLOR=1 ")) << args;
  }
}

// ---- pack -----------------------------------------------------------------

void make_images(const std::string& root, const std::vector<std::string>& classes, int per_class) {
  for (size_t c = 0; c < classes.size(); ++c) {
    for (int i = 0; i < per_class; ++i) {
      const auto seed = static_cast<uint32_t>(c * 100 + static_cast<size_t>(i));
      testing::write_file(root + "/" + classes[c] + "/" + std::to_string(i) + ".jpg",
                          testing::tiny_jpeg(static_cast<uint16_t>(20 + i), 10, 3, 2000, seed));
    }
  }
}

std::string pack_args(const std::string& src, const std::string& out, const std::string& extra = "") {
  return "pack " + shell_quote(src) + " -o " + shell_quote(out) + " --shard-size 8KB --no-progress " + extra;
}

std::map<std::string, std::string> dir_contents(const std::string& dir) {
  std::map<std::string, std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) out[e.path().filename().string()] = testing::read_file(e.path());
  return out;
}

TEST(PackRobustness, NonUtf8LabelsKeepTheirBytesAndJsonStaysValid) {
  ScratchDir dir;
  const std::string latin1 = "caf\xe9";
  make_images(dir / "src", {latin1, "dog"}, 3);
  const auto r = run_stderr(pack_args(dir / "src", dir / "out", "--no-shuffle"));
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const auto map = nlohmann::json::parse(testing::read_file(dir / "out/data.label_map.json"));
  ASSERT_EQ(map["labels"].size(), 2u);
  EXPECT_EQ(map["labels"][0]["name"], "caf\\xe9");
  EXPECT_EQ(map["labels"][0]["name_hex"], "636166e9");
  EXPECT_FALSE(map["labels"][1].contains("name_hex"));
  // The shard keeps the exact bytes of the label (no shuffle: the first
  // record is the first file of the first class).
  std::string shard;
  for (const auto& name : names_in(dir / "out")) {
    if (name.find("-00000-of-") != std::string::npos && name.size() > 9 && name.substr(name.size() - 9) == ".tfrecord") {
      shard = dir / ("out/" + name);
    }
  }
  ASSERT_FALSE(shard.empty());
  auto reader = tfrecord::RecordReader::open(shard);
  ASSERT_TRUE(reader);
  auto rec = reader->next();
  ASSERT_TRUE(rec && *rec);
  auto ex = tfrecord::decode_example(**rec);
  ASSERT_TRUE(ex);
  EXPECT_EQ(std::string(ex->at("image/class/text").bytes.at(0)), latin1);
  // inspect and verify print valid JSON whatever the bytes.
  for (const std::string& args : std::vector<std::string>{"inspect --json --show 2 --show-bytes " + shell_quote(shard),
                                 "inspect --json --show 2 " + shell_quote(shard), "verify --json " + shell_quote(dir / "out")}) {
    const auto j = testing::run_shell(shell_quote(TFRIG_BINARY) + " " + args + " 2>/dev/null");
    EXPECT_EQ(j.exit_code, 0) << args << j.out;
    EXPECT_TRUE(nlohmann::json::accept(j.out)) << args << j.out;
  }
}

TEST(PackRobustness, NonUtf8FeatureKeysAndValuesInspectAsEscapedJson) {
  ScratchDir dir;
  // One Example with key "\xff\xfe" holding the bytes "\xc3\x28" (invalid UTF-8).
  std::vector<std::pair<std::string, tfrecord::FeatureValue>> features;
  const std::string key("\xff\xfe", 2);
  const std::string value("\xc3\x28", 2);
  features.emplace_back(key, tfrecord::FeatureValue::of_bytes(value));
  std::string record;
  tfrecord::encode_example(features, record);
  const std::string path = dir / "odd.tfrecord";
  {
    auto w = tfrecord::RecordWriter::create(path, tfrecord::WriterOptions{});
    ASSERT_TRUE(w);
    ASSERT_TRUE(w->write(record));
    ASSERT_TRUE(w->finish());
    ASSERT_TRUE(w->commit());
  }
  for (const std::string flags : {"--json --show 1 --show-bytes", "--json --show 1", "--show 1 --show-bytes"}) {
    const auto r = testing::run_shell(shell_quote(TFRIG_BINARY) + " inspect " + flags + " " + shell_quote(path) + " 2>&1");
    EXPECT_EQ(r.exit_code, 0) << flags << ": " << r.out;
    EXPECT_EQ(r.out.find("internal error"), std::string::npos) << r.out;
    if (flags.find("--json") == std::string::npos) {
      EXPECT_NE(r.out.find("\\xff\\xfe"), std::string::npos) << flags << ": the key, escaped: " << r.out;
      continue;
    }
    ASSERT_TRUE(nlohmann::json::accept(r.out)) << r.out;
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j.at("schema").at(0).at("key"), "\\xff\\xfe") << r.out;
    const auto& shown = j.at("examples").at(0).at("\\xff\\xfe").at("bytes_list").at(0);
    if (flags.find("--show-bytes") != std::string::npos) {
      EXPECT_EQ(shown, nlohmann::json({{"hex", "c328"}})) << r.out;  // exact bytes, as hex
    }
  }
}

TEST(PackRobustness, FifoAndDevicesInTheSourceAreSkippedAndCounted) {
  ScratchDir dir;
  make_images(dir / "src", {"cat", "dog"}, 2);
  ASSERT_EQ(::mkfifo((dir / "src/cat/a-fifo").c_str(), 0644), 0);
  ::symlink("/dev/zero", (dir / "src/dog/zero").c_str());
  const auto r = testing::run_shell("timeout 30 " + shell_quote(TFRIG_BINARY) + " " +
                                    pack_args(dir / "src", dir / "out") + " 2>&1");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("packed 4 records"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("skipped 2 entries"), std::string::npos) << r.out;
}

TEST(PackRobustness, OutputFolderInsideTheSourceIsNotAClass) {
  ScratchDir dir;
  make_images(dir / "src", {"cat", "dog"}, 2);
  ASSERT_EQ(run_stderr(pack_args(dir / "src", dir / "src/tfrecords")).exit_code, 0);
  const auto again = run_stderr(pack_args(dir / "src", dir / "src/tfrecords", "--overwrite"));
  ASSERT_EQ(again.exit_code, 0) << again.out;
  const auto map = nlohmann::json::parse(testing::read_file(dir / "src/tfrecords/data.label_map.json"));
  ASSERT_EQ(map["labels"].size(), 2u) << map.dump();
  EXPECT_EQ(map["labels"][0]["name"], "cat");
  EXPECT_EQ(map["labels"][1]["name"], "dog");
}

TEST(PackRobustness, ResumeRefusesShardsOfAnotherPlan) {
  ScratchDir dir;
  make_images(dir / "src", {"cat", "dog"}, 6);
  ASSERT_EQ(run_stderr(pack_args(dir / "src", dir / "out", "--seed 1")).exit_code, 0);
  const auto before = dir_contents(dir / "out");
  for (const std::string other : {"--shard-size 8KB --seed 2", "--shard-size 20KB --seed 1",
                                  "--shard-size 8KB --seed 1 --label-offset 1"}) {
    const auto r = run_stderr("pack " + shell_quote(dir / "src") + " -o " + shell_quote(dir / "out") +
                              " --no-progress --resume " + other);
    EXPECT_EQ(r.exit_code, 64) << other << ": " << r.out;
    EXPECT_NE(r.out.find(" plan"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("--overwrite"), std::string::npos) << r.out;
  }
  EXPECT_EQ(dir_contents(dir / "out"), before) << "nothing changed";
  // The same plan resumes (all kept); another input does not.
  const auto same = run_stderr(pack_args(dir / "src", dir / "out", "--resume --seed 1"));
  EXPECT_EQ(same.exit_code, 0) << same.out;
  testing::write_file(dir / "src/cat/new.jpg", testing::tiny_jpeg(30, 10, 3, 2000, 999));
  EXPECT_EQ(run_stderr(pack_args(dir / "src", dir / "out", "--resume --seed 1")).exit_code, 64);
}

TEST(PackRobustness, VerifyReportsAnIncompleteShardSet) {
  ScratchDir dir;
  make_images(dir / "src", {"cat", "dog"}, 6);
  ASSERT_EQ(run_stderr(pack_args(dir / "src", dir / "out")).exit_code, 0);
  auto ok = testing::run_shell(shell_quote(TFRIG_BINARY) + " verify " + shell_quote(dir / "out") + " 2>&1");
  ASSERT_EQ(ok.exit_code, 0) << ok.out;
  std::string victim;
  for (const auto& e : fs::directory_iterator(dir / "out")) {
    const std::string n = e.path().filename().string();
    if (n.find("-00001-of-") != std::string::npos && n.size() > 9 && n.substr(n.size() - 9) == ".tfrecord") victim = e.path();
  }
  ASSERT_FALSE(victim.empty());
  fs::remove(victim);
  auto missing = testing::run_shell(shell_quote(TFRIG_BINARY) + " verify " + shell_quote(dir / "out") + " 2>&1");
  EXPECT_EQ(missing.exit_code, 1) << missing.out;
  EXPECT_NE(missing.out.find("incomplete"), std::string::npos) << missing.out;
  EXPECT_NE(missing.out.find("00001"), std::string::npos) << missing.out;
}

TEST(PackRobustness, AShardSizeBelowOneRecordWritesNoEmptyShard) {
  ScratchDir dir;
  make_images(dir / "src", {"cat", "dog"}, 3);
  const auto r = run_stderr("pack " + shell_quote(dir / "src") + " -o " + shell_quote(dir / "out") +
                            " --shard-size 100 --no-progress");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  size_t shards = 0;
  for (const auto& e : fs::directory_iterator(dir / "out")) {
    const std::string n = e.path().filename().string();
    if (n.size() <= 9 || n.substr(n.size() - 9) != ".tfrecord") continue;
    ++shards;
    EXPECT_GT(fs::file_size(e.path()), 16u) << n << " holds no record";
  }
  EXPECT_EQ(shards, 6u) << "one record per shard";
  EXPECT_EQ(testing::run_shell(shell_quote(TFRIG_BINARY) + " verify " + shell_quote(dir / "out") + " 2>&1").exit_code, 0);
}

TEST(PackRobustness, VerifyReportsATemporaryLeftByAnInterruptedRun) {
  ScratchDir dir;
  make_images(dir / "src", {"cat", "dog"}, 3);
  ASSERT_EQ(run_stderr(pack_args(dir / "src", dir / "out")).exit_code, 0);
  testing::write_file(dir / "out/data-00000-of-00001.tfrecord.tmp-4242", "partial");
  const auto r = testing::run_shell(shell_quote(TFRIG_BINARY) + " verify " + shell_quote(dir / "out") + " 2>&1");
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_NE(r.out.find("INCOMPLETE"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(".tmp-4242"), std::string::npos) << r.out;
}

TEST(PackRobustness, SigtermMidShardRemovesTemporariesAndResumeCompletes) {
  ScratchDir dir;
  make_images(dir / "src", {"cat", "dog", "emu"}, 10);
  ASSERT_EQ(run_stderr(pack_args(dir / "src", dir / "whole", "--seed 5")).exit_code, 0);
  const auto whole = dir_contents(dir / "whole");
  for (const int sig : {SIGTERM, SIGINT}) {
    const std::string out = dir / ("stopped-" + std::to_string(sig));
    const std::string err = dir / ("stderr-" + std::to_string(sig));
    pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      // The test hook stops the process (SIGSTOP) after 7 records, mid-shard.
      ::setenv("TFRIG_TEST_STOP_AFTER_RECORDS", "7", 1);
      int devnull = ::open("/dev/null", O_WRONLY);
      int errfd = ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      ::dup2(devnull, 1);
      ::dup2(errfd, 2);
      std::string src = dir / "src";
      ::execl(TFRIG_BINARY, "tfrig", "pack", src.c_str(), "-o", out.c_str(), "--shard-size", "8KB", "--no-progress",
              "--seed", "5", "-j", "1", static_cast<char*>(nullptr));
      ::_exit(127);
    }
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, WUNTRACED), pid);
    ASSERT_TRUE(WIFSTOPPED(status)) << "pack finished before the test hook stopped it";
    ASSERT_EQ(::kill(pid, sig), 0);
    ASSERT_EQ(::kill(pid, SIGCONT), 0);
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status)) << "pack died of the signal instead of cleaning up";
    EXPECT_EQ(WEXITSTATUS(status), 128 + sig);
    const std::string said = testing::read_file(err);
    EXPECT_NE(said.find("interrupted by signal"), std::string::npos) << said;
    EXPECT_NE(said.find("complete"), std::string::npos) << said;
    for (const auto& [name, data] : dir_contents(out)) {
      EXPECT_EQ(name.find(".tmp"), std::string::npos) << name << " left behind";
    }
    const auto resumed = run_stderr(pack_args(dir / "src", out, "--seed 5 --resume"));
    ASSERT_EQ(resumed.exit_code, 0) << resumed.out;
    EXPECT_EQ(dir_contents(out), whole);
  }
}

TEST(PackRobustness, ManifestErrorsAreDataErrors) {
  ScratchDir dir;
  testing::write_file(dir / "empty.csv", "");
  testing::write_file(dir / "nopath.csv", "label\ncat\n");
  testing::write_file(dir / "header-only.csv", "path,label\n");
  // A bad row is malformed input as an empty manifest is: 65, naming file and line.
  testing::write_file(dir / "short-row.csv", "path,label\na.jpg,cat\nb.jpg\n");
  testing::write_file(dir / "open-quote.csv", "path,label\na.jpg,cat\n\"b.jpg,dog\n");
  testing::write_file(dir / "empty.jsonl", "");
  testing::write_file(dir / "not-json.jsonl", "{\"path\": \"a.jpg\", \"label\": \"cat\"}\nnot json\n");
  testing::write_file(dir / "path-number.jsonl", "{\"path\": \"a.jpg\", \"label\": \"cat\"}\n{\"path\": 3}\n");
  for (const std::string m : {"short-row.csv", "open-quote.csv", "not-json.jsonl", "path-number.jsonl"}) {
    const auto r = run_stderr(pack_args(dir / m, dir / "out"));
    EXPECT_EQ(r.exit_code, 65) << m << ": " << r.out;
    EXPECT_NE(r.out.find(m + ":"), std::string::npos) << r.out;
  }
  for (const std::string m : {"empty.csv", "nopath.csv", "header-only.csv", "empty.jsonl"}) {
    const auto r = run_stderr(pack_args(dir / m, dir / "out"));
    EXPECT_EQ(r.exit_code, 65) << m << ": " << r.out;
    EXPECT_NE(r.out.find(m), std::string::npos) << r.out;
  }
}

}  // namespace
}  // namespace tfrig::hostile_inputs

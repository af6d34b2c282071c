// `setup -o DIR` never leaves half a folder and never writes where another
// user could change install.sh before root runs it (src/setup/write.h,
// docs/security.md): a write that fails part way (an injected failure like a
// full disk, and the real binary under RLIMIT_FSIZE) leaves DIR as it was and
// no staging folder; a DIR of another user, one every user may write to, or a
// symbolic link is refused without --force.
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include <gtest/gtest.h>

#include "core/atomic_file.h"
#include "knowledge/knowledge.h"
#include "setup/write.h"
#include "setup_test_support.h"
#include "test_support.h"

namespace tfrig::setup::test {
namespace {

namespace fs = std::filesystem;
using tfrig::test::list_dir;
using tfrig::test::read_file;
using tfrig::test::TempDir;

const std::vector<OutputFile>& some_files() {
  static const std::vector<OutputFile> kFiles = render_cell(cells().front());
  return kFiles;
}

// A writer that fails at the `fail_at`-th file as write(2) does on a full disk.
FileWriter failing_writer(int fail_at) {
  auto n = std::make_shared<int>(0);
  return [n, fail_at](const std::string& path, std::string_view content, unsigned mode) -> core::Status {
    if (++*n == fail_at) return core::fail(core::ErrorCode::kIo, path, "cannot write: No space left on device");
    return core::write_file_atomic(path, content, mode);
  };
}

TEST(SetupWrite, AFailedWriteLeavesNoFolder) {
  ASSERT_GE(some_files().size(), 5u);
  TempDir tmp;
  const std::string out = tmp.file("out");
  auto st = write_outputs(out, some_files(), false, failing_writer(3));
  ASSERT_FALSE(st);
  EXPECT_NE(st.error().to_string().find("No space left"), std::string::npos) << st.error().to_string();
  EXPECT_FALSE(fs::exists(out)) << "half a folder was left";
  EXPECT_TRUE(list_dir(tmp.path()).empty()) << "a staging folder was left: " << list_dir(tmp.path()).front();
}

TEST(SetupWrite, AFailedForcedWriteLeavesTheOldFilesWhole) {
  TempDir tmp;
  const std::string out = tmp.file("out");
  ASSERT_TRUE(write_outputs(out, some_files(), false));
  tfrig::test::write_file(out + "/install.sh", "#!/bin/sh\necho the old one\n");
  tfrig::test::write_file(out + "/notes.txt", "mine\n");
  const auto names = list_dir(out);
  auto st = write_outputs(out, some_files(), true, failing_writer(4));
  ASSERT_FALSE(st);
  EXPECT_EQ(read_file(out + "/install.sh"), "#!/bin/sh\necho the old one\n");
  EXPECT_EQ(read_file(out + "/notes.txt"), "mine\n");
  EXPECT_EQ(list_dir(out), names);
  EXPECT_EQ(list_dir(tmp.path()), std::vector<std::string>{"out"});
  // Forced and whole: tfrig's files replaced, the user's kept.
  ASSERT_TRUE(write_outputs(out, some_files(), true));
  EXPECT_EQ(read_file(out + "/install.sh"), some_files()[1].content);
  EXPECT_EQ(read_file(out + "/notes.txt"), "mine\n");
  EXPECT_EQ(list_dir(tmp.path()), std::vector<std::string>{"out"});
}

// The real binary with a file size limit (SIGXFSZ ignored, so write(2) fails
// with EFBIG as on a full disk): exit 73, no DIR, no staging folder.
TEST(SetupWrite, FileSizeLimitLeavesNoFolder) {
  TempDir tmp;
  const std::string out = tmp.file("parent/out");
  fs::create_directories(tmp.file("parent"));
  const std::string cmd = "trap '' XFSZ; ulimit -f 4; exec '" + tfrig::test::binary_path() +
                          "' setup --os ubuntu-22.04 --tf 2.17 --gpu cc:8.0 -o '" + out + "' >/dev/null 2>'" +
                          tmp.file("err") + "'";
  const int rc = std::system(("bash -c \"" + cmd + "\"").c_str());
  ASSERT_TRUE(WIFEXITED(rc));
  EXPECT_EQ(WEXITSTATUS(rc), 73) << read_file(tmp.file("err"));
  EXPECT_FALSE(fs::exists(out));
  EXPECT_TRUE(list_dir(tmp.file("parent")).empty());
}

TEST(SetupWrite, ALongFolderNameWorks) {
  TempDir tmp;
  const std::string out = tmp.file(std::string(250, 'd'));
  ASSERT_TRUE(write_outputs(out, some_files(), false));
  EXPECT_TRUE(fs::exists(out + "/install.sh"));
}

TEST(SetupWrite, AnEmptyFolderOfOursIsFilled) {
  TempDir tmp;
  const std::string out = tmp.file("out");
  fs::create_directories(out);
  ASSERT_TRUE(write_outputs(out + "/", some_files(), false));
  EXPECT_TRUE(fs::exists(out + "/install.sh"));
  EXPECT_EQ(list_dir(tmp.path()), std::vector<std::string>{"out"});
}

TEST(SetupWrite, ASymbolicLinkIsRefused) {
  TempDir tmp;
  fs::create_directories(tmp.file("real"));
  fs::create_directory_symlink(tmp.file("real"), tmp.file("link"));
  for (bool force : {false, true}) {
    auto st = write_outputs(tmp.file("link"), some_files(), force);
    ASSERT_FALSE(st);
    EXPECT_NE(st.error().to_string().find("symbolic link"), std::string::npos);
  }
  EXPECT_TRUE(list_dir(tmp.file("real")).empty());
}

TEST(SetupWrite, AWorldWritableFolderIsRefusedWithoutForce) {
  TempDir tmp;
  const std::string out = tmp.file("out");
  fs::create_directories(out);
  ASSERT_EQ(::chmod(out.c_str(), 0777), 0);
  auto st = write_outputs(out, some_files(), false);
  ASSERT_FALSE(st);
  EXPECT_NE(st.error().to_string().find("every user"), std::string::npos) << st.error().to_string();
  EXPECT_TRUE(list_dir(out).empty());
  // --force: the empty folder is replaced by a new one nobody else may write to.
  ASSERT_TRUE(write_outputs(out, some_files(), true));
  struct stat s {};
  ASSERT_EQ(::stat(out.c_str(), &s), 0);
  EXPECT_EQ(s.st_mode & S_IWOTH, 0u);
  EXPECT_TRUE(fs::exists(out + "/install.sh"));
}

TEST(SetupWrite, AFolderOfAnotherUserIsRefusedWithoutForce) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root: a folder of another user is made by chown to nobody (65534)";
  TempDir tmp;
  const std::string out = tmp.file("out");
  fs::create_directories(out);
  ASSERT_EQ(::chown(out.c_str(), 65534, 65534), 0);
  auto st = write_outputs(out, some_files(), false);
  ASSERT_FALSE(st);
  EXPECT_NE(st.error().to_string().find("belongs to"), std::string::npos) << st.error().to_string();
  EXPECT_NE(st.error().to_string().find("--force"), std::string::npos);
  EXPECT_TRUE(list_dir(out).empty());
  // The command says the same and exits 73.
  auto r = tfrig::test::run_tfrig({"setup", "--os", "ubuntu-22.04", "--tf", "2.17", "--gpu", "cc:8.0", "-o", out});
  EXPECT_EQ(r.exit_code, 73) << r.err;
  EXPECT_NE(r.err.find("belongs to"), std::string::npos) << r.err;
  // --force: the empty folder is replaced by one of ours, which the other user cannot change.
  ASSERT_TRUE(write_outputs(out, some_files(), true));
  struct stat s {};
  ASSERT_EQ(::stat(out.c_str(), &s), 0);
  EXPECT_EQ(s.st_uid, ::geteuid());
  EXPECT_TRUE(fs::exists(out + "/install.sh"));
}

}  // namespace
}  // namespace tfrig::setup::test

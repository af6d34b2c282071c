// core::UniqueFd closes its descriptor exactly once: at scope end, on reset,
// after a move only in the new owner, never after release.
#include <fcntl.h>
#include <unistd.h>

#include <utility>

#include <gtest/gtest.h>

#include "core/unique_fd.h"

namespace tfrig::core {
namespace {

bool is_open(int fd) { return ::fcntl(fd, F_GETFD) != -1; }

TEST(UniqueFd, ClosesOnceWhateverPathOwnsIt) {
  int raw = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  ASSERT_GE(raw, 0);
  {
    UniqueFd a(raw);
    EXPECT_TRUE(a.valid());
    UniqueFd b(std::move(a));
    EXPECT_FALSE(a.valid());  // NOLINT(bugprone-use-after-move): moved-from is empty by contract
    EXPECT_EQ(b.get(), raw);
    EXPECT_TRUE(is_open(raw));
  }
  EXPECT_FALSE(is_open(raw));

  int kept = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  ASSERT_GE(kept, 0);
  {
    UniqueFd c(kept);
    EXPECT_EQ(c.release(), kept);
  }
  EXPECT_TRUE(is_open(kept));

  UniqueFd d(kept);
  int other = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  ASSERT_GE(other, 0);
  d.reset(other);
  EXPECT_FALSE(is_open(kept));
  EXPECT_TRUE(is_open(other));
  UniqueFd e;
  e = std::move(d);
  EXPECT_EQ(e.get(), other);
  e.reset();
  EXPECT_FALSE(is_open(other));
  EXPECT_FALSE(e.valid());
}

}  // namespace
}  // namespace tfrig::core

// The Chinese report on a real terminal: tmux draws each line of it, and the
// column its cursor ends in must be what core::display_width computed, so the
// tables tfrig pads line up on screen. tmux runs on a private socket in a
// scratch directory and is killed after, also when the test fails; each line
// is handed over with tmux's own wait-for channels (no sleeps).
#include <unistd.h>

#include <array>
#include <cstdio>

#include <gtest/gtest.h>

#include "core/display_width.h"
#include "core/text.h"
#include "test_support.h"

namespace tfrig {
namespace {

struct Shell {
  int rc = -1;
  std::string out;
};

Shell sh(const std::string& command) {
  Shell r;
  FILE* p = ::popen((command + " 2>&1").c_str(), "r");
  if (p == nullptr) return r;
  std::array<char, 4096> buf{};
  size_t n = 0;
  while ((n = std::fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
  r.rc = ::pclose(p);
  return r;
}

std::string quote(const std::string& s) { return "'" + test::replace_all(s, "'", "'\\''") + "'"; }

class TmuxServer {
 public:
  explicit TmuxServer(std::string socket) : socket_(std::move(socket)) {}
  ~TmuxServer() { sh(command("kill-server")); }
  TmuxServer(const TmuxServer&) = delete;
  TmuxServer& operator=(const TmuxServer&) = delete;
  // -u: UTF-8 whatever the caller's locale; the server measures with C.UTF-8.
  std::string command(const std::string& args) const { return "LC_ALL=C.UTF-8 tmux -u -f /dev/null -S " + quote(socket_) + " " + args; }

 private:
  std::string socket_;
};

TEST(I18nTmux, TerminalColumnsOfTheChineseReportAgreeWithDisplayWidth) {
  if (sh("command -v tmux").rc != 0) GTEST_SKIP() << "tmux is not installed (scripts/deps-i18n.txt)";
  test::RunOptions o;
  o.cwd = test::data_dir();
  o.env = {"LANGUAGE=", "LC_ALL=", "LC_MESSAGES=", "LANG=C"};
  auto report = test::run_tfrig({"--lang", "zh_CN", "doctor", "--color", "never", "--snapshot",
                                 "snapshots/gpu_box_two_a100_old_driver.json"}, o);
  // The lines where wide characters decide the padding: table rows and fields.
  std::string lines;
  std::vector<size_t> widths;
  for (auto line : core::split_lines(report.out)) {
    const size_t w = core::display_width(line);
    if (w == line.size() || w >= 190 || line.find('\'') != std::string_view::npos) continue;  // ASCII only, or too wide
    lines += std::string(line) + "\n";
    widths.push_back(w);
    if (widths.size() == 25) break;
  }
  ASSERT_GE(widths.size(), 10u) << report.out;

  test::TempDir tmp;
  test::write_file(tmp.file("lines.txt"), lines);
  const std::string socket = tmp.file("tmux.sock");
  TmuxServer tmux(socket);
  const std::string wait = "tmux -S " + quote(socket) + " wait-for";
  test::write_file(tmp.file("show.sh"),
                   "while IFS= read -r line; do printf '\\r\\033[2K%s' \"$line\"; " + wait + " -S shown; " + wait +
                       " go; done < " + quote(tmp.file("lines.txt")) + "\nexec cat\n");
  auto started = sh(tmux.command("new-session -d -x 200 -y 10 " + quote("sh " + quote(tmp.file("show.sh")))));
  ASSERT_EQ(started.rc, 0) << started.out;
  for (size_t i = 0; i < widths.size(); ++i) {
    ASSERT_EQ(sh(tmux.command("wait-for shown")).rc, 0);
    auto x = sh(tmux.command("display-message -p '#{cursor_x}'"));
    EXPECT_EQ(core::trim(x.out), std::to_string(widths[i])) << "line " << i << ": " << core::split_lines(lines)[i];
    ASSERT_EQ(sh(tmux.command("wait-for -S go")).rc, 0);
  }
}

}  // namespace
}  // namespace tfrig

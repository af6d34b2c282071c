// tfrig completion bash|zsh|fish and the manual pages, generated from the
// command definitions: the scripts parse in their shells and complete what
// the binary takes; the pages render with man and name every option.
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <regex>
#include <set>

#include <gtest/gtest.h>

#include "cli/cli_docs.h"
#include "test_support.h"

namespace tfrig {
namespace {

int run_shell_status(const std::string& cmd) {
  const int rc = std::system(cmd.c_str());
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

bool have(const std::string& tool) { return run_shell_status("command -v " + tool + " >/dev/null 2>&1") == 0; }

std::string script(const std::string& shell) {
  auto r = test::run_tfrig({"completion", shell});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r.out;
}

// What bash completes after `words` (the last one is the word under the cursor).
std::string bash_complete(const test::TempDir& dir, const std::string& words) {
  const std::string cmd = "bash -c 'source \"$0\"; COMP_WORDS=(" + words + "); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); " +
                          "[ \"${COMP_WORDS[COMP_CWORD]+x}\" ] || COMP_WORDS+=(\"\"); _tfrig; [ ${#COMPREPLY[@]} -eq 0 ] || printf \"%s\\n\" \"${COMPREPLY[@]}\"' " +
                          dir.file("tfrig.bash") + " > " + dir.file("out") + " 2>&1";
  EXPECT_EQ(run_shell_status(cmd), 0) << test::read_file(dir.file("out"));
  return test::read_file(dir.file("out"));
}

TEST(Completion, BashCompletesCommandsOptionsAndChoices) {
  test::TempDir dir;
  test::write_file(dir.file("tfrig.bash"), script("bash"));
  ASSERT_EQ(run_shell_status("bash -n " + dir.file("tfrig.bash")), 0);
  if (have("shellcheck")) {
    EXPECT_EQ(run_shell_status("shellcheck -s bash " + dir.file("tfrig.bash")), 0);
  }
  EXPECT_EQ(bash_complete(dir, "tfrig doc"), "doctor\n");
  EXPECT_NE(bash_complete(dir, "tfrig doctor --for").find("--format\n"), std::string::npos);
  EXPECT_EQ(bash_complete(dir, "tfrig doctor --format p"), "prometheus\n");
  EXPECT_EQ(bash_complete(dir, "tfrig import nv"), "nvidia-smi-xml\n");
  // A global option after a command (CLI11 lets them fall through), and no hidden command.
  EXPECT_NE(bash_complete(dir, "tfrig plan --ro").find("--root\n"), std::string::npos);
  EXPECT_EQ(bash_complete(dir, "tfrig ma"), "");
}

TEST(Completion, ZshAndFishScriptsParse) {
  test::TempDir dir;
  const std::string zsh = script("zsh");
  const std::string fish = script("fish");
  EXPECT_EQ(zsh.rfind("#compdef tfrig\n", 0), 0u);
  EXPECT_NE(fish.find("complete -c tfrig -n '__fish_use_subcommand' -a doctor -d "), std::string::npos);
  EXPECT_NE(fish.find("-l format -x -a 'text json prometheus html'"), std::string::npos);
  test::write_file(dir.file("_tfrig"), zsh);
  test::write_file(dir.file("tfrig.fish"), fish);
  if (have("zsh")) {
    EXPECT_EQ(run_shell_status("zsh -n " + dir.file("_tfrig")), 0);
  }
  if (have("fish")) {
    EXPECT_EQ(run_shell_status("fish -n " + dir.file("tfrig.fish")), 0);
  }
}

TEST(Completion, UnknownShellIsAUsageError) {
  auto r = test::run_tfrig({"completion", "tcsh"});
  EXPECT_EQ(r.exit_code, 64);
  EXPECT_NE(r.err.find("tcsh"), std::string::npos) << r.err;
}

TEST(ManPages, OnePerCommandEveryOptionNamed) {
  test::TempDir dir;
  test::RunOptions epoch;
  epoch.env = {"SOURCE_DATE_EPOCH=1796515200"};  // 2026-12-06
  auto r = test::run_tfrig({"--lang", "en", "man", "-o", dir.file("man")}, epoch);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto help = test::run_tfrig({"--lang", "en", "--help"});
  std::set<std::string> pages;
  for (const auto& f : std::filesystem::directory_iterator(dir.file("man"))) pages.insert(f.path().filename().string());
  EXPECT_TRUE(pages.count("tfrig.1"));
  for (const char* command : {"doctor", "plan", "explain", "setup", "bench", "completion"}) {
    EXPECT_TRUE(pages.count(std::string("tfrig-") + command + ".1")) << command;
  }
  EXPECT_FALSE(pages.count("tfrig-man.1")) << "the hidden command has no page";
  const std::string doctor = test::read_file(dir.file("man/tfrig-doctor.1"));
  EXPECT_NE(doctor.find(".TH TFRIG\\-DOCTOR 1 \"December 2026\""), std::string::npos) << doctor.substr(0, 200);
  // Every long option doctor --help lists is in its page (roff writes '-' as '\-').
  const auto doctor_help = test::run_tfrig({"--lang", "en", "doctor", "--help"}).out;
  const std::regex long_option("--[a-z][a-z0-9-]+");
  int named = 0;
  for (auto it = std::sregex_iterator(doctor_help.begin(), doctor_help.end(), long_option); it != std::sregex_iterator(); ++it) {
    const std::string roff_name = test::replace_all(it->str(), "-", "\\-");
    EXPECT_NE(doctor.find(roff_name), std::string::npos) << it->str();
    ++named;
  }
  EXPECT_GT(named, 10);
  if (have("man")) {
    const std::string cmd = "MANWIDTH=100 man --warnings -l " + dir.file("man/tfrig-doctor.1") + " > " + dir.file("page") + " 2> " +
                            dir.file("warnings");
    ASSERT_EQ(run_shell_status(cmd), 0) << test::read_file(dir.file("warnings"));
    EXPECT_EQ(test::read_file(dir.file("warnings")), "");
    const std::string page = test::read_file(dir.file("page"));
    EXPECT_NE(page.find("--format"), std::string::npos) << page;
    EXPECT_NE(page.find("prometheus"), std::string::npos);
  }
}

TEST(ManPages, RoffControlsInTextAreEscaped) {
  cli::CommandDoc root;
  root.name = "tfrig";
  root.help = ".so /etc/passwd";  // a line that would be a request
  cli::CommandDoc sub;
  sub.name = "x";
  sub.help = "back\\slash";
  sub.options.push_back({{"--y"}, true, "FILE", {}, "'quote first"});
  root.subcommands.push_back(sub);
  const auto pages = cli::man_pages(root, "1", "May 2026");
  ASSERT_EQ(pages.size(), 2u);
  EXPECT_NE(pages[0].text.find("tfrig \\- \\&.so /etc/passwd"), std::string::npos);
  EXPECT_EQ(pages[0].text.find("\n.so"), std::string::npos);
  EXPECT_NE(pages[1].text.find("back\\eslash"), std::string::npos);
  EXPECT_NE(pages[1].text.find("\n\\&'quote first"), std::string::npos);
}

TEST(CliDocs, HiddenOptionsStayHiddenAndChoicesAreRead) {
  CLI::App app{"demo", "demo"};
  std::string format, secret;
  app.add_option("--format", format, "Output format")->check(CLI::IsMember({"text", "json"}));
  app.add_option("--secret", secret, "not shown")->group("");
  const auto d = cli::describe_cli(app);
  std::set<std::string> names;
  for (const auto& o : d.options) names.insert(o.names.back());
  EXPECT_TRUE(names.count("--format"));
  EXPECT_FALSE(names.count("--secret"));
  for (const auto& o : d.options) {
    if (o.names.back() == "--format") {
      EXPECT_EQ(o.choices, (std::vector<std::string>{"text", "json"}));
    }
  }
}

}  // namespace
}  // namespace tfrig

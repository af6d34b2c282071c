// src/setup/quote.h: each quoting function and each place the lexers find,
// checked by the real readers: bash prints the value back, python3 and PyYAML
// load it back, and a comment stays one line.
#include <sys/wait.h>

#include <cstdlib>

#include <gtest/gtest.h>

#include "setup/quote.h"
#include "setup_test_support.h"
#include "test_support.h"

namespace tfrig::setup::test {
namespace {

using quote::Lang;

// What the interpreter prints back for `program` (written to a file, run with `runner`).
std::string run(const std::string& runner, const std::string& program) {
  tfrig::test::TempDir tmp;
  tfrig::test::write_file(tmp.file("prog"), program);
  const int rc = sh(runner + " '" + tmp.file("prog") + "' >'" + tmp.file("out") + "' 2>&1");
  return std::to_string(rc) + ":" + tfrig::test::read_file(tmp.file("out"));
}

const std::vector<std::string>& values() {
  static const std::vector<std::string> kValues = {
      "plain", "two words", "it's", "say \"hi\"", "$(touch x)", "`id`", "a\\", "${IFS}", "x; y", "#hash", "\"\"\"", "'''",
      "-rf", "", "a: b # c", "tab\there"};
  return kValues;
}

TEST(SetupQuote, OneLineEscapesControlsAndInvalidUtf8) {
  EXPECT_EQ(quote::one_line("a\nb\rc\x1b]0;t\x07"), "a\\x0ab\\x0dc\\x1b]0;t\\x07");
  EXPECT_EQ(quote::one_line(std::string("a\0b", 3)), "a\\x00b");
  EXPECT_EQ(quote::one_line("\xff\xc0\xaf"), "\\xff\\xc0\\xaf");
  EXPECT_EQ(quote::one_line("A\u2028B\u202eC\u0085"), "A\\u2028B\\u202eC\\u0085");
  EXPECT_EQ(quote::one_line("NVIDIA A100 \u00e9\u4e2d"), "NVIDIA A100 \u00e9\u4e2d");
  EXPECT_EQ(quote::comment("C:\\"), "C:\\x5c");
}

TEST(SetupQuote, BashReadsEveryShellPlaceBackAsTheValue) {
  std::string program, expected;
  for (const auto& v : values()) {
    const std::string one = quote::one_line(v);
    program += "printf '%s|' " + quote::sh_word(v) + "\n";
    program += "printf '%s|' \"" + quote::sh_in_double(v) + "\"\n";
    program += "printf '%s|' '" + quote::sh_in_single(v) + "'\n";
    program += "# " + quote::comment(v) + "\n";
    expected += one + "|" + one + "|" + one + "|";
  }
  EXPECT_EQ(run("bash", program), "0:" + expected);
}

TEST(SetupQuote, PythonReadsEveryPythonPlaceBackAsTheValue) {
  std::string program = "import sys\nout = []\n", expected;
  for (const auto& v : values()) {
    const std::string one = quote::one_line(v);
    program += "out.append(" + quote::py_literal(v) + ")\n";
    program += "out.append(\"" + quote::py_in_double(v) + "\")\n";
    program += "out.append('" + quote::py_in_single(v) + "')\n";
    program += "out.append(\"\"\"" + quote::py_in_double(v) + "\"\"\")\n";
    program += "# " + quote::comment(v) + "\n";
    expected += one + "|" + one + "|" + one + "|" + one + "|";
  }
  program += "sys.stdout.write(''.join(x + '|' for x in out))\n";
  EXPECT_EQ(run(tfrig::test::python3(), program), "0:" + expected);
  EXPECT_EQ(quote::py_code("12"), "12");
  EXPECT_EQ(quote::py_code("None"), "None");
  EXPECT_EQ(quote::py_code("1); import os #"), "\"1); import os #\"");
}

TEST(SetupQuote, YamlReadsEveryYamlPlaceBackAsTheValue) {
  if (sh(tfrig::test::python3() + " -c 'import yaml' 2>/dev/null") != 0) GTEST_SKIP() << "python3-yaml is not installed";
  std::string yaml = "# values\nitems:\n";
  for (const auto& v : values()) {
    yaml += "  - " + quote::yaml_scalar(v) + "  # " + quote::comment(v) + "\n";
    yaml += "  - \"" + quote::yaml_in_double(v) + "\"\n";
    yaml += "  - '" + quote::yaml_in_single(v) + "'\n";
  }
  tfrig::test::TempDir tmp;
  tfrig::test::write_file(tmp.file("v.yaml"), yaml);
  std::string expected;
  for (const auto& v : values()) {
    for (int i = 0; i < 3; ++i) expected += quote::one_line(v) + "|";
  }
  EXPECT_EQ(run(tfrig::test::python3(), "import yaml,sys\nd = yaml.safe_load(open('" + tmp.file("v.yaml") +
                               "'))\nsys.stdout.write(''.join(str(x) + '|' for x in d['items']))\n"),
            "0:" + expected);
}

TEST(SetupQuote, FillQuotesForThePlaceInTheTemplate) {
  const quote::Values v{{"V", "a'b \"c\" $(d)\ne"}};
  EXPECT_EQ(quote::fill("# @V@\necho @V@ \"@V@\" '@V@'\n", v, Lang::kShell),
            "# a'b \"c\" $(d)\\x0ae\necho 'a'\\''b \"c\" $(d)\\x0ae' \"a'b \\\"c\\\" \\$(d)\\\\x0ae\" 'a'\\''b \"c\" $(d)\\x0ae'\n");
  // Inside $( ) within "...": a word again.
  EXPECT_EQ(quote::fill("x=\"$(f @V@)\"\n", {{"V", "a b"}}, Lang::kShell), "x=\"$(f 'a b')\"\n");
  // A quoted here-document is literal: one line, nothing escaped.
  EXPECT_EQ(quote::fill("cat <<'E'\n@V@\nE\necho @V@\n", {{"V", "$x y"}}, Lang::kShell), "cat <<'E'\n$x y\nE\necho '$x y'\n");
  EXPECT_EQ(quote::fill("\"\"\"doc @V@\"\"\"\nX = @V@\n# @V@\n", {{"V", "\"\"\"x"}}, Lang::kPython),
            "\"\"\"doc \\\"\\\"\\\"x\"\"\"\nX = \"\\\"\\\"\\\"x\"\n# \"\"\"x\n");
  EXPECT_EQ(quote::fill("k: @V@\ni: \"@V@\"\n# @V@\n", {{"V", "a: b"}}, Lang::kYaml), "k: \"a: b\"\ni: \"a: b\"\n# a: b\n");
  EXPECT_EQ(quote::fill("# @V@\nK=@V@\n", {{"V", "x y\nZ=1"}}, Lang::kEnv), "# x y\\x0aZ=1\nK=x_y_x0aZ=1\n");
  EXPECT_EQ(quote::fill("ARG A=@V@\n", {{"V", "x $y"}}, Lang::kDockerfile), "ARG A=\"x \\$y\"\n");
  EXPECT_EQ(quote::fill("[\"@V@\"]\n", {{"V", "\"]"}}, Lang::kJson), "[\"\\\"]\"]\n");
  // One pass: a value holding another field's name stays as it is.
  EXPECT_EQ(quote::fill("@A@ @B@\n", {{"A", "@B@"}, {"B", "b"}}, Lang::kConf), "@B@ b\n");
}

}  // namespace
}  // namespace tfrig::setup::test

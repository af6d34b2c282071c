// UTF-16 captures (Windows PowerShell's `nvidia-smi -q > file`) read like
// their UTF-8 originals.
#include <gtest/gtest.h>

#include <string>

#include "importer/importer.h"
#include "importer/text_encoding.h"
#include "test_support.h"

namespace tfrig::importer {
namespace {

// What PowerShell 5's `>` writes: BOM FF FE, UTF-16LE, CRLF line ends.
std::string as_powershell_writes(const std::string& utf8_ascii) {
  std::string out = "\xFF\xFE";
  for (char c : utf8_ascii) {
    if (c == '\n') out += std::string("\r\0", 2);
    out += c;
    out += '\0';
  }
  return out;
}

TEST(Utf16, ByteOrderMarksAndSurrogates) {
  EXPECT_EQ(*utf16_to_utf8(std::string("\xFF\xFE" "A\0\r\0\n\0B\0", 10)), "A\nB");
  EXPECT_EQ(*utf16_to_utf8(std::string("\xFE\xFF\0A\0B", 6)), "AB");
  // U+1F600 as a surrogate pair; an unpaired high surrogate; an odd last byte.
  EXPECT_EQ(*utf16_to_utf8(std::string("\xFF\xFE\x3D\xD8\x00\xDE", 6)), "\xF0\x9F\x98\x80");
  EXPECT_EQ(*utf16_to_utf8(std::string("\xFF\xFE\x3D\xD8" "A\0", 6)), "\xEF\xBF\xBD" "A");
  EXPECT_EQ(*utf16_to_utf8(std::string("\xFF\xFE" "A\0B", 5)), "A");
  // Chinese text (as a zh_CN Windows writes it) keeps its characters.
  EXPECT_EQ(*utf16_to_utf8(std::string("\xFF\xFE\x3E\x66\x58\x5B", 6)), "\xE6\x98\xBE\xE5\xAD\x98");  // 显存
}

TEST(Utf16, WithoutABomOnlyWholeAsciiSamples) {
  std::string le;
  for (char c : std::string("==============NVSMI LOG==============\n")) le += std::string{c, '\0'};
  EXPECT_EQ(*utf16_to_utf8(le), "==============NVSMI LOG==============\n");
  EXPECT_FALSE(utf16_to_utf8("==============NVSMI LOG==============\n"));  // UTF-8 stays as it is
  EXPECT_FALSE(utf16_to_utf8(std::string("\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03", 10)));  // gzip
  EXPECT_FALSE(utf16_to_utf8(std::string("A\0B\0", 4)));  // too short to tell
}

TEST(Utf16, PowerShellQueryTextImportsLikeTheOriginal) {
  const std::string rel = "nvidia-smi-text/Bekal-Ramnath-Rao__MasterThesis_HybridCommFramework_FL.nvidia-smi-q.txt";
  const std::string original = test::read_file(test::data_dir() + "/" + rel);
  auto a = import_inputs({Input{"utf8.txt", original}});
  auto b = import_inputs({Input{"utf16.txt", as_powershell_writes(original)}});
  ASSERT_TRUE(a) << a.error().to_string();
  ASSERT_TRUE(b) << b.error().to_string();
  ASSERT_FALSE(a->inventory.gpus.empty());
  ASSERT_EQ(a->inventory.gpus.size(), b->inventory.gpus.size());
  for (size_t i = 0; i < a->inventory.gpus.size(); ++i) {
    EXPECT_EQ(a->inventory.gpus[i].name, b->inventory.gpus[i].name);
    EXPECT_EQ(a->inventory.gpus[i].pci_bus_id, b->inventory.gpus[i].pci_bus_id);
    EXPECT_EQ(a->inventory.gpus[i].memory_total_bytes, b->inventory.gpus[i].memory_total_bytes);
  }
  EXPECT_EQ(a->inventory.driver.version, b->inventory.driver.version);
}

}  // namespace
}  // namespace tfrig::importer

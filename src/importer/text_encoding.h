// Text that is not UTF-8 as people send it: `nvidia-smi -q > file` in Windows
// PowerShell 5 writes UTF-16LE with a byte-order mark and CRLF line ends
// (its `>` is Out-File, whose default encoding is "Unicode", i.e. UTF-16LE:
// https://learn.microsoft.com/powershell/module/microsoft.powershell.core/about/about_character_encoding).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace tfrig::importer {

// When the bytes are UTF-16 (a BOM FF FE or FE FF, or without one, ASCII
// text with every other byte zero in its first 64 bytes), their UTF-8 text
// with CRLF turned into LF; nullopt for anything else. Unpaired surrogates
// become U+FFFD; an odd last byte is dropped.
std::optional<std::string> utf16_to_utf8(std::string_view bytes);

}  // namespace tfrig::importer

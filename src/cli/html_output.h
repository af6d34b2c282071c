// --format html of every command that has a JSON output: the same document,
// rendered as one self-contained page (src/report/html_pages.h) and written
// like the other formats ("-" = stdout; a file atomically).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "report/html_pages.h"

namespace tfrig::cli {

// Returns the exit code of the write (kExitOk, or kExitCantCreate logged).
int write_html_page(report::html::PageKind kind, nlohmann::json data, const std::string& label,
                    const std::string& output);

}  // namespace tfrig::cli

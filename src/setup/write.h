// tfrig setup, the writer: the rendered files into DIR, each by an atomic
// write (temp name + rename). A DIR that exists and holds anything is refused
// unless `force`: then tfrig's files are replaced and any other file is left.
#pragma once

#include <string>
#include <vector>

#include "core/result.h"
#include "setup/render.h"

namespace tfrig::setup {

core::Status write_outputs(const std::string& dir, const std::vector<OutputFile>& files, bool force);

}  // namespace tfrig::setup

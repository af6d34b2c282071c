// `tfrig explain -- CMD ARGS`: runs the command with its stdout and stderr on
// pipes, passes every byte through to ours as it arrives, and hands the
// bytes of each stream to its own line splitter (so a line is never cut by
// the other stream's output).
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace tfrig::explain {

struct CommandOutcome {
  int exit_code = 0;  // the command's exit status; 128+N when killed by signal N
};

// on_stdout/on_stderr receive the bytes as read. pass_through_fd: where each
// stream is copied (1 and 2; -1 to not copy). Errors: the command could not be started.
core::Result<CommandOutcome> run_command(const std::vector<std::string>& argv,
                                         const std::function<void(std::string_view)>& on_stdout,
                                         const std::function<void(std::string_view)>& on_stderr, int stdout_copy_fd = 1,
                                         int stderr_copy_fd = 2);

}  // namespace tfrig::explain

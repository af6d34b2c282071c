// The helpers every command shares (cli/command.h): the failure of a step and
// the colour decision.
#include "cli/command.h"

#include <unistd.h>

#include <cstdlib>

#include "core/log.h"

namespace tfrig::cli {

int failure(const core::Error& error, int code) {
  core::log(core::LogLevel::kError, "{}", core::describe(error));
  return code;
}

int failure(const core::Error& error) { return failure(error, exit_code_for(error)); }

int failure(int code, std::string_view text) {
  core::log(core::LogLevel::kError, "{}", text);
  return code;
}

void failure(RunState& state, const core::Error& error) { state.exit_code = failure(error); }

void failure(RunState& state, const core::Error& error, int code) { state.exit_code = failure(error, code); }

void failure(RunState& state, int code, std::string_view text) { state.exit_code = failure(code, text); }

bool use_color(std::string_view mode, int fd) {
  if (mode == "always") return true;
  if (mode == "never") return false;
  const char* no_color = std::getenv("NO_COLOR");  // https://no-color.org: any non-empty value
  if (no_color != nullptr && no_color[0] != '\0') return false;
  return ::isatty(fd) == 1;
}

}  // namespace tfrig::cli

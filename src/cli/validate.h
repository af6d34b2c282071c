// Option values checked when they are read, so a bad value is exit 64
// naming the option instead of a silent default or a nonsense result.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "core/message.h"

#include "core/result.h"
#include "knowledge/knowledge.h"

namespace tfrig::cli {

// Why an option's value was refused, as tfrig knows it: the option, the value
// and the reason as a message (in the reader's language when rendered). CLI11
// builds its ValidationError's text in English; the usage error a reader of
// another language sees is this message instead, never that text read back.
struct RefusedValue {
  std::string option;  // "--fail-on", or a positional's name
  std::string value;
  core::Message message;  // the whole sentence, naming the option and the value
};

// Wraps every validator of every option of app and its commands (call once,
// after every command is added): a value refused records a RefusedValue. The
// validator's own answer to CLI11 is unchanged (English help and errors are
// CLI11's own text).
void record_refusals(CLI::App& app);
// The last value a validator refused in this thread, if any.
const std::optional<RefusedValue>& last_refused_value();

// One of a fixed set of words: CLI::IsMember's check and text, and the
// choices as data for the reader's message.
CLI::Validator one_of(std::vector<std::string> choices);

// A number in [lo, hi]: CLI::Range's check and text (help shows the type
// alone), and the bounds as data for the reader's message.
CLI::Validator in_range_validator(CLI::Validator range, std::string lo, std::string hi);
template <class T>
CLI::Validator in_range(T lo, T hi) {
  return in_range_validator(CLI::Range(lo, hi), fmt::format("{}", lo), fmt::format("{}", hi));
}

// A number in [lo, hi]; NaN and infinities are refused (CLI::Range lets NaN through).
CLI::Validator finite_in(double lo, double hi);

// A whole number 0 or more for an unsigned option: CLI11 reads "-1" into an
// unsigned variable as its largest value, and CLI::Range then lets it pass.
CLI::Validator whole_number();

// A whole number in [lo, hi], written in digits only: "", "-1", "1e3" and a
// number past 2^64 are exit 64 naming the option (CLI11 alone reads "" as 0,
// "-1" into an unsigned as its largest value, and a huge one as a fault).
CLI::Validator whole_in(uint64_t lo, uint64_t hi);

// A size such as 110k or 2MB (core::parse_size), more than 0; "" is refused.
CLI::Validator size_text(const std::string& example);

// A version number ("12.2", "535.104.05"): text that is none is exit 64
// naming the option, not a "no" verdict about it. `example` goes in the message.
CLI::Validator version_text(const std::string& example);

// A TensorFlow version the knowledge base has a build for; the error
// (kInvalidArgument, where = option) names the known range.
core::Status known_tf_version(const knowledge::Knowledge& k, const std::string& option, const std::string& value);

// The first word of the command line that is not an option, when it names
// no command: "unknown command 'doctr'; did you mean 'doctor'?" (the
// nearest name within two edits), else nullopt. CLI11 alone says only
// "The following arguments were not expected".
std::optional<std::string> unknown_command_message(const CLI::App& app, int argc, const char* const* argv);

// Edits (insert, delete, replace a byte) between two words: the "did you mean" of commands and options.
size_t edit_distance(std::string_view a, std::string_view b);

}  // namespace tfrig::cli

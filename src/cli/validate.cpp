#include "cli/validate.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <functional>
#include <optional>
#include <string_view>
#include <vector>

#include "core/escape.h"
#include "core/i18n.h"
#include "core/text.h"
#include "core/units.h"
#include "core/version.h"

namespace tfrig::cli {

namespace {

// Set by tfrig's validators when they refuse a value: the message, given the
// option's name (a validator does not know which option it checks).
using Refusal = std::function<core::Message(const std::string& option)>;
thread_local Refusal pending_refusal;
thread_local std::optional<RefusedValue> refused;

void for_each_option(CLI::App& app, const std::function<void(CLI::Option&)>& fn) {
  for (CLI::Option* opt : app.get_options()) fn(*opt);
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) for_each_option(*sub, fn);
}

}  // namespace

void record_refusals(CLI::App& app) {
  for_each_option(app, [](CLI::Option& opt) {
    const std::string name = opt.get_name();
    for (int i = 0;; ++i) {
      CLI::Validator* v = nullptr;
      try {
        v = opt.get_validator(i);
      } catch (const CLI::OptionNotFound&) {
        break;
      }
      const CLI::Validator inner = *v;
      v->operation([inner, name](std::string& value) {
        const std::string given = value;
        pending_refusal = nullptr;
        std::string why = inner(value);
        if (!why.empty()) {
          // A validator of CLI11's own (none is used today) has only its English text: quoted as it is.
          core::Message message =
              // TRANSLATORS: {0} is an option, {1} why its value was refused.
              pending_refusal ? pending_refusal(name) : core::Message(N_("option {0}: {1}"), name, why);
          refused = RefusedValue{name, given, std::move(message)};
        }
        pending_refusal = nullptr;
        return why;
      });
    }
  });
}

const std::optional<RefusedValue>& last_refused_value() { return refused; }

CLI::Validator one_of(std::vector<std::string> choices) {
  const CLI::Validator member = CLI::IsMember(choices);
  CLI::Validator v = member;
  std::string listed;
  for (const auto& c : choices) listed += (listed.empty() ? "" : ", ") + c;
  v.operation([member, listed](std::string& text) {
    const std::string given = text;
    std::string why = member(text);
    if (!why.empty()) {
      pending_refusal = [given, listed](const std::string& option) {
        return core::Message(N_("option {0}: '{1}' is not one of {2}"), option, given, listed);
      };
    }
    return why;
  });
  return v;
}

CLI::Validator in_range_validator(CLI::Validator range, std::string lo, std::string hi) {
  // Its description stays CLI11's (CLI11's own English errors quote it: "--gpus:
  // 1 required INT:INT in [1 - 100000] missing"); the help leaves it out.
  CLI::Validator v = range;
  v.operation([range, lo, hi](std::string& text) {
    const std::string given = text;
    std::string why = range(text);
    if (!why.empty()) {
      pending_refusal = [given, lo, hi](const std::string& option) {
        return core::Message(N_("option {0}: '{1}' is not a number from {2} to {3}"), option, given, lo, hi);
      };
    }
    return why;
  });
  return v;
}

namespace {

// tfrig's own validators: the reason as a message, rendered in the reader's
// language for CLI11's text ("NAME: reason"), and kept for the usage error.
std::string refuse(core::Message why) {
  pending_refusal = [why](const std::string& option) { return core::Message(N_("option {0}: {1}"), option, why); };
  return core::render(why, core::i18n::language());
}

}  // namespace

CLI::Validator finite_in(double lo, double hi) {
  return CLI::Validator(
      [lo, hi](std::string& text) -> std::string {
        auto v = core::parse_double(text);
        if (!v || !std::isfinite(*v) || *v < lo || *v > hi) {
          return refuse(core::Message(N_("value '{}' is not a number from {} to {}"), text, lo, hi));
        }
        return {};
      },
      "");  // help's type column shows the type alone (the error message gives the range)
}

CLI::Validator whole_number() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos) {
          return refuse(core::Message(N_("value '{}' is not a whole number 0 or more"), text));
        }
        return {};
      },
      "");
}

CLI::Validator whole_in(uint64_t lo, uint64_t hi) {
  return CLI::Validator(
      [lo, hi](std::string& text) -> std::string {
        uint64_t v = 0;
        const char* end = text.data() + text.size();
        const bool digits = !text.empty() && text.find_first_not_of("0123456789") == std::string::npos;
        const auto parsed = digits ? std::from_chars(text.data(), end, v)
                                   : std::from_chars_result{text.data(), std::errc::invalid_argument};
        if (parsed.ec != std::errc() || parsed.ptr != end || v < lo || v > hi) {
          return refuse(
              core::Message(N_("value '{}' is not a whole number from {} to {}"), core::escape_bytes(text), lo, hi));
        }
        return {};
      },
      "");
}

CLI::Validator size_text(const std::string& example) {
  return CLI::Validator(
      [example](std::string& text) -> std::string {
        auto v = core::parse_size(text);
        if (!v || *v == 0)
          return refuse(core::Message(N_("value '{}' is not a size such as {}"), core::escape_bytes(text), example));
        return {};
      },
      "");
}

CLI::Validator version_text(const std::string& example) {
  return CLI::Validator(
      [example](std::string& text) -> std::string {
        if (!core::Version::parse(text))
          return refuse(core::Message(N_("'{}' is not a version; expected numbers such as {}"), text, example));
        return {};
      },
      "");
}

core::Status known_tf_version(const knowledge::Knowledge& k, const std::string& option, const std::string& value) {
  std::string oldest, newest;
  std::optional<core::Version> lo, hi;
  for (const auto& b : k.tf_builds()) {
    auto v = core::Version::parse(b.tf);
    if (!v) continue;
    if (!lo || *v < *lo) {
      lo = v;
      oldest = b.tf;
    }
    if (!hi || *hi < *v) {
      hi = v;
      newest = b.tf;
    }
  }
  const std::string known = lo ? trf("tfrig knows TensorFlow {} to {}", oldest, newest) : _("tfrig knows none");
  auto v = core::Version::parse(value);
  if (!v) {
    return core::fail(core::ErrorCode::kInvalidArgument, option,
                      trf("'{}' is not a version; expected MAJOR.MINOR[.PATCH] such as {} ({})", value,
                          newest.empty() ? "2.16" : newest, known));
  }
  if (k.find_tf_build(*v) == nullptr) {
    return core::fail(
        core::ErrorCode::kInvalidArgument, option,
        trf("TensorFlow {} is not in tfrig's knowledge ({}; --knowledge DIR adds newer facts)", value, known));
  }
  return {};
}

// Levenshtein distance: insertions, deletions and substitutions of one byte.
size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = up;
    }
  }
  return row[b.size()];
}

std::optional<std::string> unknown_command_message(const CLI::App& app, int argc, const char* const* argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg(argv[i]);
    if (arg == "--") return std::nullopt;
    if (!arg.empty() && arg.front() == '-') {
      // Global options that take a value in the next word.
      if (arg == "--root" || arg == "--knowledge" || arg == "--lang") ++i;
      continue;
    }
    std::string best;
    size_t best_distance = 3;
    for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
      if (sub->get_name() == arg) return std::nullopt;
      const size_t d = edit_distance(arg, sub->get_name());
      if (d < best_distance) {
        best_distance = d;
        best = sub->get_name();
      }
    }
    if (!best.empty()) {
      return trf("unknown command '{0}'; did you mean '{1}'? ('tfrig --help' lists the commands)",
                 core::escape_bytes(std::string(arg)), best);
    }
    return trf("unknown command '{}' ('tfrig --help' lists the commands)", core::escape_bytes(std::string(arg)));
  }
  return std::nullopt;
}

}  // namespace tfrig::cli

#include "cli/inventory_source.h"

#include <cstdint>

#include "cli/command.h"
#include "cli/validate.h"
#include "core/atomic_file.h"
#include "core/i18n.h"
#include "core/log.h"
#include "core/output.h"
#include "core/text.h"
#include "core/units.h"

namespace tfrig::cli {

namespace {

// A SIZE ("64MiB", "1GiB", "4096") bound to target; 0 or no size is refused at parse time (exit 64).
void add_size_option(CLI::App& cmd, const std::string& name, uint64_t& target, const std::string& help) {
  cmd.add_option_function<std::string>(
         name, [&target](const std::string& text) { target = core::parse_size(core::trim(text)).value_or(target); },
         help)
      ->type_name("SIZE")
      ->check(CLI::Validator(
          [](std::string& text) -> std::string {
            auto v = core::parse_size(core::trim(text));
            return v && *v > 0 ? std::string() : _("expected a size above 0, such as 64MiB or 1GiB");
          },
          ""));  // help's type column shows type_name alone
}

}  // namespace

void add_capture_limit_options(CLI::App& cmd, capture::Limits& limits) {
  add_size_option(cmd, "--max-capture-bytes", limits.max_bytes,
                  _("Refuse a capture that inflates to more than SIZE (default 256MiB)"));
  add_size_option(cmd, "--max-capture-entry-bytes", limits.max_entry_bytes,
                  _("Refuse a capture with a file larger than SIZE (default 16MiB)"));
  cmd.add_option("--max-capture-entries", limits.max_entries,
                 _("Refuse a capture with more than N entries (default 50000)"))
      ->type_name("N")
      ->check(in_range(uint64_t{1}, uint64_t{100'000'000}));
  cmd.add_option("--max-capture-ratio", limits.max_ratio,
                 _("Refuse a capture that inflates to more than N times its gzip size (default 200)"))
      ->type_name("N")
      ->check(in_range(uint64_t{1}, uint64_t{1'000'000}));
}

void add_probe_options(CLI::App& cmd, gather::InventorySourceOptions& options) {
  cmd.add_option("--data", options.data_paths, _("Where the training data lives"))->type_name("DIR");
  cmd.add_option("--python", options.python_prefixes, _("Also look for TensorFlow in this Python prefix"))
      ->type_name("PREFIX");
  cmd.add_option("--deadline", options.deadline_seconds, _("Seconds each probe may take"))->default_str("5");
}

int write_report_json(const report::Report& report, const std::string& output) {
  return write_output(gather::report_json_text(report), output);
}

int write_output(const std::string& text, const std::string& output) {
  if (output == "-") {
    (void)core::write_stdout(text);
    return kExitOk;
  }
  if (auto written = core::write_output(output, text); !written) {
    // TRANSLATORS: {} is "PATH: what went wrong".
    return failure(kExitCantCreate, trf("cannot write {}", core::describe(written.error())));
  }
  if (output != "-")
    core::log(core::LogLevel::kInfo, "{}",
              trnf("wrote {0} ({1} byte)", "wrote {0} ({1} bytes)", text.size(), output, text.size()));
  return kExitOk;
}

}  // namespace tfrig::cli

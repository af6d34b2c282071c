// tfrig metrics: the Prometheus metrics doctor --format prometheus writes
// (--markdown prints docs/metrics.md, generated from the same table).
#include <unistd.h>

#include <cstdio>

#include <fmt/format.h>

#include "cli/command.h"
#include "core/i18n.h"
#include "core/output.h"
#include "core/table.h"
#include "core/text_width.h"
#include "report/prometheus.h"

namespace tfrig::cli {

void add_metrics_command(CLI::App& app, RunState& state) {
  auto markdown = std::make_shared<bool>(false);
  CLI::App* cmd = app.add_subcommand(
      "metrics", _("List the Prometheus metrics of 'doctor --format prometheus' (--markdown: docs/metrics.md)"));
  cmd->add_flag("--markdown", *markdown, _("Print docs/metrics.md"));
  cmd->callback([markdown, &state] {
    std::string out;
    if (*markdown) {
      // docs/metrics.md is a generated English document (docs/i18n.md): its
      // texts are the metric table's English, built with no translation.
      out = report::prometheus_metrics_markdown();
    } else {
      core::Table t({C_("metrics table", "metric"), C_("metrics table", "type"), C_("metrics table", "labels")});
      for (const auto& m : report::prometheus_metrics()) {
        std::string labels;
        for (const auto& l : m.labels) labels += (labels.empty() ? "" : ",") + std::string(l);
        t.add_row({std::string(m.name), std::string(report::metric_type_name(m.type)), labels});
      }
      const size_t n = report::prometheus_metrics().size();
      out = t.render("", core::text_width(STDOUT_FILENO)) + "\n" +
            trnf("{} metric; docs/metrics.md says what each means.",
                 "{} metrics; docs/metrics.md says what each means.", n, n) +
            "\n";
    }
    static_cast<void>(core::write_stdout(out));  // a failed write: main exits 73 with its errno
    state.exit_code = kExitOk;
  });
}

}  // namespace tfrig::cli

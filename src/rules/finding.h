// A finding: what one rule says about one entity of the machine, with the
// evidence it rests on and the exact fix. The JSON contract (docs/rules.md):
// {rule_id, severity, area, entity, title, message, evidence, fix}.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tfrig::rules {

enum class Severity { kInfo = 0, kWarning = 1, kError = 2 };

std::string_view severity_name(Severity s);  // "info", "warning", "error"
std::optional<Severity> severity_from_name(std::string_view name);

// One fact a finding rests on: what, its value here, and where it came from
// (a file read on this machine, or a knowledge source id).
struct Evidence {
  std::string fact;
  std::string value;
  std::string source;
};

struct Finding {
  std::string rule_id;
  Severity severity = Severity::kWarning;
  std::string area;
  std::string entity;  // "host", "gpu0", "nvme0n1", "libcudnn.so.9"
  std::string title;
  std::string message;
  std::vector<Evidence> evidence;
  std::string fix;  // the command or file edit, exact
  std::vector<std::string> references;
};

struct Summary {
  int errors = 0;
  int warnings = 0;
  int infos = 0;
  Severity worst() const { return errors ? Severity::kError : warnings ? Severity::kWarning : Severity::kInfo; }
  int total() const { return errors + warnings + infos; }
};

Summary summarize(const std::vector<Finding>& findings);

}  // namespace tfrig::rules

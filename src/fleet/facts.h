// The facts `tfrig fleet` compares across nodes: each one should be the same
// on every node of a fleet that runs one training stack, and a node where it
// is not is a quiet failure waiting to happen (docs/fleet.md lists them).
//
// A fact is read from one report into a short text value (and a number where
// values are compared with a tolerance). Unknown stays absent: a node whose
// snapshot does not say (an older schema, a probe that did not run, a GPU it
// does not have) is left out of that fact's comparison, never counted as
// different.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "verdict/report.h"
#include "verdict/finding.h"

namespace tfrig::fleet {

// One kind of fact: its id, what people call it, and how to bring a node
// back in line ({expected} is the fleet's value, {scope} the GPU, library or
// environment it is about).
struct FactKind {
  std::string_view id;     // "driver.version"
  std::string_view title;  // "NVIDIA driver"
  std::string_view fix;    // "install NVIDIA driver {expected} ..."
  // Values within this fraction of each other are the same (0: exact text).
  double tolerance = 0;
};

// Every kind, in report order.
const std::vector<FactKind>& fact_kinds();
const FactKind* find_fact_kind(std::string_view id);

struct Fact {
  std::string kind;   // a FactKind id
  std::string scope;  // "gpu1", "cudnn", "/venv"; empty for a host-wide fact
  std::string value;  // in English, compared as it is: "535.113.01", "gen4 x16", "251.5 GiB", "unlimited / unlimited"
  std::optional<double> number;  // for kinds with a tolerance
  // The value's words ("unlimited", "none", "2 nodes: ..."), rendered in each
  // output's language; null (most facts: versions, names) shows value as it is.
  std::shared_ptr<const core::Message> value_message = nullptr;
  // "gpu.pcie_link[gpu1]", or the kind alone when there is no scope.
  std::string id() const { return scope.empty() ? kind : kind + "[" + scope + "]"; }
};

// The known facts of one report, sorted by id.
std::vector<Fact> extract_facts(const report::Report& report);

// A value in a language: its message rendered, else the value as it is.
std::string fact_value_in(const std::string& value, const std::shared_ptr<const core::Message>& message,
                          std::string_view language);

// The fix of a kind in a language ("en", "zh_CN") with its placeholders filled.
std::string fact_fix(const FactKind& kind, const std::string& scope, const std::string& expected,
                     std::string_view language);

}  // namespace tfrig::fleet

// The report as JSON both ways: the snapshot document (docs/snapshot.md) and
// the findings part doctor adds to it.
#include <fstream>
#include <sstream>

#include "core/i18n.h"
#include "core/try.h"
#include "core/i18n_scope.h"
#include "core/input_file.h"
#include "core/message.h"
#include "core/sysroot.h"
#include "inventory/json.h"
#include "inventory/json_error.h"
#include "verdict/coverage.h"
#include "verdict/report.h"

namespace tfrig::report {

namespace {

nlohmann::json probe_to_json(const probe::ProbeStatus& s) {
  nlohmann::json j{{"id", s.id},
                   {"state", probe::state_name(s.state)},
                   {"detail", s.detail},
                   {"seconds", s.seconds},
                   {"problems", s.problems}};
  // The texts' messages (optional; docs/snapshot.md): a snapshot read back
  // renders them in the reader's language. detail and problems stay English.
  if (s.detail_message) j["detail_message"] = core::message_to_json(*s.detail_message);
  bool any = false;
  for (const auto& m : s.problem_messages) any = any || m.has_value();
  if (any) {
    nlohmann::json list = nlohmann::json::array();
    for (const auto& m : s.problem_messages) list.push_back(m ? core::message_to_json(*m) : nlohmann::json());
    j["problem_messages"] = std::move(list);
  }
  return j;
}

// A message read back from a snapshot, used only when it is one of tfrig's
// and says exactly the English text beside it (that text is the fact; a
// message that disagrees with it, or is not ours, is dropped, not an error).
std::optional<core::Message> message_for(const nlohmann::json& j, const std::string& english) {
  auto m = core::message_from_json(j);
  if (!m || !core::known_message(*m) || core::english(*m) != english) return std::nullopt;
  return m;
}

// The texts rendered in the output's language: English unless --lang (the
// contract, docs/snapshot.md), the page's language when the HTML report is
// drawn from this document (doctor --format html, tfrig report).
nlohmann::json finding_to_json(const rules::Finding& f, std::string_view language) {
  const auto text = [language](const std::string& english, const std::optional<core::Message>& m) {
    return rules::in_language(english, m, language);
  };
  nlohmann::json ev = nlohmann::json::array();
  for (const auto& e : f.evidence) {
    ev.push_back({{"fact", text(e.fact, e.fact_message)},
                  {"value", text(e.value, e.value_message)},
                  {"source", text(e.source, e.source_message)}});
  }
  return nlohmann::json{{"rule_id", f.rule_id},
                        {"severity", rules::severity_name(f.severity)},
                        {"area", f.area},
                        {"entity", f.entity},
                        {"title", text(f.title, f.title_message)},
                        {"message", text(f.message, f.message_message)},
                        {"evidence", ev},
                        {"fix", text(f.fix, f.fix_message)},
                        {"references", f.references}};
}

}  // namespace

nlohmann::json findings_to_json(const Report& report) {
  nlohmann::json list = nlohmann::json::array();
  const std::string language = core::i18n::output_language();
  for (const auto& f : report.findings) list.push_back(finding_to_json(f, language));
  nlohmann::json skipped = nlohmann::json::array();
  for (const auto& [id, missing] : report.skipped)
    skipped.push_back({{"rule_id", id}, {"missing", rules::in_language(missing, language)}});
  const Coverage coverage = coverage_of(report);
  return nlohmann::json{
      {"target", rules::in_language(report.target, language)},
      {"skipped", skipped},
      {"verdict", rules::in_language(report.verdict, language)},
      {"examined", coverage.examined},
      {"not_examined", coverage.not_examined},
      {"findings", list},
      {"summary",
       {{"error", report.summary.errors}, {"warning", report.summary.warnings}, {"info", report.summary.infos}}}};
}

nlohmann::json to_json(const Report& report) {
  nlohmann::json j;
  j["schema_version"] = report.schema_version;
  j["tool_version"] = report.tool_version;
  j["generated_at"] = report.generated_at;
  j["root"] = report.root;
  j["source"] = report.source;
  j["inventory"] = report.inventory;
  nlohmann::json probes = nlohmann::json::array();
  for (const auto& s : report.probes) probes.push_back(probe_to_json(s));
  j["probes"] = std::move(probes);
  if (report.evaluated) j.update(findings_to_json(report));
  return j;
}

core::Result<Report> report_from_json(const nlohmann::json& j) {
  using core::ErrorCode;
  if (!j.is_object()) return core::fail(ErrorCode::kParse, "/", _("expected a JSON object (a tfrig snapshot)"));
  if (!j.contains("schema_version") || !j["schema_version"].is_number_integer()) {
    return core::fail(ErrorCode::kParse, "/schema_version",
                      _("missing; expected an integer (is this a tfrig snapshot?)"));
  }
  // get<int> would wrap 4294967297 to 1, a version this tfrig reads.
  if (const auto v = j["schema_version"].get<int64_t>(); v < 1 || v > 1'000'000) {
    return core::fail(ErrorCode::kParse, "/schema_version",
                      trf("expected a schema version from 1 (this tfrig writes {0}), got {1}",
                          inventory::kSchemaVersion, j["schema_version"].dump()));
  }
  Report r;
  r.schema_version = j["schema_version"].get<int>();
  if (r.schema_version > inventory::kSchemaVersion) {
    return core::fail(ErrorCode::kUnsupported, "/schema_version",
                      trf("snapshot schema {0} is newer than this tfrig reads ({1}); upgrade tfrig", r.schema_version,
                          inventory::kSchemaVersion));
  }
  try {
    r.tool_version = j.value("tool_version", "");
    r.generated_at = j.value("generated_at", "");
    r.root = j.value("root", "");
    r.source = j.value("source", "");
    if (!j.contains("inventory") || !j["inventory"].is_object()) {
      return core::fail(ErrorCode::kParse, "/inventory", _("missing; expected an object"));
    }
    r.inventory = j["inventory"].get<inventory::Inventory>();
    if (j.contains("probes")) {
      if (!j["probes"].is_array()) return core::fail(ErrorCode::kParse, "/probes", _("expected a list"));
      size_t i = 0;
      for (const auto& p : j["probes"]) {
        const std::string where = "/probes/" + std::to_string(i++);
        if (!p.is_object()) return core::fail(ErrorCode::kParse, where, _("expected an object"));
        probe::ProbeStatus s;
        s.id = p.value("id", "");
        auto state = probe::state_from_name(p.value("state", ""));
        if (!state) return core::fail(ErrorCode::kParse, where + "/state", _("expected ok, absent, error or skipped"));
        s.state = *state;
        s.detail = p.value("detail", "");
        s.seconds = p.value("seconds", 0.0);
        if (p.contains("problems")) s.problems = p["problems"].get<std::vector<std::string>>();
        if (p.contains("detail_message")) s.detail_message = message_for(p["detail_message"], s.detail);
        if (p.contains("problem_messages") && p["problem_messages"].is_array()) {
          const auto& list = p["problem_messages"];
          for (size_t k = 0; k < list.size() && k < s.problems.size(); ++k)
            s.problem_messages.push_back(message_for(list[k], s.problems[k]));
        }
        r.probes.push_back(std::move(s));
      }
    }
  } catch (const nlohmann::json::exception& e) {
    // JSON_DIAGNOSTICS puts the JSON path of the bad value in e.what().
    return core::fail(ErrorCode::kParse, "", inventory::json_error_text(e.what()));
  }
  return r;
}

core::Result<Report> load_snapshot(const std::string& path) {
  // A snapshot of a large machine is a few hundred kB; 64 MiB is far above any.
  constexpr size_t kMaxSnapshotBytes = 64u << 20;
  auto text = TFRIG_TRY(core::read_input_file(path, kMaxSnapshotBytes));
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    return core::fail(core::ErrorCode::kParse, path + ": " + trf("byte {}", e.byte),
                      trf("not valid JSON: {}", e.what()));
  } catch (const nlohmann::json::exception& e) {  // out_of_range.406: a number beyond a double (1e400)
    return core::fail(core::ErrorCode::kParse, path, trf("not valid JSON: {}", e.what()));
  }
  auto r = report_from_json(j);
  if (!r) {
    core::Error err = r.error();
    err.where = path + (err.where.empty() ? "" : ": " + err.where);
    return tl::unexpected(err);
  }
  r->source = "snapshot:" + path;
  return r;
}

}  // namespace tfrig::report

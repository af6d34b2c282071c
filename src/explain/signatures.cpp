#include "explain/signatures.h"

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/i18n.h"
#include "report/severity_paint.h"
#include "core/table.h"
#include "knowledge_data.h"
#include "rules/rule.h"

namespace tfrig::explain {

namespace {

using nlohmann::json;
constexpr std::string_view kFileName = "log_signatures.json";

std::string text_field(const json& row, const char* key) {
  auto it = row.find(key);
  return it != row.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::vector<std::string> string_list(const json& row, const char* key) {
  std::vector<std::string> out;
  auto it = row.find(key);
  if (it == row.end() || !it->is_array()) return out;
  for (const auto& v : *it) {
    if (v.is_string()) out.push_back(v.get<std::string>());
  }
  return out;
}

core::Result<Extractor> compile(const std::string& pattern, std::vector<std::string> fields, const std::string& where) {
  Extractor e{pattern, std::move(fields), nullptr};
  try {
    e.re = std::make_shared<const std::regex>(pattern, std::regex::ECMAScript | std::regex::optimize);
  } catch (const std::regex_error& err) {
    return core::fail(core::ErrorCode::kParse, where, trf("invalid pattern: {}", err.what()));
  }
  if (e.re->mark_count() < 1) return core::fail(core::ErrorCode::kParse, where, _("pattern has no (group) to extract"));
  return e;
}

}  // namespace

core::Result<SignatureTable> parse_signature_table(const std::string& text, const std::string& where) {
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::parse_error& e) {
    return core::fail(core::ErrorCode::kParse, where + ": byte " + std::to_string(e.byte), e.what());
  } catch (const json::exception& e) {  // out_of_range.406: a number beyond a double (1e400)
    return core::fail(core::ErrorCode::kParse, where, e.what());
  }
  if (!doc.is_object() || !doc.contains("signatures") || !doc["signatures"].is_array()) {
    return core::fail(core::ErrorCode::kParse, where, _("expected an object with a \"signatures\" array"));
  }
  SignatureTable t;
  t.data_version = text_field(doc, "data_version");
  std::set<std::string> ids;
  size_t i = 0;
  for (const auto& row : doc["signatures"]) {
    const std::string at = fmt::format("{}: signatures[{}]", where, i++);
    if (!row.is_object()) return core::fail(core::ErrorCode::kParse, at, _("expected an object"));
    Signature s;
    s.id = text_field(row, "id");
    s.rule_id = text_field(row, "rule_id");
    s.area = text_field(row, "area");
    s.match = string_list(row, "match");
    s.facts = string_list(row, "facts");
    s.machine_rules = string_list(row, "machine_rules");
    s.what = text_field(row, "what");
    s.cause = text_field(row, "cause");
    s.fix = text_field(row, "fix");
    s.source = text_field(row, "source");
    auto sev = rules::severity_from_name(text_field(row, "severity"));
    if (!sev) return core::fail(core::ErrorCode::kParse, at + ".severity", _("expected error, warning or info"));
    s.severity = *sev;
    for (auto [value, name] : {std::pair{&s.id, "id"}, {&s.rule_id, "rule_id"}, {&s.area, "area"}, {&s.what, "what"},
                               {&s.cause, "cause"}, {&s.fix, "fix"}, {&s.source, "source"}}) {
      if (value->empty()) return core::fail(core::ErrorCode::kParse, at + "." + name, _("missing or empty"));
    }
    if (s.match.empty()) return core::fail(core::ErrorCode::kParse, at + ".match", _("expected at least one text to match"));
    for (const auto& m : s.match) {
      if (m.empty()) return core::fail(core::ErrorCode::kParse, at + ".match", _("an empty text would match every line"));
    }
    if (!ids.insert(s.id).second) return core::fail(core::ErrorCode::kParse, at + ".id", trf("duplicate id {}", s.id));
    if (row.contains("extract")) {
      const auto& x = row["extract"];
      auto e = compile(text_field(x, "pattern"), string_list(x, "fields"), at + ".extract");
      if (!e) return tl::unexpected(e.error());
      if (e->fields.size() != e->re->mark_count()) {
        return core::fail(core::ErrorCode::kParse, at + ".extract.fields", _("expected one name per (group) of the pattern"));
      }
      s.extract = std::move(*e);
    }
    t.signatures.push_back(std::move(s));
  }
  i = 0;
  for (const auto& row : doc.value("facts", json::array())) {
    const std::string at = fmt::format("{}: facts[{}]", where, i++);
    FactPattern f;
    f.name = text_field(row, "name");
    f.needle = text_field(row, "needle");
    if (f.name.empty() || f.needle.empty()) return core::fail(core::ErrorCode::kParse, at, _("expected name and needle"));
    auto e = compile(text_field(row, "pattern"), {f.name}, at + ".pattern");
    if (!e) return tl::unexpected(e.error());
    f.extract = std::move(*e);
    t.facts.push_back(std::move(f));
  }
  t.error_markers = string_list(doc, "error_markers");
  return t;
}

core::Result<SignatureTable> load_signature_table(const std::string& knowledge_dir) {
  if (!knowledge_dir.empty()) {
    const auto path = std::filesystem::path(knowledge_dir) / std::string(kFileName);
    std::error_code ec;
    if (std::filesystem::exists(path, ec)) {
      std::ifstream in(path, std::ios::binary);
      if (!in) return core::fail(core::ErrorCode::kIo, path.string(), _("cannot open"));
      std::stringstream ss;
      ss << in.rdbuf();
      return parse_signature_table(ss.str(), path.string());
    }
  }
  for (const auto& f : knowledge::embedded::kFiles) {
    if (f.name == kFileName) return parse_signature_table(std::string(f.text), std::string(kFileName));
  }
  return core::fail(core::ErrorCode::kNotFound, std::string(kFileName), _("not embedded in this build"));
}

namespace {

// Markdown table cells: a pipe would end the cell.
std::string cell(std::string s) {
  std::string out;
  for (char c : s) {
    if (c == '|') {
      out += "\\|";
    } else {
      out += c;
    }
  }
  return out;
}


std::string quoted_matches(const Signature& s) {
  std::string out;
  for (const auto& m : s.match) out += (out.empty() ? "" : " or ") + std::string("`") + cell(m) + "`";
  return out;
}

}  // namespace

std::string signatures_markdown(const SignatureTable& table) {
  std::string out;
  out += "# tfrig explain: the log signatures\n\n";
  out += "Generated from `data/knowledge/log_signatures.json` by `tfrig explain --markdown`; do not edit by hand.\n";
  out += "The test `ExplainDocs.DocsExplainMdIsGeneratedFromTheTable` fails when this file differs from the table;\n";
  out += "run the tests with `TFRIG_UPDATE_GOLDEN=1` to rewrite it.\n\n";
  out += "`tfrig explain [FILE|-]` reads a log (TensorFlow's, nvidia-smi's, Docker's, NCCL's, apt's) line by line\n";
  out += "and reports every line it recognises as a finding, rendered like doctor's: what it means, the cause, the\n";
  out += "fix, and the line numbers (repeated lines grouped, \"x1,204\"). `tfrig explain -- CMD ARGS` runs the\n";
  out += "command, passes its output through and reads it as it runs. Harmless noise is named `log.harmless_noise`;\n";
  out += "lines that look like errors but match no row are listed as not recognised. Run on the machine (or with\n";
  out += "`--snapshot FILE` / `--from CAPTURE`), each finding is also judged against the machine: doctor's rule of the\n";
  out += "same id runs on its inventory, and the versions the log names (TensorFlow, CUDA, cuDNN, compute\n";
  out += "capability, driver) go through the same check as `tfrig compat`. `tfrig doctor --from BUG-REPORT --from LOG`\n";
  out += "judges a log next to a capture of the same machine: the log's findings join doctor's. Options and exit\n";
  out += "codes: [cli.md](cli.md).\n\n";
  out += fmt::format("{} signatures (data version {}); each row's source is a public issue where the line was reported.\n\n",
                     table.signatures.size(), table.data_version);
  out += "| rule id | severity | matches | what it means | cause | fix | source |\n";
  out += "| --- | --- | --- | --- | --- | --- | --- |\n";
  for (const auto& s : table.signatures) {
    out += fmt::format("| `{}` | {} | {} | {} | {} | {} | <{}> |\n", s.rule_id, rules::severity_name(s.severity), quoted_matches(s),
                       cell(s.what), cell(s.cause), cell(s.fix), s.source);
  }
  out += "\n## Values read from the log\n\n";
  out += "These feed the compat check and the findings' evidence (the first value seen wins).\n\n";
  out += "| value | read from lines containing | pattern |\n| --- | --- | --- |\n";
  for (const auto& f : table.facts) {
    out += fmt::format("| `{}` | `{}` | `{}` |\n", f.name, cell(f.needle), cell(f.extract.pattern));
  }
  out += "\nA line that matches no row but contains one of these is listed as not recognised: ";
  std::string markers;
  for (const auto& m : table.error_markers) markers += (markers.empty() ? "" : ", ") + std::string("`") + cell(m) + "`";
  out += markers + "; so are glog lines of level E or F (`E1201 ...`, `2024-01-01 ...: E ...`).\n";
  return out;
}

std::string log_rules_markdown(const SignatureTable& table) {
  // One section per log.* rule id, in the table's order, like the rules above.
  std::vector<std::string> order;
  std::map<std::string, std::vector<const Signature*>> by_rule;
  for (const auto& s : table.signatures) {
    if (s.rule_id.rfind("log.", 0) != 0) continue;
    if (!by_rule.count(s.rule_id)) order.push_back(s.rule_id);
    by_rule[s.rule_id].push_back(&s);
  }
  std::string out = "## log\n\n";
  out += "Causes only a log shows. `tfrig explain` reports them from the signatures in\n";
  out += "`data/knowledge/log_signatures.json` (every signature: [explain.md](explain.md)); doctor does not run them.\n\n";
  for (const auto& id : order) {
    const auto& rows = by_rule[id];
    const Signature& first = *rows.front();
    out += fmt::format("### `{}` ({})\n\n", id, rules::severity_name(first.severity));
    if (rows.size() == 1) {
      out += fmt::format("**{}**\n\n", first.what);
      out += fmt::format("- Checks: a log line containing {}\n", quoted_matches(first));
      out += fmt::format("- Why: {}\n", first.cause);
      out += fmt::format("- Fix: {}\n", first.fix);
    } else {
      // Several signatures share the id: each with its own meaning, cause and fix.
      out += fmt::format("**{} signatures:**\n\n", rows.size());
      for (const auto* s : rows) {
        out += fmt::format("- {} (a log line containing {}) Why: {} Fix: {}\n", s->what, quoted_matches(*s), s->cause, s->fix);
      }
    }
    out += "- References:";
    std::set<std::string> seen;
    for (const auto* s : rows) {
      if (seen.insert(s->source).second) out += fmt::format(" <{}>", s->source);
    }
    out += "\n\n";
  }
  return out;
}

std::string signatures_list_text(const SignatureTable& table) {
  core::Table t({C_("signature table", "rule id"), C_("signature table", "severity"), C_("signature table", "matches"),
                 C_("signature table", "source")});
  for (const auto& s : table.signatures) {
    std::string m = s.match.front();
    if (m.size() > 60) m = m.substr(0, 57) + "...";
    if (s.match.size() > 1) m += fmt::format(" (+{})", s.match.size() - 1);
    t.add_row({s.rule_id, report::severity_label(s.severity), m, s.source});
  }
  return t.render("") + "\n" +
         trnf("{} signature (data version {}); docs/explain.md explains each.", "{} signatures (data version {}); docs/explain.md explains each.",
              table.signatures.size(), table.signatures.size(), table.data_version) +
         "\n";
}

}  // namespace tfrig::explain

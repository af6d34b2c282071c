#include "explain/signatures.h"

#include <filesystem>
#include <fstream>
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <map>
#include <unordered_map>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <re2/re2.h>
#include <re2/set.h>

#include "core/i18n.h"
#include "core/try.h"
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

// RE2 options for every pattern of the table: no logging to stderr (a bad
// pattern is our error to report), and a bound on the compiled program so a
// huge pattern ("(a{1000}){1000}") is refused instead of eating memory.
RE2::Options re2_options() {
  RE2::Options o;
  o.set_log_errors(false);
  o.set_max_mem(8 << 20);
  return o;
}

core::Result<std::shared_ptr<const RE2>> compile_re2(const std::string& pattern, const std::string& where) {
  if (pattern.size() > kMaxPatternBytes) {
    return core::fail(core::ErrorCode::kParse, where,
                      trf("pattern of {} bytes; at most {} are accepted", pattern.size(), kMaxPatternBytes));
  }
  auto re = std::make_shared<const RE2>(pattern, re2_options());
  if (!re->ok()) return core::fail(core::ErrorCode::kParse, where, trf("invalid pattern: {}", re->error()));
  return re;
}

core::Result<Extractor> compile(const std::string& pattern, std::vector<std::string> fields, const std::string& where) {
  Extractor e{pattern, std::move(fields), nullptr};
  auto re = TFRIG_TRY(compile_re2(pattern, where));
  e.re = std::move(re);
  if (e.re->NumberOfCapturingGroups() < 1)
    return core::fail(core::ErrorCode::kParse, where, _("pattern has no (group) to extract"));
  return e;
}

core::Result<json> parse_table_json(const std::string& text, const std::string& where) {
  try {
    return json::parse(text);
  } catch (const json::parse_error& e) {
    return core::fail(core::ErrorCode::kParse, where + ": byte " + std::to_string(e.byte), e.what());
  } catch (const json::exception& e) {  // out_of_range.406: a number beyond a double (1e400)
    return core::fail(core::ErrorCode::kParse, where, e.what());
  }
}

// A row's texts as written; read_signature checks them.
Signature signature_fields(const json& row) {
  Signature s;
  s.id = text_field(row, "id");
  s.rule_id = text_field(row, "rule_id");
  s.area = text_field(row, "area");
  s.match = string_list(row, "match");
  s.regex = string_list(row, "regex");
  s.examples = string_list(row, "examples");
  s.confirm = text_field(row, "confirm");
  s.when_context = text_field(row, "when_context");
  s.instead = text_field(row, "instead");
  s.reader = text_field(row, "reader");
  s.causes = string_list(row, "causes");
  s.facts = string_list(row, "facts");
  s.machine_rules = string_list(row, "machine_rules");
  s.what = text_field(row, "what");
  s.cause = text_field(row, "cause");
  s.fix = text_field(row, "fix");
  s.source = text_field(row, "source");
  return s;
}

// What a row matches: some text, none empty, and patterns that compile and
// do not match an empty text (either would match every line).
core::Status check_matches(const Signature& s, const std::string& at) {
  if (s.match.empty() && s.regex.empty()) {
    return core::fail(core::ErrorCode::kParse, at + ".match", _("expected at least one text to match"));
  }
  for (const auto& m : s.match) {
    if (m.empty()) return core::fail(core::ErrorCode::kParse, at + ".match", _("an empty text would match every line"));
  }
  for (const auto& r : s.regex) {
    auto re = TFRIG_TRY(compile_re2(r, at + ".regex"));
    if (re->Match("", 0, 0, RE2::UNANCHORED, nullptr, 0)) {
      return core::fail(core::ErrorCode::kParse, at + ".regex",
                        _("a pattern that matches an empty text would match every line"));
    }
  }
  return {};
}

// A row's "extract": a pattern with one field name per (group).
core::Result<Extractor> read_extract(const json& x, const std::string& at) {
  auto e = TFRIG_TRY(compile(text_field(x, "pattern"), string_list(x, "fields"), at + ".extract"));
  if (e.fields.size() != static_cast<size_t>(e.re->NumberOfCapturingGroups())) {
    return core::fail(core::ErrorCode::kParse, at + ".extract.fields",
                      _("expected one name per (group) of the pattern"));
  }
  return e;
}

// One row of "signatures", checked in the order its errors are reported;
// `ids` holds the ids of the rows before it.
core::Result<Signature> read_signature(const json& row, const std::string& at, const std::set<std::string>& ids) {
  Signature s = signature_fields(row);
  if (!s.reader.empty() && s.reader != "kernel_log") {
    return core::fail(core::ErrorCode::kParse, at + ".reader", _("expected kernel_log or nothing"));
  }
  auto sev = rules::severity_from_name(text_field(row, "severity"));
  if (!sev) return core::fail(core::ErrorCode::kParse, at + ".severity", _("expected error, warning or info"));
  s.severity = *sev;
  for (auto [value, name] : {std::pair{&s.id, "id"},
                             {&s.rule_id, "rule_id"},
                             {&s.area, "area"},
                             {&s.what, "what"},
                             {&s.cause, "cause"},
                             {&s.fix, "fix"},
                             {&s.source, "source"}}) {
    if (value->empty()) return core::fail(core::ErrorCode::kParse, at + "." + name, _("missing or empty"));
  }
  TFRIG_TRY(check_matches(s, at));
  if (ids.count(s.id) != 0) return core::fail(core::ErrorCode::kParse, at + ".id", trf("duplicate id {}", s.id));
  if (row.contains("extract")) s.extract = TFRIG_TRY(read_extract(row["extract"], at));
  return s;
}

core::Status read_signatures(const json& rows, const std::string& where, SignatureTable& t) {
  std::set<std::string> ids;
  size_t i = 0;
  for (const auto& row : rows) {
    std::string at = fmt::format("{}: signatures[{}]", where, i++);
    if (!row.is_object()) return core::fail(core::ErrorCode::kParse, at, _("expected an object"));
    // The id names the row in every later error (a user's file is edited by id).
    if (const std::string id = text_field(row, "id"); !id.empty()) at = fmt::format("{}: signatures[{}]", where, id);
    auto s = TFRIG_TRY(read_signature(row, at, ids));
    ids.insert(s.id);
    t.signatures.push_back(std::move(s));
  }
  return {};
}

core::Status read_facts(const json& doc, const std::string& where, SignatureTable& t) {
  size_t i = 0;
  for (const auto& row : doc.value("facts", json::array())) {
    const std::string at = fmt::format("{}: facts[{}]", where, i++);
    FactPattern f;
    f.name = text_field(row, "name");
    f.needle = text_field(row, "needle");
    if (f.name.empty() || f.needle.empty())
      return core::fail(core::ErrorCode::kParse, at, _("expected name and needle"));
    auto e = TFRIG_TRY(compile(text_field(row, "pattern"), {f.name}, at + ".pattern"));
    f.extract = std::move(e);
    t.facts.push_back(std::move(f));
  }
  return {};
}

core::Status read_contexts(const json& doc, const std::string& where, SignatureTable& t) {
  size_t i = 0;
  for (const auto& row : doc.value("contexts", json::array())) {
    const std::string at = fmt::format("{}: contexts[{}]", where, i++);
    LogContext c{text_field(row, "name"), string_list(row, "match")};
    if (c.name.empty() || c.match.empty()) return core::fail(core::ErrorCode::kParse, at, _("expected name and match"));
    for (const auto& m : c.match) {
      if (m.empty())
        return core::fail(core::ErrorCode::kParse, at + ".match", _("an empty text would match every line"));
    }
    t.contexts.push_back(std::move(c));
  }
  return {};
}

// A row with a context names a context of the table and another row to turn
// into, one that has no context of its own (no chains).
core::Status check_contexts(const SignatureTable& t, const std::string& where) {
  for (const auto& s : t.signatures) {
    if (s.when_context.empty() != s.instead.empty()) {
      return core::fail(core::ErrorCode::kParse, fmt::format("{}: signatures[{}]", where, s.id),
                        _("when_context and instead go together"));
    }
    if (s.when_context.empty()) continue;
    bool known = false;
    for (const auto& c : t.contexts) known |= c.name == s.when_context;
    if (!known)
      return core::fail(core::ErrorCode::kParse, fmt::format("{}: signatures[{}].when_context", where, s.id),
                        _("no such context"));
    const Signature* other = t.find(s.instead);
    if (!other || !other->instead.empty()) {
      return core::fail(core::ErrorCode::kParse, fmt::format("{}: signatures[{}].instead", where, s.id),
                        _("expected the id of another row without its own instead"));
    }
  }
  return {};
}

}  // namespace

core::Result<SignatureTable> parse_signature_table(const std::string& text, const std::string& where) {
  const json doc = TFRIG_TRY(parse_table_json(text, where));
  if (!doc.is_object() || !doc.contains("signatures") || !doc["signatures"].is_array()) {
    return core::fail(core::ErrorCode::kParse, where, _("expected an object with a \"signatures\" array"));
  }
  SignatureTable t;
  t.data_version = text_field(doc, "data_version");
  TFRIG_TRY(read_signatures(doc["signatures"], where, t));
  TFRIG_TRY(read_facts(doc, where, t));
  TFRIG_TRY(read_contexts(doc, where, t));
  TFRIG_TRY(check_contexts(t, where));
  t.error_markers = string_list(doc, "error_markers");
  for (const auto& m : t.error_markers) {
    if (m.empty())
      return core::fail(core::ErrorCode::kParse, where + ": error_markers", _("an empty text would match every line"));
  }
  auto m = TFRIG_TRY(Matcher::build(t, where));
  t.matcher = std::move(m);
  return t;
}

const Signature* SignatureTable::find(const std::string& id) const {
  for (const auto& s : signatures) {
    if (s.id == id) return &s;
  }
  return nullptr;
}

// The matcher of the whole table. Every text of the table (the rows' match
// texts, the facts' needles, the contexts, the error markers) is a literal:
// one scan of the line finds them all (a hash of every stride-th 4-byte
// window against the literals' first windows, then a comparison where the
// hash hits), in time linear in the line. The rows' `regex` patterns are one RE2::Set, run on a line only
// when the scan found a literal each of them requires (its longest plain run
// of text, or one of a required group's plain alternatives, taken from the
// pattern); a pattern without one runs on every line.
// RE2 runs in linear time whatever the pattern.
namespace {

// The alternatives of a group's body "A|B|C" when each is plain text (escaped
// punctuation allowed): every match of the group contains one of them. Empty
// when an alternative holds a class, a repeat, a nested group or an escape class.
std::vector<std::string> plain_alternatives(std::string_view body) {
  std::vector<std::string> alts(1);
  for (size_t i = 0; i < body.size(); ++i) {
    const char c = body[i];
    if (c == '|') {
      alts.emplace_back();
    } else if (c == '\\') {
      if (i + 1 >= body.size()) return {};
      const char e = body[++i];
      const bool word = (e >= 'a' && e <= 'z') || (e >= 'A' && e <= 'Z') || (e >= '0' && e <= '9');
      if (word) return {};
      alts.back() += e;
    } else if (std::string_view("()[]{}.*+?^$").find(c) != std::string_view::npos) {
      return {};
    } else {
      alts.back() += c;
    }
  }
  return alts;
}

// The index of the ')' that closes the group opened at p[open] (past the
// end when none does); escapes and classes may hold parentheses.
size_t group_end(std::string_view p, size_t open) {
  size_t i = open;
  int depth = 0;
  for (; i < p.size(); ++i) {
    if (p[i] == '\\') {
      ++i;
    } else if (p[i] == '[') {
      for (++i; i < p.size() && p[i] != ']'; ++i) {
        if (p[i] == '\\') ++i;
      }
    } else if (p[i] == '(') {
      ++depth;
    } else if (p[i] == ')' && --depth == 0) {
      break;
    }
  }
  return i;
}

// The index of the ']' that closes the class opened at p[open].
size_t class_end(std::string_view p, size_t open) {
  size_t i = open;
  if (i + 1 < p.size() && p[i + 1] == ']') ++i;  // "[]...]": the first ] is a member
  for (++i; i < p.size() && p[i] != ']'; ++i) {
    if (p[i] == '\\') ++i;
  }
  return i;
}

// What required_literals has found so far: the longest run of plain text,
// the run being read, and the required group whose shortest alternative is
// the longest.
struct LiteralScan {
  std::vector<std::string> best_group;
  size_t best_group_len = 0;
  std::string best, run;

  void close_run() {
    if (run.size() > best.size()) best = run;
    run.clear();
  }
  // The run's last character (UTF-8: its whole sequence) may be absent.
  void drop_last_char() {
    while (!run.empty() && (static_cast<unsigned char>(run.back()) & 0xc0) == 0x80) run.pop_back();
    if (!run.empty()) run.pop_back();
  }
  // The group p[open..close]: its plain alternatives are required unless a
  // repeat may drop it.
  void group(std::string_view p, size_t open, size_t close) {
    close_run();
    const char after = close + 1 < p.size() ? p[close + 1] : '\0';
    const bool optional = after == '?' || after == '*' || (after == '{' && close + 2 < p.size() && p[close + 2] == '0');
    if (optional || close >= p.size()) return;
    auto alts = plain_alternatives(p.substr(open + 1, close - open - 1));
    size_t shortest = alts.empty() ? 0 : std::string::npos;
    for (const auto& a : alts) shortest = std::min(shortest, a.size());
    if (shortest > best_group_len) {
      best_group = std::move(alts);
      best_group_len = shortest;
    }
  }
};

// Texts of which every match of `pattern` contains at least one: the longest
// run of plain text, or a required group's plain alternatives ("(A|B).*" needs
// A or B) when their shortest is longer. Empty when nothing of 3 bytes or more
// can be told (an alternation at the top, flags, \Q...\E): then the pattern
// runs on every line.
std::vector<std::string> required_literals(std::string_view p) {
  if (p.find("(?") != std::string_view::npos || p.find("\\Q") != std::string_view::npos) return {};
  LiteralScan scan;
  for (size_t i = 0; i < p.size(); ++i) {
    const char c = p[i];
    if (c == '|') return {};  // an alternation at the top: no text is required
    if (c == '(') {
      const size_t open = i;
      i = group_end(p, open);
      scan.group(p, open, i);
    } else if (c == '[') {
      i = class_end(p, i);
      scan.close_run();
    } else if (c == '?' || c == '*' || (c == '{' && i + 1 < p.size() && p[i + 1] >= '0' && p[i + 1] <= '9')) {
      scan.drop_last_char();  // the char before may be absent
      scan.close_run();
      if (c == '{') {
        while (i < p.size() && p[i] != '}') ++i;
      }
    } else if (c == '+' || c == '.' || c == '^' || c == '$') {
      scan.close_run();  // '+': the char before is there, maybe repeated
    } else if (c == '\\') {
      if (i + 1 >= p.size()) break;
      const char e = p[++i];
      const bool word = (e >= 'a' && e <= 'z') || (e >= 'A' && e <= 'Z') || (e >= '0' && e <= '9');
      if (word) {
        scan.close_run();  // \d \s \w \b \x.. \p..: a class or an assertion, not text
      } else {
        scan.run += e;
      }
    } else {
      scan.run += c;
    }
  }
  scan.close_run();
  if (scan.best_group_len > scan.best.size() && scan.best_group_len >= 3) return scan.best_group;
  if (scan.best.size() >= 3) return {scan.best};
  return {};
}

uint32_t load4(const char* s) {
  uint32_t v;
  std::memcpy(&v, s, 4);
  return v;
}

uint32_t hash4(uint32_t v) { return (v * 2654435761u) >> 16; }  // 16 bits: one of 65,536 bloom bits

}  // namespace

struct Matcher::Impl {
  enum class Kind { kSignature, kFact, kContext, kMarker, kRegexAtom };
  struct Owner {
    Kind kind;
    size_t index;  // into the table's vector, or the regex's index in the set for kRegexAtom
  };
  explicit Impl(const RE2::Options& o) : set(o, RE2::UNANCHORED) {}
  // The literals.
  std::vector<std::string> literals;
  std::vector<Owner> literal_owner;
  // The scan looks at every `stride`-th 4-byte window of the line; each
  // literal of 4 bytes or more is indexed by its windows at offsets
  // 0..stride-1, so exactly one of them falls on a looked-at position. The
  // stride is the shortest such literal's length minus 3 (at most 8).
  struct Window {
    uint32_t bytes;   // the 4 bytes
    uint32_t id;      // the literal
    uint32_t offset;  // where the window starts in it
  };
  size_t stride = 1;
  size_t longest = 0;  // bytes of the longest literal
  // A 16-bit hash of the 4 bytes: a bloom filter (8 KB, stays in L1) rejects
  // most windows; the rest look up the windows of that hash, stored together
  // (bucket_start[h] .. bucket_start[h + 1] in `windows`).
  std::vector<uint64_t> bloom = std::vector<uint64_t>(65536 / 64, 0);
  std::vector<uint32_t> bucket_start;
  std::vector<Window> windows;
  std::vector<uint32_t> short_literals;  // under 4 bytes: searched as they are
  // The patterns.
  RE2::Set set;
  std::vector<Owner> regex_owner;                // per entry of the set (kSignature)
  std::vector<std::unique_ptr<RE2>> one_by_one;  // the same patterns, for a set whose DFA ran out of memory
  bool regex_always = false;                     // a pattern without a required literal
  bool compiled = false;

  void add_literal(std::string text, Owner owner) {
    literals.push_back(std::move(text));
    literal_owner.push_back(owner);
  }
  void index_literals() {
    size_t shortest = 0;
    for (const auto& l : literals) {
      longest = std::max(longest, l.size());
      if (l.size() >= 4 && (shortest == 0 || l.size() < shortest)) shortest = l.size();
    }
    stride = shortest ? std::min<size_t>(shortest - 3, 8) : 1;
    for (uint32_t id = 0; id < literals.size(); ++id) {
      const std::string& l = literals[id];
      if (l.size() < 4) {
        short_literals.push_back(id);
        continue;
      }
      for (uint32_t off = 0; off < stride; ++off) {
        const uint32_t v = load4(l.data() + off);
        const uint32_t h = hash4(v);
        bloom[h / 64] |= uint64_t{1} << (h % 64);
        windows.push_back({v, id, off});
      }
    }
    std::stable_sort(windows.begin(), windows.end(),
                     [](const Window& a, const Window& b) { return hash4(a.bytes) < hash4(b.bytes); });
    bucket_start.assign(65536 + 1, 0);
    for (const auto& w : windows) ++bucket_start[hash4(w.bytes) + 1];
    for (size_t h = 0; h < 65536; ++h) bucket_start[h + 1] += bucket_start[h];
  }
};

Matcher::Matcher() = default;
Matcher::~Matcher() = default;

size_t Matcher::longest_literal() const { return impl_->longest; }

core::Result<std::shared_ptr<const Matcher>> Matcher::build(const SignatureTable& t, const std::string& where) {
  RE2::Options o = re2_options();
  // The set's DFA gets most of this; the table's few patterns use a fraction.
  o.set_max_mem(64 << 20);
  std::shared_ptr<Matcher> m(new Matcher());
  m->impl_ = std::make_unique<Impl>(o);
  auto& impl = *m->impl_;
  using Kind = Impl::Kind;
  for (size_t i = 0; i < t.signatures.size(); ++i) {
    const auto& s = t.signatures[i];
    for (const auto& lit : s.match) impl.add_literal(lit, {Kind::kSignature, i});
    for (const auto& r : s.regex) {
      std::string err;
      const int n = impl.set.Add(r, &err);
      if (n < 0)
        return core::fail(core::ErrorCode::kParse, fmt::format("{}: signatures[{}].regex", where, s.id),
                          trf("invalid pattern: {}", err));
      impl.regex_owner.push_back({Kind::kSignature, i});
      impl.one_by_one.push_back(std::make_unique<RE2>(r, re2_options()));
      auto atoms = required_literals(r);
      if (atoms.empty()) impl.regex_always = true;
      for (auto& atom : atoms) impl.add_literal(std::move(atom), {Kind::kRegexAtom, static_cast<size_t>(n)});
    }
  }
  for (size_t i = 0; i < t.facts.size(); ++i) impl.add_literal(t.facts[i].needle, {Kind::kFact, i});
  for (size_t i = 0; i < t.contexts.size(); ++i) {
    for (const auto& lit : t.contexts[i].match) impl.add_literal(lit, {Kind::kContext, i});
  }
  for (const auto& lit : t.error_markers) impl.add_literal(lit, {Kind::kMarker, 0});
  impl.index_literals();
  if (!impl.regex_owner.empty()) {
    if (!impl.set.Compile()) {
      return core::fail(core::ErrorCode::kParse, where,
                        _("the patterns together are too large to compile (RE2's memory limit)"));
    }
    impl.compiled = true;
  }
  return std::shared_ptr<const Matcher>(std::move(m));
}

void Matcher::match(std::string_view line, LineMatches& out) const {
  out.signatures.clear();
  out.facts.clear();
  out.contexts.clear();
  out.marker = false;
  out.pattern_literal = false;
  const Impl& impl = *impl_;
  thread_local std::vector<uint32_t> found;  // literal ids
  found.clear();
  const char* s = line.data();
  const size_t n = line.size();
  const uint64_t* bloom = impl.bloom.data();
  const size_t stride = impl.stride;
  for (size_t i = 0; i + 4 <= n; i += stride) {
    const uint32_t v = load4(s + i);
    const uint32_t h = hash4(v);
    if (!(bloom[h / 64] & (uint64_t{1} << (h % 64)))) continue;
    for (uint32_t k = impl.bucket_start[h]; k < impl.bucket_start[h + 1]; ++k) {
      const auto& w = impl.windows[k];
      if (w.bytes != v || w.offset > i) continue;
      const size_t start = i - w.offset;
      const std::string& lit = impl.literals[w.id];
      if (lit.size() <= n - start && std::memcmp(s + start, lit.data(), lit.size()) == 0) found.push_back(w.id);
    }
  }
  for (uint32_t id : impl.short_literals) {
    if (line.find(impl.literals[id]) != std::string_view::npos) found.push_back(id);
  }
  bool run_regexes = impl.regex_always;
  auto push = [](std::vector<size_t>& v, size_t index) { v.push_back(index); };
  for (uint32_t id : found) {
    const auto& o = impl.literal_owner[id];
    switch (o.kind) {
      case Impl::Kind::kSignature: push(out.signatures, o.index); break;
      case Impl::Kind::kFact: push(out.facts, o.index); break;
      case Impl::Kind::kContext: push(out.contexts, o.index); break;
      case Impl::Kind::kMarker: out.marker = true; break;
      case Impl::Kind::kRegexAtom: run_regexes = true; break;
    }
  }
  out.pattern_literal = run_regexes && impl.compiled;
  if (run_regexes && impl.compiled) {
    thread_local std::vector<int> hits;
    hits.clear();
    RE2::Set::ErrorInfo info{};
    const re2::StringPiece text(line.data(), line.size());
    if (!impl.set.Match(text, &hits, &info) && info.kind != RE2::Set::kNoError) {
      // The set's DFA ran out of its memory budget (a pathological table):
      // each pattern alone, where RE2 falls back to its linear-time NFA.
      hits.clear();
      for (size_t i = 0; i < impl.one_by_one.size(); ++i) {
        if (RE2::PartialMatch(text, *impl.one_by_one[i])) hits.push_back(static_cast<int>(i));
      }
    }
    for (int h : hits) push(out.signatures, impl.regex_owner[static_cast<size_t>(h)].index);
  }
  for (auto* v : {&out.signatures, &out.facts, &out.contexts}) {
    std::sort(v->begin(), v->end());
    v->erase(std::unique(v->begin(), v->end()), v->end());
  }
}

std::vector<std::string> extract(const Extractor& e, std::string_view text) {
  const int groups = e.re->NumberOfCapturingGroups();
  std::vector<re2::StringPiece> sub(static_cast<size_t>(groups) + 1);
  std::vector<std::string> out;
  if (!e.re->Match(re2::StringPiece(text.data(), text.size()), 0, text.size(), RE2::UNANCHORED, sub.data(), groups + 1))
    return out;
  for (int g = 1; g <= groups; ++g)
    out.emplace_back(sub[static_cast<size_t>(g)].data() ? std::string(sub[static_cast<size_t>(g)]) : std::string());
  return out;
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
  for (const auto& r : s.regex) out += (out.empty() ? "" : " or ") + std::string("RE2 `") + cell(r) + "`";
  return out;
}

// The page's opening paragraphs, up to the header of the table of rows.
std::string signatures_intro(const SignatureTable& table) {
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
  out +=
      "`--snapshot FILE` / `--from CAPTURE`), each finding is also judged against the machine: doctor's rule of the\n";
  out += "same id runs on its inventory, and the versions the log names (TensorFlow, CUDA, cuDNN, compute\n";
  out +=
      "capability, driver) go through the same check as `tfrig compat`. `tfrig doctor --from BUG-REPORT --from LOG`\n";
  out += "judges a log next to a capture of the same machine: the log's findings join doctor's. Options and exit\n";
  out += "codes: [cli.md](cli.md).\n\n";
  out += fmt::format(
      "{} signatures (data version {}); each row's source is a public issue where the line was reported.\n\n",
      table.signatures.size(), table.data_version);
  out +=
      "The first row that matches a line wins (specific rows come first). A row with a context (`when_context`) turns into\n";
  out +=
      "another row when the whole log shows that context: the TensorRT libraries missing are noise, unless the log shows TF-TRT\n";
  out +=
      "in use. Patterns are RE2 (linear time whatever the pattern, so a `--knowledge` file cannot make explain hang); all of\n";
  out +=
      "them run in one pass over each line (one RE2::Set). \"Confirm on the machine\" is the fact that settles the cause; with\n";
  out += "`--snapshot`/`--from` it is added to the finding next to doctor's own rules.\n\n";
  out += "| id | rule id | severity | matches | what it means | cause | fix | confirm on the machine | source |\n";
  out += "| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n";
  return out;
}

// One row of the table; "confirm on the machine" defaults to doctor's rules of the same id.
std::string signature_row(const Signature& s) {
  std::string confirm = s.confirm;
  if (confirm.empty() && !s.harmless()) {
    confirm = rules::find_rule(s.rule_id) ? fmt::format("doctor's rule `{}`", s.rule_id) : std::string();
    for (const auto& r : s.machine_rules)
      confirm += (confirm.empty() ? "" : ", ") + fmt::format("doctor's rule `{}`", r);
  }
  std::string when;
  if (!s.when_context.empty()) when = fmt::format(" (becomes `{}` when the log shows `{}`)", s.instead, s.when_context);
  return fmt::format("| `{}` | `{}` | {} | {}{} | {} | {} | {} | {} | <{}> |\n", s.id, s.rule_id,
                     rules::severity_name(s.severity), quoted_matches(s), when, cell(s.what), cell(s.cause),
                     cell(s.fix), cell(confirm), s.source);
}

// How a log is read before its lines are matched: encodings, prefixes, wrapped lines, tracebacks.
std::string reading_a_paste_section() {
  std::string out;
  out += "\n## Reading a paste\n\n";
  out +=
      "A log is read as people paste it: UTF-8 or UTF-16 (LE or BE, with a byte-order mark, or without one when every other\n";
  out +=
      "byte of its start is zero: what PowerShell's `>` writes), LF or CRLF line ends, invalid bytes kept. Before a line is\n";
  out +=
      "grouped, its prefixes are set aside: journalctl's (`Dec 06 04:25:43 host kernel: `), dmesg's (`[ 12.345678] `,\n";
  out +=
      "`[Sun Dec  6 04:25:43 2026] `), an RFC 3339 timestamp (`docker logs -t`), Ray's (`(pid=123) `), glog's and absl's\n";
  out +=
      "(`E1201 10:00:00.1 123 file.cc:42] `, `E0000 00:00:1700000000.1 ...`, `2024-01-01 10:00:00.1: E file.cc:42] `).\n";
  out +=
      "A line the terminal wrapped is joined again: when a line matches no row and does not start a record of its own, it is\n";
  out +=
      "also matched joined to the line before it. In a Python traceback the frames are context; the exception on the last\n";
  out +=
      "line is the error (listed as not recognised when no row matches it). Kernel-log lines of Xid events and GPUs fallen\n";
  out +=
      "off the bus are read by the parser `tfrig import` uses and explained from the same Xid catalogue as doctor's.\n";
  return out;
}

// The values read from the log, and the texts that mark a line as an unrecognised error.
std::string log_values_section(const SignatureTable& table) {
  std::string out;
  out += "\n## Values read from the log\n\n";
  out += "These feed the compat check and the findings' evidence (the first value seen wins).\n\n";
  out += "| value | read from lines containing | pattern |\n| --- | --- | --- |\n";
  for (const auto& f : table.facts) {
    out += fmt::format("| `{}` | `{}` | `{}` |\n", f.name, cell(f.needle), cell(f.extract.pattern));
  }
  out += "\nA line that matches no row but contains one of these is listed as not recognised: ";
  std::string markers;
  for (const auto& m : table.error_markers) markers += (markers.empty() ? "" : ", ") + std::string("`") + cell(m) + "`";
  out += markers +
         "; so are glog lines of level E or F (`E1201 ...`, `2024-01-01 ...: E ...`) and the exception that ends a\n";
  out += "Python traceback. Unrecognised lines are grouped by their text with every number masked.\n";
  return out;
}

}  // namespace

std::string signatures_markdown(const SignatureTable& table, const std::string& tail) {
  std::string out = signatures_intro(table);
  for (const auto& s : table.signatures) out += signature_row(s);
  out += "\n## Contexts of the whole log\n\n| context | set by a line containing |\n| --- | --- |\n";
  for (const auto& c : table.contexts) {
    std::string m;
    for (const auto& x : c.match) m += (m.empty() ? "" : " or ") + std::string("`") + cell(x) + "`";
    out += fmt::format("| `{}` | {} |\n", c.name, m);
  }
  out += reading_a_paste_section();
  out += log_values_section(table);
  return out + tail;
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
  out +=
      "`data/knowledge/log_signatures.json` (every signature: [explain.md](explain.md)); doctor does not run them.\n\n";
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
        out += fmt::format("- {} (a log line containing {}) Why: {} Fix: {}\n", s->what, quoted_matches(*s), s->cause,
                           s->fix);
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

std::string signatures_list_text(const SignatureTable& table, size_t width) {
  core::Table t({C_("signature table", "rule id"), C_("signature table", "severity"), C_("signature table", "matches"),
                 C_("signature table", "source")});
  for (const auto& s : table.signatures) {
    // A row has at least one match text or pattern (the parser checks).
    std::string m = s.match.empty() ? s.regex.front() : s.match.front();
    if (m.size() > 60) m = m.substr(0, 57) + "...";
    const size_t more = s.match.size() + s.regex.size() - 1;
    if (more > 0) m += fmt::format(" (+{})", more);
    t.add_row({s.rule_id, report::severity_label(s.severity), m, s.source});
  }
  return t.render("", width) + "\n" +
         trnf("{} signature (data version {}); docs/explain.md explains each.",
              "{} signatures (data version {}); docs/explain.md explains each.", table.signatures.size(),
              table.signatures.size(), table.data_version) +
         "\n";
}

}  // namespace tfrig::explain

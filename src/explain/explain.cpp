#include "explain/explain.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>

#include <fmt/format.h>

#include "core/display_width.h"
#include "core/errno_text.h"
#include "core/i18n.h"
#include "core/input_file.h"
#include "core/sysroot.h"
#include "explain/command_runner.h"
#include "explain/log_reader.h"
#include "importer/kernel_log.h"
#include "importer/text_encoding.h"
#include "knowledge/xid_catalog.h"
#include "rules/judge.h"
#include "rules/rule.h"

namespace tfrig::explain {

namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }

bool digits(std::string_view s, size_t from, size_t n) {
  if (s.size() < from + n) return false;
  for (size_t i = from; i < from + n; ++i) {
    if (!is_digit(s[i])) return false;
  }
  return true;
}

// glog/absl "E1224 10:32:35.123 ..." (level letter, MMDD; absl before
// InitializeLog writes "E0000 00:00:1700000000.123456").
bool glog_letter_prefix(std::string_view s) {
  return s.size() > 6 && std::string_view("IWEF").find(s[0]) != std::string_view::npos && digits(s, 1, 4) &&
         s[5] == ' ';
}

// TensorFlow's "2020-06-21 14:35:28.215703: E tensorflow/...".
bool dated_prefix(std::string_view s) {
  return digits(s, 0, 4) && s.size() > 10 && s[4] == '-' && digits(s, 5, 2) && s[7] == '-' && digits(s, 8, 2);
}

// The severity letter of a dated TensorFlow line, or 0.
char dated_level(std::string_view s) {
  if (!dated_prefix(s)) return 0;
  const size_t colon = s.find(": ", 10);
  // npos (no colon) is past every bound here, as in the prefixes below.
  if (colon > 40 || s.size() < colon + 4 || s[colon + 3] != ' ') return 0;
  return s[colon + 2];
}

// dmesg's "[  123.456789] " or dmesg -T's "[Sun Dec  6 04:25:43 2026] ": the length of the prefix, or 0.
size_t dmesg_prefix(std::string_view s) {
  if (s.size() < 4 || s[0] != '[') return 0;
  const size_t close = s.find("] ");
  if (close > 40) return 0;  // or none
  const std::string_view inside = s.substr(1, close - 1);
  bool timestamp =
      inside.find_first_not_of(" 0123456789.") == std::string_view::npos && inside.find('.') != std::string_view::npos;
  bool dated =
      inside.size() >= 20 && inside.find(':') != std::string_view::npos && digits(inside, inside.size() - 4, 4);
  return timestamp || dated ? close + 2 : 0;
}

// journalctl's short format "Dec 06 04:25:43 host ident[pid]: ": the length of the prefix, or 0.
size_t journal_prefix(std::string_view s) {
  static constexpr std::string_view kMonths = "JanFebMarAprMayJunJulAugSepOctNovDec";
  if (s.size() < 20 || s[3] != ' ') return 0;
  bool month = false;
  for (size_t i = 0; i + 3 <= kMonths.size(); i += 3) month |= s.substr(0, 3) == kMonths.substr(i, 3);
  if (!month) return 0;
  size_t p = 4;
  if (s[p] == ' ') ++p;
  while (p < s.size() && is_digit(s[p])) ++p;
  if (p >= s.size() || s[p] != ' ' || !digits(s, p + 1, 2) || s.size() < p + 10 || s[p + 3] != ':' || s[p + 6] != ':')
    return 0;
  const size_t host_end = s.find(' ', p + 10);  // after "HH:MM:SS "
  if (host_end == std::string_view::npos) return 0;
  const size_t colon = s.find(": ", host_end + 1);
  if (colon == std::string_view::npos || colon > host_end + 64 ||
      s.substr(host_end + 1, colon - host_end - 1).find(' ') != std::string_view::npos)
    return 0;
  return colon + 2;
}

// An RFC 3339 timestamp and a space ("2024-01-01T10:00:00.123456789Z "): the length of the prefix, or 0.
size_t rfc3339_prefix(std::string_view s) {
  if (!dated_prefix(s) || s.size() < 21 || s[10] != 'T') return 0;
  const size_t space = s.find(' ', 11);
  return space < 40 ? space + 1 : 0;  // npos: none
}

// Ray's worker prefix "(ActorGroup(rank=6) pid=4084493) ": the length of the prefix, or 0.
size_t ray_prefix(std::string_view s) {
  if (s.empty() || s[0] != '(') return 0;
  const size_t pid = s.find("pid=");
  if (pid > 120) return 0;  // or none
  const size_t close = s.find(") ", pid);
  return close != std::string_view::npos && close < pid + 16 ? close + 2 : 0;
}

// The outer prefixes (journal, dmesg, timestamp, Ray) a line may carry before a glog line.
std::string_view strip_outer(std::string_view s) {
  for (int round = 0; round < 4; ++round) {
    size_t n = journal_prefix(s);
    if (!n) n = dmesg_prefix(s);
    if (!n) n = rfc3339_prefix(s);
    if (!n) n = ray_prefix(s);
    if (!n) break;
    s.remove_prefix(n);
  }
  return s;
}

bool starts_a_record(std::string_view s) {
  if (journal_prefix(s) || dmesg_prefix(s) || rfc3339_prefix(s) || ray_prefix(s)) return true;
  if (glog_letter_prefix(s) || dated_prefix(s)) return true;
  return s.rfind("Traceback (most recent call last)", 0) == 0;
}

// Characters on the terminal, counted up to `enough`: UTF-8 lead bytes (a
// wrapped paste breaks at a column, not a byte).
size_t columns(std::string_view s, size_t enough) {
  size_t n = 0;
  if (s.size() < enough) return 0;  // fewer bytes than columns asked for: too narrow whatever they hold
  for (size_t i = 0; i < s.size() && n < enough; ++i) n += (static_cast<unsigned char>(s[i]) & 0xc0) != 0x80;
  return n;
}

// The key that groups unrecognised lines: the message with every run of
// digits (addresses, counters, pids, sizes) as one '#'.
std::string group_key(std::string_view message) {
  std::string out;
  const std::string clean = clean_text(message, 200);
  for (size_t i = 0; i < clean.size(); ++i) {
    if (is_digit(clean[i])) {
      if (out.empty() || out.back() != '#') out += '#';
      continue;
    }
    out += clean[i];
  }
  return out;
}

std::string with_thousands(uint64_t n) {
  std::string digits_text = std::to_string(n);
  std::string out;
  for (size_t i = 0; i < digits_text.size(); ++i) {
    if (i > 0 && (digits_text.size() - i) % 3 == 0) out += ',';
    out += digits_text[i];
  }
  return out;
}

}  // namespace

void LineGroup::add(uint64_t line_number) {
  ++count;
  if (lines.size() < kLinesKept) lines.push_back(line_number);
}

void LineGroup::remove(uint64_t line_number) {
  if (count == 0) return;
  --count;
  auto it = std::find(lines.begin(), lines.end(), line_number);
  if (it != lines.end()) lines.erase(it);
}

core::Message LineGroup::describe_message() const {
  std::string numbers;
  for (size_t i = 0; i < lines.size(); ++i) numbers += (i ? ", " : "") + std::to_string(lines[i]);
  if (count > lines.size()) numbers += ", ...";
  if (count == 1) return core::Message(N_("line {}"), numbers);
  // TRANSLATORS: {0} is a list of line numbers ("2, 3, 4, ..."), {1} how many lines in all ("1,204").
  return core::Message(N_("lines {0} (x{1})"), numbers, with_thousands(count));
}

std::string LineGroup::describe() const { return core::render(describe_message(), core::i18n::language()); }

LineHead head_of(std::string_view line) {
  line = strip_outer(line);
  const bool letter = glog_letter_prefix(line);
  LineHead h{line, letter ? line[0] : dated_level(line)};
  if (letter || dated_prefix(line)) {
    const size_t end = line.find("] ");
    if (end < 160) h.message = line.substr(end + 2);  // npos: none
  }
  return h;
}

std::string_view message_of(std::string_view line) { return head_of(line).message; }

char glog_level(std::string_view line) { return head_of(line).level; }

bool looks_like_error(std::string_view line, const std::vector<std::string>& markers) {
  const char level = glog_level(line);
  if (level == 'E' || level == 'F') return true;
  if (level == 'I') return false;  // an INFO line that mentions an error is not one
  for (const auto& m : markers) {
    if (line.find(m) != std::string_view::npos) return true;
  }
  return false;
}

bool looks_utf16(std::string_view head) { return importer::utf16_to_utf8(head.substr(0, 64)).has_value(); }

std::string decode_log_bytes(std::string_view bytes) {
  if (looks_utf16(bytes)) {
    if (auto text = importer::utf16_to_utf8(bytes)) return *text;
  }
  return std::string(bytes);
}

void LogAnalyzer::add_line(std::string_view line) {
  const uint64_t n = ++result_.lines;
  const bool continues = !run_.empty() && !line.empty() && !starts_a_record(line);
  take_line(line, n);
  const size_t row = matched_row_;
  if (continues && run_pieces_.size() < kMaxRunPieces) run_pieces_.push_back({n, line_seen_});
  if (continues && row == kNoRow) {
    // Maybe a piece of a line the terminal wrapped: match it joined to the
    // pieces before it; a row that none of the pieces matched alone names the whole.
    // Without a pattern's literal in the run or the piece, only a literal can
    // match across the cut, so the text around the cut is enough (most lines
    // after a wide line are not wrapped pieces; rescanning the run for each was
    // most of explain's time on such logs).
    const bool patterns = run_atom_ || line_atom_;
    const size_t span = patterns ? kJoinTailBytes : table_.matcher->longest_literal();
    std::string joined = run_.substr(run_.size() > span ? run_.size() - span : 0);
    joined.append(line.substr(0, span));
    table_.matcher->match(joined, join_matches_);
    for (size_t r : join_matches_.signatures) {
      if (std::find(run_rows_.begin(), run_rows_.end(), r) != run_rows_.end()) continue;
      if (!patterns) {
        joined = run_;  // the whole, for the sample and the row's values
        joined.append(line.substr(0, kJoinTailBytes));
      }
      record_joined(table_.signatures[r], joined);
      run_rows_.push_back(r);
      break;
    }
  }
  if (continues) {
    run_.append(line);
    if (run_.size() > kJoinTailBytes) run_.erase(0, run_.size() - kJoinTailBytes);
    run_atom_ = run_atom_ || line_atom_;
  } else if (columns(line, kMinWrappedColumns) >= kMinWrappedColumns) {
    run_.assign(line.substr(line.size() > kJoinTailBytes ? line.size() - kJoinTailBytes : 0));
    run_rows_.clear();
    run_pieces_.assign(1, {n, line_seen_});
    run_atom_ = line_atom_;
  } else {
    run_.clear();
    run_rows_.clear();
    run_pieces_.clear();
    run_atom_ = false;
  }
  if (row != kNoRow) run_rows_.push_back(row);
}

void LogAnalyzer::record_joined(const Signature& sig, const std::string& joined) {
  // The pieces the join explains are no longer unrecognised, and the hit is
  // counted on the first piece no other row holds: each line is counted once.
  for (auto& piece : run_pieces_) {
    if (piece.how.kind == 2) result_.unrecognised[piece.how.index].remove(piece.line);
    if (piece.how.kind == 3 && result_.unrecognised_not_kept > 0) --result_.unrecognised_not_kept;
    if (piece.how.kind != 1) piece.how = {};
  }
  for (auto& piece : run_pieces_) {
    if (piece.how.kind != 0) continue;
    record_hit(sig, joined, piece.line);
    piece.how = {1, 0};
    return;
  }
}

void LogAnalyzer::take_line(std::string_view line, uint64_t n) {
  matched_row_ = kNoRow;
  // A Python traceback: the header and the indented frames say where; the
  // first line after them that is not indented is the exception, the error itself.
  exception_line_ = false;
  if (line.find("Traceback (most recent call last)") != std::string_view::npos) {
    in_traceback_ = true;
  } else if (in_traceback_ && !line.empty() && line[0] != ' ' && line[0] != '\t') {
    in_traceback_ = false;
    // Python's chaining sentences sit between two tracebacks; they are not the exception.
    exception_line_ = line.rfind("During handling of the above exception", 0) != 0 &&
                      line.rfind("The above exception was the direct cause", 0) != 0;
  }
  line_seen_ = {};
  head_ = head_of(line);
  if (head_.message.size() > kMaxCachedMessageBytes || exception_line_ || cache_rest_ > 0) {
    if (cache_rest_ > 0) --cache_rest_;
    line_seen_ = classify_counted(line, n);
    line_atom_ = matches_.pattern_literal;
    return;
  }
  // The key keeps the severity letter: "E ... x" and "I ... x" are not the same line.
  std::string key(1, head_.level ? head_.level : '-');
  key.append(head_.message);
  auto it = seen_.find(key);
  // A log of distinct lines (a counter or an address in each) gains nothing
  // from the cache and pays a copy and two lookups a line: rest it a while.
  cache_found_ += it != seen_.end();
  if (++cache_looked_ == kCacheWindow) {
    if (cache_found_ * 8 < cache_looked_) cache_rest_ = kCacheRestLines;
    cache_looked_ = cache_found_ = 0;
  }
  if (it != seen_.end()) {
    // The same message again: same signature and values, same facts (already recorded).
    if (it->second.kind == 1) {
      auto& hit = result_.hits[it->second.index];
      hit.group.add(n);
      matched_row_ = static_cast<size_t>(hit.signature - table_.signatures.data());
    }
    if (it->second.kind == 2) result_.unrecognised[it->second.index].add(n);
    if (it->second.kind == 3) ++result_.unrecognised_not_kept;
    line_seen_ = it->second;
    line_atom_ = it->second.pattern_literal;
    return;
  }
  line_seen_ = classify_counted(line, n);
  line_atom_ = matches_.pattern_literal;
  if (seen_.size() >= kMaxCachedMessages) seen_.clear();
  Seen cached = line_seen_;
  cached.pattern_literal = line_atom_;
  seen_.emplace(std::move(key), cached);
}

LogAnalyzer::Seen LogAnalyzer::classify_counted(std::string_view line, uint64_t n) {
  const size_t hits_before = result_.hits.size();
  const size_t unrec_before = result_.unrecognised.size();
  const uint64_t counted_before = counted_;
  classify(line, n);
  if (counted_ == counted_before) return {};
  // Which group took the line: the last one that grew.
  if (result_.hits.size() > hits_before) return {1, result_.hits.size() - 1};
  if (result_.unrecognised.size() > unrec_before) return {2, result_.unrecognised.size() - 1};
  return last_seen_;
}

void LogAnalyzer::record_hit(const Signature& sig, std::string_view line, uint64_t n) {
  std::vector<std::pair<std::string, std::string>> values;
  if (sig.extract) {
    auto& [last_message, parts] = last_extract_[&sig];
    const std::string_view message = message_of(line);
    if (last_message.empty() || message != last_message) {
      last_message.assign(message);
      parts = extract(*sig.extract, line);
    }
    for (size_t i = 0; i < parts.size() && i < sig.extract->fields.size(); ++i) {
      if (!parts[i].empty()) values.emplace_back(sig.extract->fields[i], clean_text(parts[i], 160));
    }
  }
  if (sig.reader == "kernel_log") {
    // The kernel-log parser import uses (one parser for both): the Xid and the GPU it names.
    const auto k = importer::parse_kernel_log(line);
    if (!k.xids.empty()) {
      values.emplace_back("xid", std::to_string(k.xids.front().xid));
      if (!k.xids.front().pci_bus_id.empty())
        values.emplace_back("pci_bus_id", clean_text(k.xids.front().pci_bus_id, 40));
    } else if (!k.fallen_off_bus.empty()) {
      values.emplace_back("pci_bus_id", clean_text(k.fallen_off_bus.front(), 40));
    }
  }
  std::string key = sig.id;
  for (const auto& [name, value] : values) key += "\x1f" + value;
  auto it = hit_index_.find(key);
  if (it == hit_index_.end() && result_.hits.size() >= kMaxGroups) {
    // Over the cap: count the line with the first group of the same signature.
    it = hit_index_.find(sig.id + "\x1e");
  }
  if (it != hit_index_.end()) {
    result_.hits[it->second].group.add(n);
    ++counted_;
    last_seen_ = {1, it->second};
    return;
  }
  SignatureHit hit{&sig, {}};
  hit.group.sample = clean_text(line);
  hit.group.values = std::move(values);
  hit.group.add(n);
  hit_index_[key] = result_.hits.size();
  hit_index_.emplace(sig.id + "\x1e", result_.hits.size());
  result_.hits.push_back(std::move(hit));
  ++counted_;
}

void LogAnalyzer::classify(std::string_view line, uint64_t n) {
  // One pass of the table's RE2::Set over the line says which rows, facts,
  // contexts and error markers occur in it; only those run their extractors.
  table_.matcher->match(line, matches_);
  for (size_t c : matches_.contexts) contexts_seen_[c] = true;
  for (size_t fi : matches_.facts) {
    const auto& f = table_.facts[fi];
    if (result_.facts.count(f.name)) continue;
    auto parts = extract(f.extract, line);
    std::string value;
    for (const auto& p : parts) {
      if (!p.empty()) value += (value.empty() ? "" : ".") + p;
    }
    if (!value.empty()) result_.facts[f.name] = LogFact{clean_text(value, 120), n};
  }
  if (!matches_.signatures.empty()) {
    // The first row of the table that matches: rows are ordered most specific first.
    matched_row_ = matches_.signatures.front();
    record_hit(table_.signatures[matched_row_], line, n);
    return;
  }
  const char level = head_.level;
  const bool error_looking = level == 'E' || level == 'F' || exception_line_ || (level != 'I' && matches_.marker);
  if (!error_looking) return;
  const std::string key = group_key(head_.message);
  auto it = unrecognised_index_.find(key);
  if (it != unrecognised_index_.end()) {
    result_.unrecognised[it->second].add(n);
    ++counted_;
    last_seen_ = {2, it->second};
  } else if (result_.unrecognised.size() < kMaxUnrecognised) {
    LineGroup g;
    g.sample = clean_text(line);
    g.add(n);
    unrecognised_index_[key] = result_.unrecognised.size();
    result_.unrecognised.push_back(std::move(g));
    ++counted_;
  } else {
    ++result_.unrecognised_not_kept;
    ++counted_;
    last_seen_ = {3, 0};
  }
}

LogAnalysis LogAnalyzer::finish(uint64_t truncated_lines) {
  // A row that means something else in a context of the whole log (the
  // TensorRT libraries absent are noise, unless the log shows TF-TRT in use).
  for (auto& hit : result_.hits) {
    const Signature& sig = *hit.signature;
    if (sig.when_context.empty()) continue;
    for (size_t c = 0; c < table_.contexts.size(); ++c) {
      if (contexts_seen_[c] && table_.contexts[c].name == sig.when_context) {
        if (const Signature* other = table_.find(sig.instead)) hit.signature = other;
      }
    }
  }
  // Groups a wrapped line's join emptied (every piece explained).
  std::erase_if(result_.unrecognised, [](const LineGroup& g) { return g.count == 0; });
  result_.truncated_lines = truncated_lines;
  return std::move(result_);
}

LogAnalysis analyze_text(const SignatureTable& table, std::string_view text) {
  const std::string decoded = looks_utf16(text) ? decode_log_bytes(text) : std::string();
  const std::string_view lines = decoded.empty() ? text : std::string_view(decoded);
  LogAnalyzer analyzer(table);
  LineSplitter splitter([&](std::string_view line) { analyzer.add_line(line); });
  splitter.feed(lines);
  splitter.finish();
  analyzer.add_bytes(text.size());
  return analyzer.finish(splitter.truncated_lines());
}

namespace {

// The names the table gives what a row extracts and the log facts, as a
// reader's label; a name a user's --knowledge table brings prints as it is.
rules::Text field_label(const std::string& name) {
  static const std::map<std::string, const char*> labels = {
      // TRANSLATORS: labels of values read from a log line (evidence of an explained error).
      {"allocator", N_("allocator")},
      {"allocator_in_use", N_("memory in use by the allocator")},
      {"allocator_limit", N_("allocator limit")},
      {"compute_capability", N_("compute capability")},
      {"cuda_runtime", N_("CUDA runtime")},
      {"cudnn_compiled", N_("cuDNN TensorFlow was built with")},
      {"cudnn_loaded", N_("cuDNN loaded")},
      {"driver_version", N_("driver version")},
      {"error", N_("error")},
      {"gpu_name", N_("GPU")},
      {"library", N_("library")},
      {"oom_request", N_("allocation requested")},
      {"shape", N_("tensor shape")},
      {"tf_version", N_("TensorFlow version")},
      {"pci_bus_id", N_("PCI address")},
  };
  auto it = labels.find(name);
  return it == labels.end() ? rules::Text(name) : rules::Text(core::Message(it->second));
}

}  // namespace

std::vector<Explained> findings_from(const LogAnalysis& a, const std::string& log_name) {
  auto line_source = [&](uint64_t n) {
    // TRANSLATORS: where an evidence was read: {0} is the log file, {1} a line number.
    return rules::Text(log_name.empty() ? core::Message(N_("log line {}"), n)
                                        : core::Message(N_("{0}: line {1}"), log_name, n));
  };
  std::vector<Explained> out;
  for (const auto& hit : a.hits) {
    const Signature& sig = *hit.signature;
    rules::Finding f;
    f.rule_id = sig.rule_id;
    f.severity = sig.severity;
    const rules::Rule* rule = rules::find_rule(sig.rule_id);
    f.area = rule ? std::string(rule->area) : sig.area;
    f.entity = "log";
    for (const auto& [name, value] : hit.group.values) {
      if (name == "library") f.entity = value;
    }
    // The table's texts are English (data/knowledge/log_signatures.json);
    // their translations are in the catalog (scripts/knowledge_pot.py), so
    // they are messages whose pattern is the text itself.
    f.set_title(core::Message(sig.what));
    // TRANSLATORS: {0} is the cause (a sentence), {1} where it was seen ("lines 12, 40 (x2)").
    f.set_message(core::Message(N_("{0} Seen on {1}."), core::Message(sig.cause), hit.group.describe_message()));
    const rules::Text first_line = line_source(hit.group.lines.front());
    f.evidence.push_back({core::Message(N_("log line")), hit.group.sample, first_line});
    for (const auto& [name, value] : hit.group.values) f.evidence.push_back({field_label(name), value, first_line});
    for (const auto& name : sig.facts) {
      auto it = a.facts.find(name);
      if (it != a.facts.end())
        f.evidence.push_back({field_label(name), it->second.value, line_source(it->second.line)});
    }
    f.set_fix(core::Message(sig.fix));
    f.references = {sig.source};
    for (const auto& [name, value] : hit.group.values) {
      if (name != "xid") continue;
      // An Xid: its meaning, severity and action from the catalogue doctor uses.
      const auto info = knowledge::xid_info_english(std::atoi(value.c_str()));
      if (!info) continue;
      f.severity = info->severe ? rules::Severity::kError : rules::Severity::kWarning;
      f.evidence.push_back({"Xid",
                            core::Message(N_("{0} ({1}, {2})"), value, core::Message(std::string(info->meaning)),
                                          knowledge::xid_class_message(info->cls)),
                            std::string(knowledge::kXidSource)});
      f.set_fix(core::Message(std::string(info->action)));
      f.references.push_back(std::string(knowledge::kXidSource));
    }
    out.push_back({std::move(f), &sig});
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const Explained& x, const Explained& y) { return x.finding.severity > y.finding.severity; });
  return out;
}

knowledge::CompatQuery compat_query_from_log(const LogAnalysis& a) {
  knowledge::CompatQuery q;
  auto fact = [&](const char* name) -> std::optional<std::string> {
    auto it = a.facts.find(name);
    return it == a.facts.end() ? std::nullopt : std::optional<std::string>(it->second.value);
  };
  q.tf = fact("tf_version");
  q.driver = fact("driver_version");
  q.cudnn = fact("cudnn_loaded");
  if (auto cc = fact("compute_capability")) q.gpu = "cc:" + *cc;
  return q;
}

namespace {

std::optional<std::set<std::string>> probes_that_ran(const report::Report& r) {
  if (r.probes.empty()) return std::nullopt;
  std::set<std::string> out;
  for (const auto& s : r.probes) {
    if (s.state == probe::State::kOk || s.state == probe::State::kAbsent) out.insert(s.id);
  }
  return out;
}

bool compat_matters(const Explained& e) {
  const auto& area = e.finding.area;
  if (area == "cuda" || area == "driver" || area == "gpu") return true;
  for (const auto& r : e.signature->machine_rules) {
    if (r.rfind("driver.", 0) == 0 || r.rfind("cuda.", 0) == 0) return true;
  }
  return false;
}

}  // namespace

void judge_against_machine(std::vector<Explained>& findings, const LogAnalysis& a, const report::Report* machine,
                           const knowledge::Knowledge& k, const std::optional<knowledge::CompatAnswer>& compat) {
  auto tf = a.facts.count("tf_version") ? std::optional<std::string>(a.facts.at("tf_version").value) : std::nullopt;
  static const inventory::Inventory kNoInventory;
  const auto& inv = machine ? machine->inventory : kNoInventory;
  rules::Context ctx{inv, k, rules::resolve_target(inv, k, tf), machine ? probes_that_ran(*machine) : std::nullopt};
  const core::MessageArg where = !machine                    ? core::MessageArg(core::Message(N_("the log alone")))
                                 : machine->source == "live" ? core::MessageArg(core::Message(N_("this machine")))
                                                             : core::MessageArg(machine->source);
  for (auto& e : findings) {
    if (e.finding.rule_id == "log.harmless_noise") continue;
    std::vector<std::string> ids;
    if (rules::find_rule(e.finding.rule_id)) ids.push_back(e.finding.rule_id);
    for (const auto& r : e.signature->machine_rules) ids.push_back(r);
    if (!machine) ids.clear();
    bool fix_replaced = false;
    for (const auto& id : ids) {
      const rules::Rule* rule = rules::find_rule(id);
      if (!rule) continue;
      auto rr = rules::run_rule(*rule, ctx);
      // TRANSLATORS: {0} is a rule id ("cuda.library_missing"), {1} the machine ("this machine", a file name).
      const core::Message fact(N_("{0} on {1}"), id, where);
      const core::Message source(N_("doctor rule {}"), id);
      if (rr.outcome == rules::Outcome::kSkip) {
        e.finding.evidence.push_back(
            {fact,
             // TRANSLATORS: {} is what the rule needed and the machine did not say ("the driver version").
             core::Message(N_("not checked: {} unknown"),
                           rules::as_message_arg(rules::text_of(rr.skip_reason, rr.skip_message))),
             source});
      } else if (rr.findings.empty()) {
        e.finding.evidence.push_back(
            {fact, core::Message(N_("passes now (the log may come from another machine, or from before a change)")),
             source});
      } else {
        const auto& mf = rr.findings.front();
        e.finding.evidence.push_back({fact, rules::text_of(mf.message, mf.message_message), source});
        if (!fix_replaced) {
          e.finding.evidence.push_back({core::Message(N_("fix from the log alone")),
                                        rules::text_of(e.finding.fix, e.finding.fix_message), "log_signatures.json"});
          e.finding.set_fix(rules::text_of(mf.fix, mf.fix_message));
          fix_replaced = true;
        }
      }
    }
    if (machine && !e.signature->confirm.empty()) {
      // What would settle the cause on the machine, where no rule of doctor's judges it.
      e.finding.evidence.push_back(
          {core::Message(N_("to confirm on the machine")), core::Message(e.signature->confirm), "log_signatures.json"});
    }
    // The compat answer's reasons and alternatives are messages: the evidence
    // and the fix they extend are rendered in each output's language.
    if (compat && compat_matters(e)) {
      // TRANSLATORS: {} is the machine ("this machine", a file name).
      const core::Message fact = machine ? core::Message(N_("compat (the log's versions + {})"), where)
                                         : core::Message(N_("compat (the log's versions)"));
      e.finding.evidence.push_back(
          {fact, core::Message(N_("TensorFlow {}: {}"), compat->tf, knowledge::compat_verdict_message(compat->verdict)),
           "tfrig compat"});
      for (const auto& c : compat->checks) {
        if (c.verdict != "yes") {
          // TRANSLATORS: {} is a part of the compat answer ("driver", "cuDNN").
          e.finding.evidence.push_back(
              {core::Message(N_("compat: {}"), knowledge::compat_part_message(c.part)),
               core::Message(N_("{0}: {1}"), knowledge::compat_verdict_message(c.verdict), c.reason), "tfrig compat"});
        }
      }
      if (compat->verdict != "yes" && !compat->alternatives.empty()) {
        // TRANSLATORS: a fix ({0}, a whole sentence) and a combination that works ({1}, "Newest TensorFlow for ...").
        e.finding.set_fix(
            rules::Text(core::Message(N_("{0} Or, per tfrig compat: {1}"),
                                      rules::as_message_arg(rules::text_of(e.finding.fix, e.finding.fix_message)),
                                      compat->alternatives.front())));
      }
    }
  }
}

report::Report explain_report(const std::vector<Explained>& findings, const LogAnalysis& a, const rules::Text& source,
                              const report::Report* machine) {
  report::Report r;
  r.source = source.english;
  r.evaluated = true;
  for (const auto& e : findings) r.findings.push_back(e.finding);
  r.summary = rules::summarize(r.findings);
  if (machine) {
    r.target =
        machine->source == "live" ? rules::Text(core::Message(N_("this machine"))) : rules::Text(machine->source);
    r.inventory = machine->inventory;
  }
  const core::MessageArg found = r.summary.total() == 0 ? core::MessageArg(core::Message(N_("no known signature")))
                                                        : rules::summary_counts(r.summary);
  core::Message verdict =
      machine
          ? core::Message::plural(
                // TRANSLATORS: {0} is the log ("stdin", a file name), {1} the number of lines read, {2} what was found
                // ("1 error, 2 warnings"); {3} the machine the findings were judged against.
                NP_("{0}: {1} line read, judged against {3}: {2}", "{0}: {1} lines read, judged against {3}: {2}"),
                a.lines, rules::as_message_arg(source), with_thousands(a.lines), found, rules::as_message_arg(r.target))
          : core::Message::plural(NP_("{0}: {1} line read: {2}", "{0}: {1} lines read: {2}"), a.lines,
                                  rules::as_message_arg(source), with_thousands(a.lines), found);
  if (!a.unrecognised.empty()) {
    verdict = core::Message(
        N_("{0}{1}"), verdict,
        core::Message::plural(NP_("; {} error-looking line not recognised", "; {} error-looking lines not recognised"),
                              a.unrecognised.size(), a.unrecognised.size()));
  }
  r.verdict = std::move(verdict);
  return r;
}

std::string summary_counts(const rules::Summary& s) {
  std::vector<std::string> parts;
  if (s.errors) parts.push_back(trnf("{} error", "{} errors", static_cast<uint64_t>(s.errors), s.errors));
  if (s.warnings) parts.push_back(trnf("{} warning", "{} warnings", static_cast<uint64_t>(s.warnings), s.warnings));
  if (s.infos) parts.push_back(trnf("{} info", "{} infos", static_cast<uint64_t>(s.infos), s.infos));
  std::string out;
  // TRANSLATORS: the separator between counts ("1 error, 2 warnings").
  for (size_t i = 0; i < parts.size(); ++i) out += (i ? _(", ") : "") + parts[i];
  return out;
}

std::string unrecognised_text(const LogAnalysis& a, size_t width) {
  if (a.unrecognised.empty()) return "";
  std::string out = "\n" + _("not recognised (lines that look like errors; no signature matched them)") + "\n";
  for (const auto& g : a.unrecognised)
    out += core::wrap_hanging("  ", fmt::format("{}: {}", g.describe(), g.sample), width) + "\n";
  if (a.unrecognised_not_kept) {
    out += "  " + trf("... and {} more", with_thousands(a.unrecognised_not_kept)) + "\n";
  }
  return out;
}

nlohmann::json analysis_json(const LogAnalysis& a) {
  nlohmann::json facts = nlohmann::json::object();
  for (const auto& [name, f] : a.facts) facts[name] = {{"value", f.value}, {"line", f.line}};
  nlohmann::json unrec = nlohmann::json::array();
  for (const auto& g : a.unrecognised) unrec.push_back({{"text", g.sample}, {"lines", g.lines}, {"count", g.count}});
  nlohmann::json groups = nlohmann::json::array();
  for (const auto& h : a.hits) {
    nlohmann::json values = nlohmann::json::object();
    for (const auto& [name, value] : h.group.values) values[name] = value;
    groups.push_back({{"signature", h.signature->id},
                      {"rule_id", h.signature->rule_id},
                      {"lines", h.group.lines},
                      {"count", h.group.count},
                      {"values", values}});
  }
  return nlohmann::json{{"lines", a.lines},
                        {"bytes", a.bytes},
                        {"truncated_lines", a.truncated_lines},
                        {"signatures", groups},
                        {"facts", facts},
                        {"not_recognised", unrec},
                        {"not_recognised_not_kept", a.unrecognised_not_kept}};
}

// Reads FILE ("-": stdin) through the analyzer, 1 MiB at a time.
core::Result<LogAnalysis> analyze_file(const std::string& path, const SignatureTable& table) {
  const bool is_stdin = path == "-";
  const std::string name = is_stdin ? "stdin" : path;
  std::FILE* f = stdin;
  if (!is_stdin) {
    // A directory, device or socket is refused (/dev/zero never ends); a log
    // is streamed, so its size needs no cap.
    if (auto ok = core::check_input_file(path); !ok) return tl::unexpected(ok.error());
    // O_NONBLOCK: a FIFO with no writer opens at once and reads as empty
    // instead of blocking for ever; reads block again after.
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0) return tl::unexpected(core::errno_error(errno, path, "open"));
    if (const int flags = ::fcntl(fd, F_GETFL); flags >= 0) ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
    f = ::fdopen(fd, "rb");
    if (f == nullptr) {
      const int err = errno;
      ::close(fd);
      return tl::unexpected(core::errno_error(err, path, "open"));
    }
  }
  LogAnalyzer analyzer(table);
  LineSplitter splitter([&](std::string_view line) { analyzer.add_line(line); });
  std::vector<char> buf(1 << 20);
  size_t n = 0;
  // UTF-16 (PowerShell's `>`): the first read says so; the file is then
  // converted whole (a log of that size is a paste, not a stream), up to a cap.
  constexpr size_t kMaxUtf16Bytes = 256u << 20;
  std::string utf16;
  bool first = true;
  while ((n = std::fread(buf.data(), 1, buf.size(), f)) > 0) {
    const std::string_view chunk(buf.data(), n);
    if (first) {
      first = false;
      if (looks_utf16(chunk)) utf16.assign(chunk);
      if (!utf16.empty()) {
        analyzer.add_bytes(n);
        continue;
      }
    } else if (!utf16.empty()) {
      if (utf16.size() + n > kMaxUtf16Bytes) {
        if (!is_stdin) std::fclose(f);
        return core::fail(core::ErrorCode::kParse, name,
                          trf("a UTF-16 log over {} MiB; convert it to UTF-8 first (iconv -f UTF-16 -t UTF-8)",
                              kMaxUtf16Bytes >> 20));
      }
      utf16.append(chunk);
      analyzer.add_bytes(n);
      continue;
    }
    splitter.feed(chunk);
    analyzer.add_bytes(n);
  }
  if (!utf16.empty()) splitter.feed(decode_log_bytes(utf16));
  const bool failed = std::ferror(f) != 0;
  const int err = errno;
  if (!is_stdin) std::fclose(f);
  if (failed) return core::fail(core::ErrorCode::kIo, name, trf("read failed: {}", core::errno_text(err)));
  splitter.finish();
  return analyzer.finish(splitter.truncated_lines());
}

// Runs the command, its stdout and stderr read line by line through the analyzer as they come.
core::Result<CommandLog> analyze_command(const std::vector<std::string>& command, const SignatureTable& table) {
  LogAnalyzer analyzer(table);
  LineSplitter out_lines([&](std::string_view line) { analyzer.add_line(line); });
  LineSplitter err_lines([&](std::string_view line) { analyzer.add_line(line); });
  auto ran = run_command(
      command,
      [&](std::string_view b) {
        out_lines.feed(b);
        analyzer.add_bytes(b.size());
      },
      [&](std::string_view b) {
        err_lines.feed(b);
        analyzer.add_bytes(b.size());
      });
  if (!ran) return tl::unexpected(ran.error());
  out_lines.finish();
  err_lines.finish();
  return CommandLog{analyzer.finish(out_lines.truncated_lines() + err_lines.truncated_lines()), ran->exit_code};
}

}  // namespace tfrig::explain

// The HTML report (src/report/html*.cpp, docs/report.md): escaping, each kind
// of page holding every value of its JSON, hostile input, size, validity.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <regex>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/display_width.h"
#include "core/escape.h"
#include "golden.h"
#include "plan/cost_report.h"
#include "plan/prices.h"
#include "report/command.h"
#include "report/html.h"
#include "report/html_chart.h"
#include "report/html_pages.h"
#include "test_support.h"

namespace tfrig::report::html {
namespace {

using nlohmann::json;

const std::string kHostile = "<script>alert(1)</script>\"'&<img src=x onerror=alert(2)>\xff\xfe\x01";

// Every key, string and number of a JSON document, as the page must show it.
void leaves(const json& j, std::vector<std::string>& out) {
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it) {
      out.push_back(escape(it.key()));
      leaves(it.value(), out);
    }
  } else if (j.is_array()) {
    for (const auto& e : j) leaves(e, out);
  } else if (j.is_string()) {
    out.push_back(escape(j.get<std::string>()));
  } else if (j.is_number()) {
    out.push_back(escape(j.dump()));
  }
}

// The values of `doc` that are not on `page` (empty when all are).
std::vector<std::string> missing_values(const json& doc, const std::string& page) {
  std::vector<std::string> all;
  leaves(doc, all);
  std::vector<std::string> missing;
  for (const auto& v : all) {
    if (page.find(v) == std::string::npos) missing.push_back(v);
  }
  return missing;
}

json run_json(const std::vector<std::string>& args) {
  auto r = test::run_tfrig(args);
  EXPECT_LE(r.exit_code, 2) << r.err;
  return json::parse(r.out);
}

// Replaces every string (not the keys: a snapshot's keys are tfrig's own) with `text`.
void poison_strings(json& j, const std::string& text) {
  if (j.is_string()) {
    j = j.get<std::string>() + text;
  } else if (j.is_structured()) {
    for (auto& e : j) poison_strings(e, text);
  }
}

TEST(HtmlEscape, MarkupAndQuotesBecomeEntities) {
  EXPECT_EQ(escape("<b a=\"1\" c='2'>&amp;</b>"), "&lt;b a=&quot;1&quot; c=&#39;2&#39;&gt;&amp;amp;&lt;/b&gt;");
  EXPECT_EQ(escape("GeForce RTX 4090"), "GeForce RTX 4090");
  EXPECT_EQ(escape("Größe 数据"), "Größe 数据");  // valid UTF-8 stays as it is
}

TEST(HtmlEscape, InvalidUtf8AndControlsBecomeHexAndThePageStaysUtf8) {
  const std::string out = escape(std::string("a\xff\xc3(b\x01\x7f") + "<");
  EXPECT_EQ(out, "a\\xff\\xc3(b\\x01\\x7f&lt;");
  EXPECT_TRUE(core::is_valid_utf8(out));
}

TEST(HtmlEscape, OnlyHttpLinksBecomeLinks) {
  EXPECT_EQ(
      link_or_text("https://docs.nvidia.com/x?a=1&b=2"),
      "<a href=\"https://docs.nvidia.com/x?a=1&amp;b=2\" rel=\"noreferrer\">https://docs.nvidia.com/x?a=1&amp;b=2</a>");
  EXPECT_EQ(link_or_text("javascript:alert(1)"), "javascript:alert(1)");
  EXPECT_EQ(link_or_text("https://x\"onmouseover=\"a"),
            "<a href=\"https://x&quot;onmouseover=&quot;a\" rel=\"noreferrer\">https://x&quot;onmouseover=&quot;a</a>");
}

TEST(HtmlPage, HasCspThatForbidsFetchesAndPrintAndPhoneStyles) {
  Page page{"t<1>", "s", {{"a", "A & B", "<p>x</p>"}, {"b", "B", ""}}, ""};
  const std::string out = render_page(page);
  EXPECT_NE(out.find("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none';"), std::string::npos);
  EXPECT_NE(out.find("@media print"), std::string::npos);
  EXPECT_NE(out.find("@media (max-width:600px)"), std::string::npos);
  EXPECT_NE(out.find("<title>t&lt;1&gt;</title>"), std::string::npos);
  EXPECT_NE(out.find("<h2 id=\"a-h\">A &amp; B</h2>"), std::string::npos);
  EXPECT_EQ(out.find("<script"), std::string::npos);
}

TEST(HtmlPage, SeverityIsAWordNotOnlyAColour) {
  EXPECT_EQ(severity_badge("error"), "<span class=\"sev error\">ERROR</span>");
  EXPECT_EQ(severity_badge("warning"), "<span class=\"sev warning\">WARNING</span>");
}

TEST(HtmlChart, BarChartHasItsNumbersInATableAndATextAlternative) {
  BarChart c;
  c.title = "rates";
  c.value_header = "samples/s";
  c.bars = {{"storage <ssd>", 598021, "598,021", "", false}, {"decode", 410, "410", "shortest", true}};
  c.reference = 711;
  c.reference_label = "GPU demand";
  c.log_scale = true;
  const std::string out = bar_chart(c);
  EXPECT_NE(out.find("role=\"img\""), std::string::npos);
  EXPECT_NE(
      out.find(
          "<title>rates</title><desc>rates. storage &lt;ssd&gt;: 598,021; decode: 410 (shortest); GPU demand.</desc>"),
      std::string::npos);
  EXPECT_NE(out.find("<td>storage &lt;ssd&gt;</td><td>598,021</td>"), std::string::npos);
  EXPECT_NE(out.find("<td>decode</td><td>410</td><td>shortest</td>"), std::string::npos);
  EXPECT_EQ(out.find("<ssd>"), std::string::npos);
}

TEST(HtmlChart, LineChartBreaksAtUnmeasuredSamples) {
  LineChart c;
  c.title = "util";
  c.x = {0, 1, 2, 3};
  c.lines = {{"GPU 0", {10, NAN, 30, 40}}};
  c.bands = {{0, 3, "input bound"}};
  const std::string out = line_chart(c);
  size_t polylines = 0;
  for (size_t p = out.find("<polyline"); p != std::string::npos; p = out.find("<polyline", p + 1)) ++polylines;
  EXPECT_EQ(polylines, 2u);
  EXPECT_NE(out.find("<td>1</td><td>unknown</td>"), std::string::npos);
  EXPECT_NE(out.find("input bound"), std::string::npos);
}

// Times and phases from a broken recording (NaN, 1e300) draw at the edge:
// no "nan" or "inf" in the SVG, and no undefined cast of a huge width.
TEST(HtmlChart, LineChartOfBrokenTimesWritesNoNan) {
  LineChart c;
  c.title = "util";
  c.x = {NAN, 1e300, NAN};
  c.lines = {{"GPU 0", {10, 20, 30}}};
  c.bands = {{NAN, 1e300, "input bound"}, {-1e300, 1e300, "idle"}};
  c.y_max = 0;
  const std::string out = line_chart(c);
  EXPECT_EQ(out.find("nan"), std::string::npos) << out;
  EXPECT_EQ(out.find("inf"), std::string::npos) << out;
  EXPECT_NE(out.find("<svg"), std::string::npos);
}

TEST(HtmlPages, DetectsEachKindOfJsonOutput) {
  EXPECT_EQ(detect_kind(json{{"inventory", json::object()}, {"probes", json::array()}}), PageKind::kDoctor);
  EXPECT_EQ(detect_kind(json{{"gpus", 1}, {"memory", 1}, {"model", 1}}), PageKind::kPlan);
  EXPECT_EQ(detect_kind(json{{"stages", 1}, {"gpu_demand_samples_per_s", 1}}), PageKind::kPipeline);
  EXPECT_EQ(detect_kind(json{{"results", 1}, {"context", 1}}), PageKind::kBench);
  EXPECT_EQ(detect_kind(json{{"whole_run", 1}, {"phases", 1}}), PageKind::kWatch);
  EXPECT_EQ(detect_kind(json{{"nodes", 1}, {"drift", 1}}), PageKind::kFleet);
  EXPECT_EQ(detect_kind(json{{"x", 1}}), std::nullopt);
  EXPECT_EQ(detect_kind(json::array()), std::nullopt);
}

TEST(HtmlPages, AnyShapeOfDocumentRendersAsEveryKind) {
  // tfrig report reads whatever file it is given: wrong types, huge and tiny
  // numbers, unordered times must give a page, never a throw or a hang.
  const std::vector<json> docs = {
      json::parse(R"({"inventory":{"gpus":[{"index":1e300,"numa_node":-1e300,"cpu_affinity":["x",{}],"pci_bus_id":7,
        "pcie_link_gen_current":1e300,"pcie_link_gen_max":3,"pcie_link_width_current":16,"pcie_link_width_max":16,
        "nvlinks":[{"remote_kind":"gpu","active":true,"remote_pci_bus_id":"a"}]}],"gpu_topology":[{"gpu_a":"x","gpu_b":1e300}]},
        "probes":5,"findings":[3,{"severity":7,"evidence":"x","references":[1]}],"summary":{"error":1e300}})"),
      json::parse(R"({"stages":[{"name":"a","samples_per_s":5e-324},{"name":"b","samples_per_s":1.7e308}],
        "gpu_demand_samples_per_s":5e-324,"what_if":"x","predicted_gpu_utilization":"y"})"),
      json::parse(
          R"({"whole_run":1,"phases":[{"start_s":5,"end_s":1}],"series":{"t":[3,2,1,"x"],"gpu_util_percent":[5,[1,2]],
        "cpu_busy_percent":"x"}})"),
      json::parse(
          R"({"results":[{"median":-1,"expected":{"value":0}}],"context":[],"history":[{"median":1e308,"unit":5},{}]})"),
      json::parse(R"({"nodes":[1,{"node":2}],"drift":[{"differing":[{"node":null,"value":[1]}]}],"findings":{"a":1}})"),
      // run_cost of plan and pipeline: an index past the options, wrong types, huge amounts, markup as a currency.
      json::parse(R"({"gpus":[],"memory":{},"model":{},"run_cost":{"options":[{"gpu":5,"gpus":1e300,"run_hours":1e300,
        "run_hours_low":-1,"run_hours_high":1e308,"rent_cost":"x","own_cost":1e300,"rent_month_reserved":1e300,
        "rent_month_released":0,"meets_deadline":"no"},7],"cheapest":7,"currency":"<b>","steps":0,"samples":1e300,
        "deadline_hours":-5,"exchange_rate":{"rate":"x"},"runs_per_month":[1],"notes":[1,"<i>"]}})"),
      json::parse(R"({"stages":[],"gpu_demand_samples_per_s":1,"run_cost":{"rows":[{"change":[],"gpu_utilization":1e300,
        "rent_cost":-1e300},3],"currency":7,"exchange_rate":{"from":1,"to":"CNY","rate":1e-300,"source":"<s>"}}})"),
      json::parse(R"([1,2,3])"), json(nullptr), json("text")};
  for (const auto& doc : docs) {
    for (PageKind kind : {PageKind::kDoctor, PageKind::kPlan, PageKind::kPipeline, PageKind::kBench, PageKind::kWatch,
                          PageKind::kFleet}) {
      std::string page;
      EXPECT_NO_THROW(page = render_documents({{kind, doc, "x"}})) << kind_name(kind) << " " << doc.dump();
      EXPECT_NE(page.find("</html>"), std::string::npos);
    }
  }
}

TEST(HtmlPages, DoctorPageHoldsEveryFindingAndValueWorstFirst) {
  const std::string snap = test::data_dir() + "/snapshots/gpu_box_two_a100_old_driver.json";
  json doc = run_json({"doctor", "--snapshot", snap, "--format", "json"});
  const std::string page = render_documents({{PageKind::kDoctor, doc, snap}});
  EXPECT_EQ(missing_values(doc, page), std::vector<std::string>{});
  // Worst first: the error's title comes before every warning's.
  size_t error_at = std::string::npos;
  size_t first_warning_at = std::string::npos;
  for (const auto& f : doc["findings"]) {
    const size_t at = page.find("</span> " + escape(f["title"].get<std::string>()) + "</h3>");
    ASSERT_NE(at, std::string::npos) << f["title"];
    if (f["severity"] == "error") error_at = std::min(error_at, at);
    if (f["severity"] == "warning") first_warning_at = std::min(first_warning_at, at);
  }
  ASSERT_NE(error_at, std::string::npos);
  EXPECT_LT(error_at, first_warning_at);
  // The fix's command, copyable on its own.
  EXPECT_NE(page.find("<pre class=\"fix\"><code>sudo ubuntu-drivers install --gpgpu</code></pre>"), std::string::npos);
}

TEST(HtmlPages, HostileTextInEveryFieldOfASnapshotStaysText) {
  const std::string snap = test::data_dir() + "/snapshots/gpu_box_two_a100_old_driver.json";
  json doc = run_json({"doctor", "--snapshot", snap, "--format", "json"});
  poison_strings(doc, kHostile);
  const std::string page = render_documents({{PageKind::kDoctor, doc, kHostile}});
  EXPECT_TRUE(core::is_valid_utf8(page));
  EXPECT_EQ(page.find("<script"), std::string::npos);
  EXPECT_EQ(page.find("<img"), std::string::npos);
  EXPECT_EQ(page.find("\"'&"), std::string::npos);
  const std::string escaped = escape(kHostile);
  EXPECT_EQ(escaped,
            "&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#39;&amp;&lt;img src=x onerror=alert(2)&gt;\\xff\\xfe\\x01");
  EXPECT_NE(page.find(escaped), std::string::npos);
  // Every poisoned value is still there, as text.
  EXPECT_EQ(missing_values(doc, page), std::vector<std::string>{});
  // The hostile GPU name is in the topology, link and inventory tables, never as markup.
  EXPECT_NE(page.find("GPU 0 NVIDIA A100-SXM4-80GB" + escaped), std::string::npos);
}

class HtmlPagesFromCommands : public ::testing::Test {
 protected:
  test::TempDir tmp;
};

TEST_F(HtmlPagesFromCommands, PlanPipelineWatchFleetPagesHoldEveryValue) {
  const std::string snap = test::data_dir() + "/snapshots/gpu_box_two_a100_old_driver.json";
  json plan = run_json({"plan", "--model", "resnet50", "--snapshot", snap, "--format", "json"});
  std::string page = render_documents({{PageKind::kPlan, plan, "plan"}});
  EXPECT_EQ(missing_values(plan, page), std::vector<std::string>{});
  EXPECT_NE(page.find("GPU memory per GPU against its VRAM"), std::string::npos);

  std::filesystem::create_directory(tmp.file("data"));
  test::write_file(tmp.file("data/cifar10.tfrecord"),
                   test::read_file(test::data_dir() + "/tfrecord/tfx__cifar10_test.tfrecord"));
  json pipeline = run_json({"pipeline", "--data", tmp.file("data"), "--gpu", "NVIDIA GeForce RTX 4090", "--seconds",
                            "0.05", "--no-pack", "--format", "json"});
  page = render_documents({{PageKind::kPipeline, pipeline, "pipeline"}});
  EXPECT_EQ(missing_values(pipeline, page), std::vector<std::string>{});
  EXPECT_NE(page.find("shortest"), std::string::npos);
  // The demand line's row shows the demand as the bars show rates, not as a
  // raw double ("751.927").
  const double demand = pipeline["gpu_demand_samples_per_s"].get<double>();
  ASSERT_NE(demand, std::floor(demand));
  EXPECT_EQ(page.find(fmt::format(">{:g}<", demand)), std::string::npos) << demand;

  json watch = run_json({"watch", "--replay", test::data_dir() + "/watch/io-heavy.jsonl", "--format", "json"});
  page = render_documents({{PageKind::kWatch, watch, "watch"}});
  EXPECT_EQ(missing_values(watch, page), std::vector<std::string>{});
  EXPECT_NE(page.find("io bound"), std::string::npos);

  for (const std::string node : {"Young768__profiling", "eler__git_examples"}) {
    auto r = test::run_tfrig(
        {"import", test::data_dir() + "/nvidia-bug-report/" + node + ".log.gz", "-o", tmp.file(node + ".json")});
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  json fleet = run_json(
      {"fleet", tmp.file("Young768__profiling.json"), tmp.file("eler__git_examples.json"), "--format", "json"});
  page = render_documents({{PageKind::kFleet, fleet, "fleet"}});
  EXPECT_EQ(missing_values(fleet, page), std::vector<std::string>{});
  // A differing value is marked with a sign as well as its background.
  EXPECT_NE(page.find("<td class=\"drift\"><span class=\"drift\">\u2260 Quadro RTX 5000</span></td>"),
            std::string::npos);
}

// The text of one section of a page (its id), without the folded JSON after it.
std::string section_text(const std::string& page, const std::string& id) {
  const size_t at = page.find("<section id=\"" + id + "\"");
  if (at == std::string::npos) return "";
  return page.substr(at, page.find("</section>", at) - at);
}

TEST_F(HtmlPagesFromCommands, PlanAndPipelineCostSectionsShowMoneyAsPeopleReadIt) {
  // The China price book (CNY), a rent and power on the command line: the plan's run_cost as a
  // section of its own, every amount with the currency's symbol, never the JSON's raw double.
  const std::string book = test::data_dir() + "/../../data/prices.cn.example.yaml";
  json plan = run_json({"plan", "--model", "resnet50", "--batch", "256", "--epochs", "30", "--prices", book, "--rent",
                        "RTX 4090 D=1.98", "--kwh", "0.8", "--runs-per-month", "4", "--format", "json"});
  ASSERT_TRUE(plan["run_cost"].is_object());
  ASSERT_EQ(plan["run_cost"]["currency"], "CNY");
  const std::string page = render_documents({{PageKind::kPlan, plan, "plan"}});
  const std::string cost = section_text(page, "cost");
  ASSERT_FALSE(cost.empty()) << page;
  size_t priced = 0;
  for (const auto& o : plan["run_cost"]["options"]) {
    for (const char* key : {"rent_cost", "own_cost", "cost_per_1k_samples"}) {
      if (!o[key].is_number()) continue;
      ++priced;
      EXPECT_NE(cost.find(escape(plan::format_money(o[key].get<double>(), "CNY"))), std::string::npos)
          << key << " " << o[key];
      // A double with more digits than money has (186.83486...) is the raw JSON: never in the section.
      const std::string raw = o[key].dump();
      if (raw.size() > raw.find('.') + 4) {
        EXPECT_EQ(cost.find(raw), std::string::npos) << "raw " << key << " " << o[key];
      }
    }
    if (o["rent_month_reserved"].is_number()) {
      EXPECT_NE(cost.find(escape(plan::format_money(o["rent_month_reserved"].get<double>(), "CNY"))),
                std::string::npos);
    }
  }
  EXPECT_GE(priced, 3u);
  const size_t cheapest = plan["run_cost"]["cheapest"].get<size_t>();
  EXPECT_NE(cost.find(escape(plan["run_cost"]["options"][cheapest]["gpu"].get<std::string>() + " *")),
            std::string::npos);
  // The ranking table's numbers are formatted too ("1,216", "32.0 GiB", "$1,999.00").
  const std::string ranking = section_text(page, "ranking");
  const json& first = plan["gpus"][0];
  EXPECT_NE(ranking.find(">" + human_number(first["est_samples_per_s"].get<double>()) + "<"), std::string::npos);
  EXPECT_EQ(ranking.find(first["est_samples_per_s"].dump()), std::string::npos);

  // pipeline --currency (shared with plan): the what-ifs' cost in yuan.
  std::filesystem::create_directory(tmp.file("data"));
  test::write_file(tmp.file("data/cifar10.tfrecord"),
                   test::read_file(test::data_dir() + "/tfrecord/tfx__cifar10_test.tfrecord"));
  json pipeline =
      run_json({"pipeline", "--data", tmp.file("data"), "--gpu", "NVIDIA GeForce RTX 4090", "--seconds", "0.05",
                "--no-pack", "--epochs", "2", "--rent", "RTX 4090=1.98", "--currency", "CNY", "--format", "json"});
  ASSERT_EQ(pipeline["run_cost"]["currency"], "CNY");
  ASSERT_FALSE(pipeline["run_cost"]["rows"].empty());
  const std::string pcost = section_text(render_documents({{PageKind::kPipeline, pipeline, "pipeline"}}), "cost");
  for (const auto& r : pipeline["run_cost"]["rows"]) {
    EXPECT_NE(pcost.find(escape(plan::format_money(r["rent_cost"].get<double>(), "CNY"))), std::string::npos) << r;
  }
}

// What a reader sees of a section: its text without the folded raw JSON
// (which holds every value whatever the sections above it show).
std::string section_shown(const std::string& page, const std::string& id) {
  std::string s = section_text(page, id);
  const std::string open = "<details class=\"raw\">";
  for (size_t a = s.find(open); a != std::string::npos; a = s.find(open, a)) {
    const size_t b = s.find("</details>", a);
    s.erase(a, b == std::string::npos ? std::string::npos : b + std::string("</details>").size() - a);
  }
  return s;
}

// Each of `values` (read from the command's JSON by the keys the page reads)
// is shown in section `id`, outside the raw JSON.
void expect_shown(const std::string& page, const std::string& id, const std::vector<std::string>& values) {
  const std::string shown = section_shown(page, id);
  ASSERT_FALSE(shown.empty()) << "no section " << id;
  for (const auto& v : values) {
    ASSERT_FALSE(v.empty()) << id;
    EXPECT_NE(shown.find(escape(v)), std::string::npos) << "section " << id << " does not show " << v;
  }
}

std::string text_at(const json& j, const std::string& key) { return j.at(key).get<std::string>(); }

// The pages read each command's JSON by key: a field renamed in a command's
// output must fail here, not leave a section empty (the folded raw JSON would
// still hold every value, so the tests above would pass). Each value below is
// read with at() from the command's real output, by the key the page reads.
TEST_F(HtmlPagesFromCommands, EachSectionShowsWhatItReadsFromTheCommandsJson) {
  const std::string snap = test::data_dir() + "/snapshots/gpu_box_two_a100_old_driver.json";
  const json doctor = run_json({"doctor", "--snapshot", snap, "--format", "json"});
  std::string page = render_documents({{PageKind::kDoctor, doctor, "doctor"}});
  const json& inv = doctor.at("inventory");
  expect_shown(page, "verdict", {text_at(doctor, "verdict"), text_at(inv.at("host"), "hostname")});
  const json& finding = doctor.at("findings").at(0);
  expect_shown(page, "findings", {text_at(finding, "title"), text_at(finding, "rule_id"), text_at(finding, "entity")});
  expect_shown(page, "topology", {text_at(inv.at("gpus").at(0), "pci_bus_id")});
  expect_shown(page, "inventory", {text_at(inv.at("driver"), "version")});

  const json plan = run_json({"plan", "--model", "resnet50", "--snapshot", snap, "--epochs", "2", "--rent",
                              "RTX 4090=1.98", "--format", "json"});
  page = render_documents({{PageKind::kPlan, plan, "plan"}});
  const json& machine = plan.at("machine");
  expect_shown(page, "plan",
               {text_at(plan.at("model"), "name"), text_at(plan, "precision"), text_at(plan, "optimizer"),
                text_at(machine, "source"), text_at(machine.at("staves").at(0), "need")});
  const json& first = plan.at("gpus").at(0);
  expect_shown(page, "memory", {text_at(first, "name"), "here: " + text_at(machine.at("gpus").at(0), "name")});
  expect_shown(page, "ranking", {text_at(first, "name"), human_number(first.at("est_samples_per_s").get<double>())});
  const json& option = plan.at("run_cost").at("options").at(0);
  expect_shown(page, "cost", {text_at(option, "gpu"), plan::format_hours(option.at("run_hours").get<double>())});

  std::filesystem::create_directory(tmp.file("data"));
  test::write_file(tmp.file("data/cifar10.tfrecord"),
                   test::read_file(test::data_dir() + "/tfrecord/tfx__cifar10_test.tfrecord"));
  const json pipeline =
      run_json({"pipeline", "--data", tmp.file("data"), "--gpu", "NVIDIA GeForce RTX 4090", "--seconds", "0.05",
                "--no-pack", "--epochs", "2", "--rent", "RTX 4090=1.98", "--format", "json"});
  page = render_documents({{PageKind::kPipeline, pipeline, "pipeline"}});
  expect_shown(page, "verdict", {text_at(pipeline, "data_dir"), text_at(pipeline, "model"), text_at(pipeline, "gpu")});
  expect_shown(page, "barrel", {text_at(pipeline.at("stages").at(0), "detail")});
  const json& what_if = pipeline.at("what_if").at(0);
  expect_shown(page, "whatif", {text_at(what_if, "change"), text_at(what_if, "detail")});
  const json& advice = pipeline.at("advice").at(0);
  expect_shown(page, "advice", {text_at(advice, "problem"), text_at(advice, "code")});
  expect_shown(page, "cost", {text_at(pipeline.at("run_cost").at("rows").at(0), "change")});

  const json watch = run_json({"watch", "--replay", test::data_dir() + "/watch/io-heavy.jsonl", "--format", "json"});
  page = render_documents({{PageKind::kWatch, watch, "watch"}});
  expect_shown(page, "verdict", {text_at(watch, "explanation"), text_at(watch.at("run"), "source")});
  expect_shown(page, "timeline", {text_at(watch.at("phases").at(0), "why")});

  for (const std::string node : {"Young768__profiling", "eler__git_examples"}) {
    auto r = test::run_tfrig(
        {"import", test::data_dir() + "/nvidia-bug-report/" + node + ".log.gz", "-o", tmp.file(node + ".json")});
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  const json fleet = run_json(
      {"fleet", tmp.file("Young768__profiling.json"), tmp.file("eler__git_examples.json"), "--format", "json"});
  page = render_documents({{PageKind::kFleet, fleet, "fleet"}});
  const json& node = fleet.at("nodes").at(0);
  expect_shown(page, "summary", {text_at(node, "node"), text_at(node, "hostname")});
  const json& drift = fleet.at("drift").at(0);
  expect_shown(page, "drift", {text_at(drift, "title"), text_at(drift, "fact")});
  const json& across = fleet.at("findings").at(0);
  expect_shown(page, "findings", {text_at(across, "title"), text_at(across, "rule_id")});
  expect_shown(page, "odd", {text_at(fleet.at("odd_nodes").at(0), "node")});

  const json bench = run_json({"bench", "crc32c", "--format", "json", "--quick", "--repetitions", "2",
                               "--sample-seconds", "0.05", "--no-history"});
  page = render_documents({{PageKind::kBench, bench, "bench"}});
  const json& result = bench.at("results").at(0);
  expect_shown(page, "summary",
               {text_at(bench.at("context"), "hostname"), text_at(result, "id"), text_at(result, "metric"),
                text_at(result, "unit")});
}

TEST_F(HtmlPagesFromCommands, FormatHtmlWritesAFileAndReportCombinesInputs) {
  const std::string snap = test::data_dir() + "/snapshots/gpu_box_two_a100_old_driver.json";
  auto r = test::run_tfrig({"doctor", "--snapshot", snap, "--format", "html", "-o", tmp.file("d.html")});
  EXPECT_EQ(r.exit_code, 2) << r.err;  // the snapshot's findings include an error
  EXPECT_EQ(r.out, "");
  const std::string doctor_page = test::read_file(tmp.file("d.html"));
  EXPECT_EQ(doctor_page.rfind("<!DOCTYPE html>", 0), 0u);

  r = test::run_tfrig(
      {"watch", "--replay", test::data_dir() + "/watch/cpu-heavy.jsonl", "--format", "json", "-o", tmp.file("w.json")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = test::run_tfrig(
      {"report", "-o", tmp.file("all.html"), snap, tmp.file("w.json"), test::data_dir() + "/watch/io-heavy.jsonl"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string all = test::read_file(tmp.file("all.html"));
  EXPECT_NE(all.find("tfrig report: 3 results"), std::string::npos);
  EXPECT_NE(all.find("id=\"d1-findings\""), std::string::npos);  // the plain snapshot was judged
  EXPECT_NE(all.find("id=\"d3-timeline\""), std::string::npos);
  EXPECT_NE(all.find("<polyline"), std::string::npos);  // the recording's samples drawn

  test::write_file(tmp.file("other.json"), "{\"hello\": 1}");
  r = test::run_tfrig({"report", "-o", tmp.file("x.html"), tmp.file("other.json")});
  EXPECT_EQ(r.exit_code, 65);
  EXPECT_NE(r.err.find("other.json"), std::string::npos) << r.err;
  EXPECT_FALSE(test::path_exists(tmp.file("x.html")));
  test::write_file(tmp.file("bad.json"), "{\"inventory\": [");
  r = test::run_tfrig({"report", "-o", tmp.file("x.html"), tmp.file("bad.json")});
  EXPECT_EQ(r.exit_code, 65);
  EXPECT_NE(r.err.find("bad.json: byte"), std::string::npos) << r.err;
  r = test::run_tfrig({"report", "-o", tmp.file("x.html"), tmp.file("absent.json")});
  EXPECT_EQ(r.exit_code, 66);
}

TEST_F(HtmlPagesFromCommands, TopologyShowsEachNvlinkPairOnceAndLinksBelowMax) {
  // A real bug report of two RTX A6000 joined by four NVLinks.
  auto r = test::run_tfrig({"import", test::data_dir() + "/nvidia-bug-report/pavana27__Lambda-Bug-report.log.gz", "-o",
                            tmp.file("a6000.json")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json doc = run_json({"doctor", "--snapshot", tmp.file("a6000.json"), "--format", "json"});
  std::string page = render_documents({{PageKind::kDoctor, doc, "a6000"}});
  EXPECT_NE(page.find("<td>GPU 0 \u2194 GPU 1</td><td>NVLink</td>"), std::string::npos);
  size_t pairs = 0;
  for (size_t p = page.find("\u2194"); p != std::string::npos; p = page.find("\u2194", p + 1)) ++pairs;
  EXPECT_EQ(pairs, 1u);
  EXPECT_NE(page.find("<td>GPU 0 NVIDIA RTX A6000</td><td>Gen4 x16 / Gen4 x16</td><td></td>"), std::string::npos);
  // The 8-GPU machine's links run at Gen1 of Gen3: each marked with a word.
  doc =
      run_json({"doctor", "--snapshot", test::data_dir() + "/snapshots/eight_quadro_rtx5000.json", "--format", "json"});
  page = render_documents({{PageKind::kDoctor, doc, "eight"}});
  EXPECT_NE(page.find("<td>GPU 7 Quadro RTX 5000</td><td>Gen1 x16 / Gen3 x16</td><td>below</td>"), std::string::npos);
}

TEST_F(HtmlPagesFromCommands, EightGpuMachineIsUnderOneMegabyteAndTidyFindsNoError) {
  const std::string snap = test::data_dir() + "/snapshots/eight_quadro_rtx5000.json";
  auto r = test::run_tfrig({"doctor", "--snapshot", snap, "--format", "html", "-o", tmp.file("d8.html")});
  ASSERT_LE(r.exit_code, 2) << r.err;
  const std::string page = test::read_file(tmp.file("d8.html"));
  EXPECT_LT(page.size(), 1000000u);
  for (int gpu = 0; gpu < 8; ++gpu)
    EXPECT_NE(page.find("GPU " + std::to_string(gpu) + " Quadro RTX 5000"), std::string::npos);
  const std::string tidy = test::find_program("tidy");
  if (tidy.empty()) GTEST_SKIP() << "tidy not installed (scripts/deps-report.txt)";
  // tidy: exit 2 = errors. Warnings are about SVG attributes its HTML5 tables lack.
  auto t = test::run_command({tidy, "-q", "-e", "--show-warnings", "no", tmp.file("d8.html")});
  EXPECT_LT(t.exit_code, 2) << t.output;
}

// ---- the page in Chinese ----------------------------------------------------

// Every locale variable set, so the caller's own environment never decides.
test::RunOptions in_locale(const std::string& lang) {
  test::RunOptions o;
  o.cwd = test::data_dir();
  o.env = {"LANGUAGE=", "LC_ALL=", "LC_MESSAGES=", "LANG=" + lang};
  return o;
}

const char* kZhSnapshot = "snapshots/gpu_box_two_a100_old_driver.json";

// The words of the page frame, one a line: title, headings, table headers and
// captions, row labels, badges, folded parts, the table of contents, the
// footer (its version as <VERSION>), each once. Data cells are left out:
// they hold the command's values, not the page's words.
std::string page_frame(const std::string& page) {
  static const std::regex kFrame(
      R"re(<(h1|h2|h4|th|caption|figcaption|summary|strong|nav|p class="footer"|span class="sev[^"]*")[^>]*>([\s\S]*?)</(h1|h2|h4|th|caption|figcaption|summary|strong|nav|p|span)>)re");
  static const std::regex kTag("<[^>]*>");
  std::string out;
  std::set<std::string> seen;
  for (auto it = std::sregex_iterator(page.begin(), page.end(), kFrame); it != std::sregex_iterator(); ++it) {
    std::string text = std::regex_replace((*it)[2].str(), kTag, "");
    for (const auto& [entity, ch] : std::vector<std::pair<std::string, std::string>>{
             {"&lt;", "<"}, {"&gt;", ">"}, {"&quot;", "\""}, {"&#39;", "'"}, {"&amp;", "&"}}) {
      for (size_t at = text.find(entity); at != std::string::npos; at = text.find(entity, at + ch.size()))
        text.replace(at, entity.size(), ch);
    }
    if (const size_t at = text.find(TFRIG_VERSION); at != std::string::npos)
      text.replace(at, std::string(TFRIG_VERSION).size(), "<VERSION>");
    // A JSON key as a column header is the data's, not the page's word.
    static const std::regex kKey("[a-z0-9_]+");
    if (text.empty() || std::regex_match(text, kKey)) continue;
    const std::string line = (*it)[1].str().substr(0, (*it)[1].str().find(' ')) + ": " + text + "\n";
    if (seen.insert(line).second) out += line;  // each once: the words, not how often
  }
  return out;
}

bool has_chinese(std::string_view s) {
  for (size_t i = 0; i + 2 < s.size(); ++i) {
    // U+4E00..U+9FFF (CJK Unified Ideographs) in UTF-8: E4 B8 80 .. E9 BF BF.
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0xE4 && c <= 0xE9) return true;
  }
  return false;
}

std::set<std::string> ids_of(const std::string& page) {
  static const std::regex kId(R"re( id="([^"]*)")re");
  std::set<std::string> out;
  for (auto it = std::sregex_iterator(page.begin(), page.end(), kId); it != std::sregex_iterator(); ++it)
    out.insert((*it)[1].str());
  return out;
}

TEST(HtmlI18n, ChineseDoctorAndWatchPageFramesMatchTheReviewedGoldens) {
  auto r =
      test::run_tfrig({"--lang", "zh_CN", "doctor", "--snapshot", kZhSnapshot, "--format", "html"}, in_locale("C"));
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.out.find("<html lang=\"zh-CN\">"), std::string::npos);
  EXPECT_TRUE(test::matches_golden(test::golden_path("report/doctor_page_frame.zh_CN.txt"), page_frame(r.out)));
  // A watch page's own words (its verdicts, chart, phases); a replay is the same every run.
  auto watch = test::run_tfrig({"--lang", "zh_CN", "watch", "--replay", "watch/io-heavy.jsonl", "--format", "html"},
                               in_locale("C"));
  EXPECT_EQ(watch.exit_code, 0) << watch.err;
  EXPECT_TRUE(test::matches_golden(test::golden_path("report/watch_page_frame.zh_CN.txt"), page_frame(watch.out)));
  // The locale chooses the same words as --lang.
  auto env = test::run_tfrig({"doctor", "--snapshot", kZhSnapshot, "--format", "html"}, in_locale("zh_CN.UTF-8"));
  EXPECT_EQ(env.out, r.out);
}

TEST(HtmlI18n, EnglishPageSaysEnAndTheDataAnchorsAndKeysDoNotChangeWithTheLanguage) {
  auto en = test::run_tfrig({"doctor", "--snapshot", kZhSnapshot, "--format", "html"}, in_locale("C.UTF-8"));
  auto zh =
      test::run_tfrig({"--lang", "zh_CN", "doctor", "--snapshot", kZhSnapshot, "--format", "html"}, in_locale("C"));
  ASSERT_EQ(en.exit_code, zh.exit_code) << en.err << zh.err;
  EXPECT_NE(en.out.find("<html lang=\"en\">"), std::string::npos);
  EXPECT_FALSE(has_chinese(page_frame(en.out))) << page_frame(en.out);
  EXPECT_TRUE(has_chinese(page_frame(zh.out)));
  // Anchors and chart ids come from the data, not from the words.
  EXPECT_EQ(ids_of(zh.out), ids_of(en.out));
  // The Chinese page holds every key and value of the Chinese JSON, and every
  // key of the English JSON: the keys are the same in both languages.
  const json en_doc =
      json::parse(test::run_tfrig({"doctor", "--snapshot", kZhSnapshot, "--format", "json"}, in_locale("C")).out);
  const json zh_doc = json::parse(
      test::run_tfrig({"--lang", "zh_CN", "doctor", "--snapshot", kZhSnapshot, "--format", "json"}, in_locale("C"))
          .out);
  EXPECT_EQ(missing_values(zh_doc, zh.out), std::vector<std::string>{});
  std::vector<std::string> en_keys;
  std::function<void(const json&)> keys = [&](const json& j) {
    if (j.is_object()) {
      for (auto it = j.begin(); it != j.end(); ++it) {
        en_keys.push_back(it.key());
        keys(it.value());
      }
    } else if (j.is_array()) {
      for (const auto& e : j) keys(e);
    }
  };
  keys(en_doc);
  // A key is the whole text of an element: a row's <code>, a column's <th>, an area's <h3>.
  // (The key "inventory" itself is the page's section "Inventory by area".)
  for (const auto& k : en_keys) {
    if (k == "inventory") continue;
    EXPECT_NE(zh.out.find(">" + escape(k) + "</"), std::string::npos) << k;
  }
  // A JSON output under a Chinese locale stays English (the page's data source).
  auto json_zh_locale =
      test::run_tfrig({"doctor", "--snapshot", kZhSnapshot, "--format", "json"}, in_locale("zh_CN.UTF-8"));
  EXPECT_EQ(json::parse(json_zh_locale.out)["findings"], en_doc["findings"]);
}

// The Chinese doctor page shows the inventory in the terminal's words (the raw
// JSON folded and marked raw), evidence sources in the page's language;
// a page tfrig report builds from English JSON says so, in Chinese only.
TEST(HtmlI18n, InventoryInTheTerminalsWordsAndANoticeOnPagesFromJsonFiles) {
  auto zh =
      test::run_tfrig({"--lang", "zh_CN", "doctor", "--snapshot", kZhSnapshot, "--format", "html"}, in_locale("C"));
  ASSERT_NE(zh.out.find("<pre class=\"inventory\">"), std::string::npos);
  const size_t pre = zh.out.find("<pre class=\"inventory\">");
  const std::string inventory = zh.out.substr(pre, zh.out.find("</pre>", pre) - pre);
  auto text =
      test::run_tfrig({"--lang", "zh_CN", "doctor", "--snapshot", kZhSnapshot, "--color", "never"}, in_locale("C"));
  EXPECT_NE(text.out.find("交换分区"), std::string::npos);
  EXPECT_NE(inventory.find("交换分区"), std::string::npos) << inventory.substr(0, 400);
  EXPECT_EQ(inventory.find("memory_total_bytes"), std::string::npos);
  EXPECT_NE(zh.out.find("<details class=\"raw\">"), std::string::npos);
  EXPECT_NE(zh.out.find("知识库 tf_builds.json"), std::string::npos);
  EXPECT_EQ(zh.out.find("class=\"notice\""), std::string::npos) << "a command's own page is all in one language";

  test::TempDir dir;
  const std::string doc = dir.file("d.json");
  {
    std::ofstream(doc, std::ios::binary)
        << test::run_tfrig({"doctor", "--snapshot", kZhSnapshot, "--format", "json"}, in_locale("C")).out;
  }
  auto from_zh = test::run_tfrig({"--lang", "zh_CN", "report", "-o", "-", doc}, in_locale("C"));
  EXPECT_EQ(from_zh.exit_code, 0) << from_zh.err;
  EXPECT_NE(from_zh.out.find("<p class=\"notice\" role=\"note\">此页由 JSON 文件生成"), std::string::npos);
  auto from_en = test::run_tfrig({"report", "-o", "-", doc}, in_locale("C"));
  EXPECT_EQ(from_en.out.find("class=\"notice\""), std::string::npos)
      << "English prose on an English page needs no notice";
}

TEST(HtmlI18n, ChartLabelsAreCutByDisplayWidthAndKeptWholeInTheTable) {
  BarChart c;
  c.title = "t";
  c.value_header = "v";
  const std::string label = "把数据集缓存到内存并且使用更快的存储设备";  // 20 characters, 40 columns
  c.bars.push_back({label, 1, "1", "", false});
  const std::string html = bar_chart(c);
  // The label area (202px) at one em (12.5px) a CJK character: 15 characters and the ellipsis;
  // the whole label is the tooltip and stays whole in the table.
  EXPECT_NE(html.find("<title>" + label + "</title>把数据集缓存到内存并且使用更快\u2026</text>"), std::string::npos)
      << html;
  EXPECT_NE(html.find("<td>" + label + "</td>"), std::string::npos);
  // A long GPU name in capitals and digits (8.5px each at most): cut before the chart's left edge.
  BarChart g;
  g.title = "t";
  g.value_header = "v";
  const std::string gpu = "NVIDIA RTX PRO 6000 BLACKWELL SERVER EDITION 96GB";
  g.bars.push_back({gpu, 1, "1", "", false});
  const std::string gh = bar_chart(g);
  const size_t at = gh.find("<title>" + gpu + "</title>");
  ASSERT_NE(at, std::string::npos) << gh;
  const std::string shown = gh.substr(at + gpu.size() + 15, gh.find("</text>", at) - at - gpu.size() - 15);
  EXPECT_LE(8.5 * static_cast<double>(core::display_width(shown)), 202.0) << shown;
  // A label that fits is shown whole, without a tooltip.
  BarChart f;
  f.title = "t";
  f.value_header = "v";
  f.bars.push_back({"NVIDIA A100-SXM4-80GB", 1, "1", "", false});
  EXPECT_NE(bar_chart(f).find(">NVIDIA A100-SXM4-80GB</text>"), std::string::npos);
}

}  // namespace
}  // namespace tfrig::report::html

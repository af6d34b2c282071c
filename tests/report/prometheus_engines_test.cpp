// The real engines: tfrig writes the textfile of three fixture machines
// (`doctor --snapshot` of imported nvidia-bug-reports: a healthy one, one
// with a lost GPU, one with x8-of-x16 links), one node_exporter per machine
// serves its textfile directory, and one Prometheus scrapes the three and
// evaluates deploy/prometheus/tfrig-rules.yml. The test asks Prometheus'
// HTTP API for the values and the alerts. Every service runs on a loopback
// port the test picked and is stopped when the test ends, failed or not.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fcntl.h>
#include <map>
#include <optional>
#include <thread>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "report/command.h"
#include "test_support.h"

namespace tfrig {
namespace {

using Clock = std::chrono::steady_clock;

// A port on 127.0.0.1 that was free a moment ago (the kernel's pick).
int free_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  int port = -1;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 &&
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0) {
    port = ntohs(addr.sin_port);
  }
  ::close(fd);
  return port;
}

struct HttpResponse {
  int status = 0;  // 0: no answer
  std::string body;
};

// GET over HTTP/1.0 on 127.0.0.1 (both engines answer it; no client library needed).
HttpResponse http_get(int port, const std::string& target) {
  HttpResponse r;
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  timeval tv{5, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(static_cast<uint16_t>(port));
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    ::close(fd);
    return r;
  }
  const std::string req = "GET " + target + " HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n";
  if (::send(fd, req.data(), req.size(), MSG_NOSIGNAL) != static_cast<ssize_t>(req.size())) {
    ::close(fd);
    return r;
  }
  std::string raw;
  char buf[8192];
  ssize_t n = 0;
  while ((n = ::recv(fd, buf, sizeof buf, 0)) > 0) raw.append(buf, static_cast<size_t>(n));
  ::close(fd);
  const size_t sp = raw.find(' ');
  const size_t head_end = raw.find("\r\n\r\n");
  if (sp == std::string::npos || head_end == std::string::npos) return r;
  r.status = std::atoi(raw.c_str() + sp + 1);
  r.body = raw.substr(head_end + 4);
  return r;
}

std::string url_encode(const std::string& s) {
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      char hex[4];
      std::snprintf(hex, sizeof hex, "%%%02X", c);
      out += hex;
    }
  }
  return out;
}

// A service process with its log in a file; SIGTERM, then SIGKILL after 10 s,
// when it goes out of scope.
class Service {
 public:
  Service(std::string name, const std::vector<std::string>& argv, const std::string& log_path)
      : name_(std::move(name)), log_path_(log_path) {
    const int log_fd = ::open(log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    pid_ = test::spawn(argv, log_fd);
    ::close(log_fd);
  }
  ~Service() { stop(); }
  Service(const Service&) = delete;
  Service& operator=(const Service&) = delete;

  bool running() {
    if (pid_ <= 0) return false;
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      return false;
    }
    return true;
  }
  void stop() {
    if (!running()) return;
    ::kill(pid_, SIGTERM);
    const auto deadline = Clock::now() + std::chrono::seconds(10);
    while (Clock::now() < deadline) {
      int status = 0;
      if (::waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    ::kill(pid_, SIGKILL);
    test::wait_status(pid_);
    pid_ = -1;
  }
  std::string log() const { return name_ + " log:\n" + test::read_file(log_path_); }

 private:
  std::string name_;
  std::string log_path_;
  pid_t pid_ = -1;
};

// Polls until pred() holds or the time is up (a scrape or a rule evaluation
// is an event in another process: there is nothing to block on).
template <class Pred>
bool wait_for(Pred pred, std::chrono::seconds limit) {
  const auto deadline = Clock::now() + limit;
  while (Clock::now() < deadline) {
    if (pred()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return pred();
}

// Starts a service on a fresh port; a port taken between the pick and the
// bind (the process exits) is retried with another.
std::unique_ptr<Service> start_on_free_port(const std::string& name, const std::string& log_path,
                                            const std::function<std::vector<std::string>(int)>& argv_for,
                                            const std::string& ready_path, int& port) {
  for (int attempt = 0; attempt < 3; ++attempt) {
    port = free_port();
    auto service = std::make_unique<Service>(name, argv_for(port), log_path);
    if (wait_for([&] { return !service->running() || http_get(port, ready_path).status == 200; },
                 std::chrono::seconds(20)) &&
        service->running()) {
      return service;
    }
    ADD_FAILURE() << name << " did not start on port " << port << "\n" << service->log();
  }
  return nullptr;
}

struct Machine {
  std::string label;  // the `machine` target label
  std::string bug_report;
  int doctor_exit = -1;
};

class PrometheusEngines : public ::testing::Test {
 protected:
  void SetUp() override {
    node_exporter_ = test::find_program("prometheus-node-exporter");
    if (node_exporter_.empty()) node_exporter_ = test::find_program("node_exporter");
    prometheus_ = test::find_program("prometheus");
    if (node_exporter_.empty() || prometheus_.empty()) {
      GTEST_SKIP() << "needs node_exporter and Prometheus (Debian packages prometheus-node-exporter and prometheus, "
                      "scripts/deps-monitoring.txt; CI installs them)";
    }
  }

  // Prometheus' instant query: {labels..., value} per series.
  std::vector<std::pair<nlohmann::json, double>> query(const std::string& promql) {
    std::vector<std::pair<nlohmann::json, double>> out;
    auto r = http_get(prometheus_port_, "/api/v1/query?query=" + url_encode(promql));
    if (r.status != 200) return out;
    auto j = nlohmann::json::parse(r.body, nullptr, false);
    if (j.is_discarded() || j["status"] != "success") return out;
    for (const auto& s : j["data"]["result"]) out.emplace_back(s["metric"], std::stod(s["value"][1].get<std::string>()));
    return out;
  }
  // The value of the single series a query returns for one machine.
  std::optional<double> value(const std::string& promql) {
    auto r = query(promql);
    if (r.size() != 1) return std::nullopt;
    return r[0].second;
  }

  std::string node_exporter_, prometheus_;
  int prometheus_port_ = -1;
};

TEST_F(PrometheusEngines, ScrapesTfrigTextfilesAndFiresAlerts) {
  const auto started = Clock::now();
  test::TempDir dir;
  std::vector<Machine> machines = {{"healthy", "pavana27__Lambda-Bug-report.log.gz"},
                                   {"lost", "blacksoil__BashCommands.log.gz"},
                                   {"link", "Bekal-Ramnath-Rao__MasterThesis_HybridCommFramework_FL.log.gz"}};
  // tfrig writes each machine's textfile the way the DaemonSet does.
  for (auto& m : machines) {
    const std::string snap = dir.file(m.label + ".json");
    auto imported = test::run_tfrig({"import", test::data_dir() + "/nvidia-bug-report/" + m.bug_report, "-o", snap});
    ASSERT_EQ(imported.exit_code, 0) << imported.err;
    const std::string textfiles = dir.file("textfile-" + m.label);
    ASSERT_EQ(::mkdir(textfiles.c_str(), 0755), 0);
    auto doctor = test::run_tfrig({"doctor", "--snapshot", snap, "--format", "prometheus", "-o", textfiles + "/tfrig.prom"});
    m.doctor_exit = doctor.exit_code;
    ASSERT_TRUE(doctor.exit_code >= 0 && doctor.exit_code <= 2) << doctor.err;
  }

  std::vector<std::unique_ptr<Service>> exporters;
  std::map<std::string, int> exporter_port;
  for (const auto& m : machines) {
    int port = -1;
    const std::string textfiles = dir.file("textfile-" + m.label);
    exporters.push_back(start_on_free_port(
        "node_exporter " + m.label, dir.file("node_exporter-" + m.label + ".log"),
        [&](int p) {
          return std::vector<std::string>{node_exporter_, "--web.listen-address=127.0.0.1:" + std::to_string(p),
                                          "--collector.disable-defaults", "--collector.textfile",
                                          "--collector.textfile.directory=" + textfiles};
        },
        "/metrics", port));
    ASSERT_NE(exporters.back(), nullptr);
    exporter_port[m.label] = port;
  }

  std::string config =
      "global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n"
      "rule_files:\n  - " + test::repo_root() + "/deploy/prometheus/tfrig-rules.yml\n"
      "scrape_configs:\n  - job_name: node\n    static_configs:\n";
  for (const auto& m : machines) {
    config += "      - targets: ['127.0.0.1:" + std::to_string(exporter_port[m.label]) + "']\n        labels: {machine: " +
              m.label + "}\n";
  }
  test::write_file(dir.file("prometheus.yml"), config);
  auto prometheus = start_on_free_port(
      "prometheus", dir.file("prometheus.log"),
      [&](int p) {
        return std::vector<std::string>{prometheus_, "--config.file=" + dir.file("prometheus.yml"),
                                        "--storage.tsdb.path=" + dir.file("tsdb"),
                                        "--web.listen-address=127.0.0.1:" + std::to_string(p), "--log.level=warn"};
      },
      "/-/ready", prometheus_port_);
  ASSERT_NE(prometheus, nullptr);

  // Every machine scraped once, with tfrig's metrics in it.
  ASSERT_TRUE(wait_for([&] { return query("tfrig_last_run_timestamp_seconds").size() == machines.size(); },
                       std::chrono::seconds(30)))
      << prometheus->log();

  for (const auto& m : machines) {
    const std::string sel = "{machine=\"" + m.label + "\"}";
    EXPECT_EQ(value("tfrig_verdict" + sel), m.doctor_exit) << m.label << ": the verdict is doctor's exit code";
    EXPECT_EQ(value("node_textfile_scrape_error" + sel), 0.0) << m.label;
    EXPECT_EQ(value("up" + sel), 1.0) << m.label;
  }
  // The healthy machine: two RTX A6000 at x16, 48 GiB each, none lost.
  EXPECT_EQ(value("tfrig_gpus{machine=\"healthy\"}"), 2.0);
  EXPECT_EQ(value("tfrig_gpu_memory_total_bytes{machine=\"healthy\",gpu=\"0\"}"), 51527024640.0);
  EXPECT_EQ(value("sum(tfrig_gpu_lost{machine=\"healthy\"})"), 0.0);
  EXPECT_EQ(value("count(tfrig_gpu_info{machine=\"healthy\",name=\"NVIDIA RTX A6000\"})"), 2.0);
  EXPECT_EQ(value("tfrig_findings{machine=\"healthy\",severity=\"error\"}"), 0.0);
  // The lost GPU: lost, Xid 79 once in the running boot (dmesg and the
  // journal of boot 0 log the same event; the journal of boot -2 holds an
  // earlier one), gpu.lost firing.
  auto lost = query("tfrig_gpu_lost == 1");
  ASSERT_EQ(lost.size(), 1u);
  EXPECT_EQ(lost[0].first["machine"], "lost");
  EXPECT_EQ(lost[0].first["pci_bus_id"], "0000:04:00.0");
  EXPECT_EQ(value("tfrig_xid_events{machine=\"lost\",xid=\"79\",severe=\"true\"}"), 1.0);
  EXPECT_EQ(value("tfrig_finding{machine=\"lost\",rule_id=\"gpu.lost\",entity=\"gpu0\"}"), 1.0);
  EXPECT_EQ(value("count(tfrig_finding{rule_id=\"gpu.lost\"})"), 1.0) << "only the lost machine";
  // The downgraded link: x8 of x16 on both GPUs, and only there.
  auto narrow = query("tfrig_gpu_pcie_link_width_lanes < tfrig_gpu_pcie_link_max_width_lanes");
  ASSERT_EQ(narrow.size(), 2u);
  for (const auto& [labels, lanes] : narrow) {
    EXPECT_EQ(labels["machine"], "link");
    EXPECT_EQ(lanes, 8.0);
  }
  EXPECT_EQ(value("tfrig_gpu_pcie_link_max_width_lanes{machine=\"link\",gpu=\"1\"}"), 16.0);
  EXPECT_EQ(value("count(tfrig_finding{rule_id=\"gpu.pcie_link_downgraded\",machine=\"link\"})"), 2.0);
  // The join docs/metrics.md shows: GPU names onto another metric.
  auto named = query("tfrig_gpu_memory_total_bytes{machine=\"link\"} * on (instance, gpu) group_left (name) tfrig_gpu_info");
  ASSERT_EQ(named.size(), 2u);
  for (const auto& [labels, bytes] : named) {
    EXPECT_EQ(labels["name"], "NVIDIA GeForce RTX 3080");
    EXPECT_EQ(bytes, 10737418240.0);
  }
  // Three drivers: the stack drift expression sees three stacks in the job.
  EXPECT_EQ(value("count by (job) (count by (job, tensorflow, cuda, cudnn, driver) (tfrig_stack_info))"), 3.0);

  // The rules, evaluated by this Prometheus: the lost GPU and its Xid fire at
  // once; the narrow links and the drift wait out their `for`.
  std::map<std::string, std::string> alerts;  // "alertname/machine" -> state
  ASSERT_TRUE(wait_for(
      [&] {
        auto r = http_get(prometheus_port_, "/api/v1/alerts");
        auto j = nlohmann::json::parse(r.body, nullptr, false);
        if (r.status != 200 || j.is_discarded()) return false;
        alerts.clear();
        for (const auto& a : j["data"]["alerts"]) {
          alerts[a["labels"]["alertname"].get<std::string>() + "/" + a["labels"].value("machine", "")] =
              a["state"].get<std::string>();
        }
        return alerts.count("TfrigGpuLost/lost") && alerts.count("TfrigSevereXid/lost") &&
               alerts.count("TfrigPcieLinkDowngraded/link") && alerts.count("TfrigStackDrift/");
      },
      std::chrono::seconds(20)))
      << prometheus->log();
  EXPECT_EQ(alerts["TfrigGpuLost/lost"], "firing");
  EXPECT_EQ(alerts["TfrigSevereXid/lost"], "firing");
  EXPECT_EQ(alerts["TfrigPcieLinkDowngraded/link"], "pending");
  EXPECT_EQ(alerts["TfrigStackDrift/"], "pending");
  for (const auto& [key, state] : alerts) {
    EXPECT_TRUE(key.ends_with("/lost") || key.ends_with("/link") || key == "TfrigStackDrift/" ||
                key == "TfrigDriverLibraryMismatch/lost")
        << key << " " << state << ": no alert on the healthy machine";
  }

  prometheus->stop();
  for (auto& e : exporters) e->stop();
  EXPECT_FALSE(prometheus->running());
  const auto took = std::chrono::duration<double>(Clock::now() - started).count();
  EXPECT_LT(took, 60.0) << "the engines test should stay well under a minute";
  std::printf("engines test took %.1f s\n", took);
}

}  // namespace
}  // namespace tfrig

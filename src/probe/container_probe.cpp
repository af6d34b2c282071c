// containers: Docker/Podman, the NVIDIA Container Toolkit, CDI specs, and,
// when tfrig itself runs in a container, which GPUs it was given. The configuration guide
// recommends Docker with the NVIDIA Container Toolkit to decouple the driver
// from the CUDA runtime (docs/guide.md).
#include <sys/stat.h>

#include <fmt/format.h>

#include "core/text.h"
#include "probe/parse/daemon_json.h"
#include "probe/probe.h"
#include "probe/probes.h"

namespace tfrig::probe {

namespace {

// The PATH a login shell gets when none is set (Debian /etc/profile).
constexpr const char* kDefaultPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

// Where distributions put libnvidia-container (the toolkit's .deb and .rpm
// packages install it in the multiarch or lib64 directory).
constexpr const char* kLibDirs[] = {"/usr/lib/x86_64-linux-gnu",
                                    "/usr/lib/aarch64-linux-gnu",
                                    "/usr/lib64",
                                    "/usr/lib",
                                    "/lib/x86_64-linux-gnu",
                                    "/lib64"};

// The container tools on $PATH and libnvidia-container in the library folders.
void find_container_tools(const core::SysRoot& root, inventory::ContainerInfo& c) {
  const std::string path = root.env("PATH").value_or(kDefaultPath);
  auto which = [&](const char* name) -> std::optional<std::string> {
    for (auto dir : core::split(path, ':')) {
      if (dir.empty() || dir.front() != '/') continue;
      const std::string candidate = std::string(dir) + "/" + name;
      // exists() first: it is what `tfrig capture` records; is_file (stat) says it is a file.
      if (!root.exists(candidate)) continue;
      if (root.is_file(candidate)) return candidate;
    }
    return std::nullopt;
  };
  c.docker_binary = which("docker");
  c.podman_binary = which("podman");
  c.nvidia_ctk = which("nvidia-ctk");
  c.nvidia_container_runtime = which("nvidia-container-runtime");
  c.nvidia_container_cli = which("nvidia-container-cli");
  for (const char* d : kLibDirs) {
    const std::string lib = std::string(d) + "/libnvidia-container.so.1";
    if (root.exists(lib)) {
      c.libnvidia_container = lib;
      break;
    }
  }
}

// Docker's daemon.json: its runtimes and default runtime (runc when it names none).
void read_docker_daemon(const core::SysRoot& root, inventory::ContainerInfo& c, ProblemLog& problems) {
  if (auto text = root.read_text("etc/docker/daemon.json", 1 << 20); text) {
    c.docker_daemon_json_present = true;
    if (auto d = parse::parse_daemon_json(*text)) {
      for (const auto& [name, rt_path] : d->runtimes) c.docker_runtimes.push_back(name);
      c.docker_default_runtime = d->default_runtime;
    } else {
      problems.add(root.full_path("etc/docker/daemon.json"), d.error());
    }
  } else if (text.error().code == core::ErrorCode::kNotFound) {
    c.docker_daemon_json_present = false;
  } else {
    problems.add(text.error());
  }
  // Without "default-runtime", dockerd uses runc.
  if (c.docker_daemon_json_present.has_value() && !c.docker_default_runtime && c.docker_binary)
    c.docker_default_runtime = "runc";
}

// CDI specs (the Container Device Interface spec: /etc/cdi for static,
// /var/run/cdi for generated ones; .yaml or .json).
void list_cdi_specs(const core::SysRoot& root, inventory::ContainerInfo& c) {
  for (const char* dir : {"etc/cdi", "var/run/cdi"}) {
    if (auto names = root.list_dir(dir)) {
      for (const auto& n : *names) {
        if (core::ends_with(n, ".yaml") || core::ends_with(n, ".yml") || core::ends_with(n, ".json")) {
          c.cdi_specs.push_back("/" + std::string(dir) + "/" + n);
        }
      }
    }
  }
}

// Whether tfrig itself runs in a container: the runtimes' marker files,
// $container, or PID 1's cgroup.
bool inside_a_container(const core::SysRoot& root) {
  bool inside = root.exists(".dockerenv") || root.exists("run/.containerenv");
  if (auto env = root.env("container"); env && !env->empty() && root.is_live()) inside = true;
  if (!inside) {
    if (auto cg = root.read_text("proc/1/cgroup", 1 << 16)) {
      for (const char* marker : {"/docker/", "/kubepods", "/containerd/", "/libpod-", "/lxc/"}) {
        inside = inside || cg->find(marker) != std::string::npos;
      }
    }
  }
  return inside;
}

// The summary: which tools, runtimes and CDI specs were found.
core::Message containers_summary(const inventory::ContainerInfo& c) {
  std::string runtimes;
  for (const auto& r : c.docker_runtimes) runtimes += (runtimes.empty() ? "" : ",") + r;
  auto yes_no = [](bool b) { return b ? core::Message(N_("yes")) : core::Message(N_("no")); };
  core::Message summary = core::Message::plural(
      NP_("docker {0}, podman {1}, nvidia-container-toolkit {2}, runtimes [{3}], {4} CDI spec",
          "docker {0}, podman {1}, nvidia-container-toolkit {2}, runtimes [{3}], {4} CDI specs"),
      c.cdi_specs.size(), yes_no(static_cast<bool>(c.docker_binary)), yes_no(static_cast<bool>(c.podman_binary)),
      yes_no(c.nvidia_ctk || c.nvidia_container_runtime || c.nvidia_container_cli), runtimes, c.cdi_specs.size());
  return summary;
}

// Markers of "this process runs in a container": Docker creates /.dockerenv,
// Podman /run/.containerenv, systemd-nspawn and LXC set $container.
class ContainerProbe final : public Probe {
 public:
  std::string_view id() const override { return "containers"; }
  ProbeStatus run(const Context& ctx, inventory::Inventory& out) const override {
    const core::SysRoot& root = ctx.root;
    ProblemLog problems;
    auto& c = out.containers;
    find_container_tools(root, c);
    read_docker_daemon(root, c, problems);
    list_cdi_specs(root, c);
    const bool inside = inside_a_container(root);
    c.inside_container = inside;
    // NVIDIA_VISIBLE_DEVICES is how the toolkit's runtime hook picks the GPUs
    // ("all", "none", "void", indices or UUIDs); outside a container it is
    // meaningless but still reported when set.
    if (auto v = root.env("NVIDIA_VISIBLE_DEVICES"); v && root.is_live()) c.visible_devices = *v;

    ProbeStatus status;
    problems.into(status);
    status.state = State::kOk;
    core::Message summary = containers_summary(c);
    if (inside)
      summary = core::Message(N_("{0}; {1}"), std::move(summary), core::Message(N_("running inside a container")));
    status.set_detail(std::move(summary));
    return status;
  }

  void merge(inventory::Inventory& into, inventory::Inventory&& from) const override {
    into.containers = std::move(from.containers);
  }
};

}  // namespace

std::shared_ptr<const Probe> make_container_probe() { return std::make_shared<ContainerProbe>(); }

}  // namespace tfrig::probe

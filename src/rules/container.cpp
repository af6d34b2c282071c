// Container rules: Docker with the NVIDIA Container Toolkit, and containers
// started without a GPU.
#include <algorithm>

#include <fmt/format.h>

#include "core/i18n.h"
#include "rules/areas.h"
#include "rules/util.h"

namespace tfrig::rules {

namespace {

namespace u = util;

bool has_toolkit(const inventory::ContainerInfo& c) {
  return c.nvidia_ctk || c.nvidia_container_runtime || c.nvidia_container_cli || c.libnvidia_container;
}

Check runtime_missing(const Context& ctx) {
  if (!ctx.probed("containers"))
    return Check::skip(core::Message(N_("container engines (the containers probe did not run)")));
  const auto& c = ctx.inv.containers;
  if (c.inside_container.value_or(false)) return Check::pass();  // the host's business
  if (!c.docker_binary && !c.podman_binary) return Check::pass();
  if (has_toolkit(c) || !c.cdi_specs.empty()) return Check::pass();
  Check out;
  out.add(Hit{
      "host",
      core::Message(N_("{} is installed without the NVIDIA Container Toolkit: `docker run --gpus all` fails with "
                       "\"could not select device driver \\\"\\\" with capabilities: [[gpu]]\"."),
                    c.docker_binary ? "Docker" : "Podman"),
      {{core::Message(N_("engine")), c.docker_binary.value_or(c.podman_binary.value_or("")), "PATH"},
       {core::Message(N_("nvidia-ctk / nvidia-container-runtime")), core::Message(N_("not found")), "PATH, /usr/bin"},
       {core::Message(N_("CDI specs")), core::Message(N_("none")), "/etc/cdi, /var/run/cdi"}},
      "",
      {}});
  return out;
}

Check runtime_not_registered(const Context& ctx) {
  if (!ctx.probed("containers"))
    return Check::skip(core::Message(N_("container engines (the containers probe did not run)")));
  const auto& c = ctx.inv.containers;
  if (!c.docker_binary || !has_toolkit(c)) return Check::pass();
  if (!c.docker_daemon_json_present) return Check::skip(core::Message(N_("/etc/docker/daemon.json state")));
  const bool registered =
      std::find(c.docker_runtimes.begin(), c.docker_runtimes.end(), "nvidia") != c.docker_runtimes.end();
  if (registered || !c.cdi_specs.empty()) return Check::pass();
  Check out;
  out.add(Hit{
      "host",
      core::Message(
          N_("The NVIDIA Container Toolkit is installed but the nvidia runtime is not registered with Docker and no "
             "CDI spec exists: containers get no GPU.")),
      {{core::Message(N_("daemon.json runtimes")),
        c.docker_runtimes.empty() ? Text(core::Message(N_("none"))) : Text(u::join(c.docker_runtimes, ", ")),
        "/etc/docker/daemon.json"},
       {"nvidia-ctk", u::or_text(c.nvidia_ctk, core::Message(N_("(other toolkit parts)"))), "PATH"}},
      "",
      {}});
  return out;
}

Check no_gpu_given(const Context& ctx) {
  const auto& c = ctx.inv.containers;
  const bool inside = c.inside_container.value_or(ctx.inv.host.container && *ctx.inv.host.container != "none");
  if (!c.inside_container && !ctx.inv.host.container)
    return Check::skip(core::Message(N_("whether tfrig runs inside a container")));
  if (!inside) return Check::pass();
  const bool devices = !ctx.inv.driver.device_nodes.empty();
  if (devices || !ctx.inv.gpus.empty()) return Check::pass();
  Check out;
  out.add(
      Hit{"host",
          core::Message(N_("This container was started without a GPU: no /dev/nvidia* devices and no GPU visible "
                           "(\"CUDA_ERROR_NO_DEVICE\").")),
          {{core::Message(N_("container")), u::or_text(ctx.inv.host.container, core::Message(N_("yes"))),
            "/proc/1/cgroup, /.dockerenv"},
           // TRANSLATORS: an environment variable that is not set; the source "environment" is the process environment.
           {"NVIDIA_VISIBLE_DEVICES", u::or_text(c.visible_devices, core::Message(N_("unset"))),
            core::Message(N_("environment"))},
           {"/dev/nvidia*", core::Message(N_("none")), "/dev"}},
          "",
          {}});
  return out;
}

}  // namespace

std::vector<Rule> container_rules() {
  return {
      {"container.nvidia_runtime_missing",
       "container",
       Severity::kWarning,
       N_("Docker without the NVIDIA Container Toolkit"),
       N_("Docker or Podman present, and nvidia-ctk / nvidia-container-runtime / CDI specs absent."),
       N_("The configuration guide (docs/guide.md): run TF in Docker with the NVIDIA Container Toolkit so driver and runtime are decoupled and TF "
          "versions can be switched; without it containers cannot see the GPU."),
       N_("Install the toolkit (`sudo apt-get install -y nvidia-container-toolkit` from NVIDIA's repository), then "
          "`sudo nvidia-ctk runtime configure --runtime=docker && sudo systemctl restart docker`."),
       {"https://docs.nvidia.com/datacenter/cloud-native/container-toolkit/latest/install-guide.html"},
       runtime_missing},
      {"container.runtime_not_registered",
       "container",
       Severity::kWarning,
       N_("Toolkit installed but not registered with Docker"),
       N_("The runtimes in /etc/docker/daemon.json and CDI specs when the toolkit is installed."),
       N_("`nvidia-ctk runtime configure` writes the nvidia runtime into daemon.json; without it (or CDI) Docker cannot "
          "hand out GPUs."),
       N_("`sudo nvidia-ctk runtime configure --runtime=docker && sudo systemctl restart docker` (or `sudo nvidia-ctk "
          "cdi generate --output=/etc/cdi/nvidia.yaml`)."),
       {"https://docs.nvidia.com/datacenter/cloud-native/container-toolkit/latest/cdi-support.html"},
       runtime_not_registered},
      {"container.no_gpu_given",
       "container",
       Severity::kError,
       N_("Inside a container that was given no GPU"),
       N_("When tfrig runs in a container: /dev/nvidia* and the GPUs visible."),
       N_("A container sees a GPU only when started with it (--gpus, CDI, or the nvidia runtime with "
          "NVIDIA_VISIBLE_DEVICES)."),
       N_("Restart the container with `docker run --gpus all ...` (Podman: `--device nvidia.com/gpu=all`; Kubernetes: "
          "`resources.limits: nvidia.com/gpu: 1`)."),
       {"https://docs.nvidia.com/datacenter/cloud-native/container-toolkit/latest/docker-specialized.html"},
       no_gpu_given},
  };
}

}  // namespace tfrig::rules

// When CUDA did not start, the driver's state the child read (gpu/nvidia/driver_state.h, the
// envelope's "driver_state") is a finding of its own where it means a node that cannot run its
// jobs: a driver installed whose kernel module is not loaded (LC120), libraries and module of
// different versions (LC121), NVIDIA GPUs on the bus with no driver at all (LC122). The first two
// are read from the kernel (/proc, /sys), which a job's device cgroup or a container does not
// hide; the third only when this run is given the whole node, since a container without the
// driver injected sees the host's bus too. Any other state leaves cuInit's own verdict: no GPU on
// the bus is "cannot tell" (exit 3), as before.
#include <fmt/format.h>

#include "node_check/findings/findings.h"

namespace labcheck::node_check {

namespace {

using nlohmann::json;

std::string Field(const json& state, const char* object, const char* key) {
  const json& o = state.value(object, json(nullptr));
  return o.is_object() && o.value(key, json(nullptr)).is_string() ? o[key].get<std::string>() : "";
}

size_t GpusOnBus(const json& state) {
  const json& bus = state.value("pci_bus", json(nullptr));
  return bus.is_object() && bus.value("nvidia_gpus", json(nullptr)).is_array() ? bus["nvidia_gpus"].size() : 0;
}

Finding NotLoaded(const json& state) {
  std::string version = Field(state, "libcuda", "version");
  if (version.empty()) version = Field(state, "nvml", "version");
  const std::string v = version.empty() ? "" : " " + version;
  const size_t gpus = GpusOnBus(state);
  return {-1, "driver_not_loaded",
          T(fmt::format("драйвер NVIDIA{} установлен, модуль ядра не загружен (на шине PCI {} GPU)", v, gpus),
            fmt::format("NVIDIA driver{} installed, kernel module not loaded ({} GPU{} on the PCI bus)", v, gpus,
                        gpus == 1 ? "" : "s"))};
}

Finding Mismatch(const json& state) {
  std::string library = Field(state, "nvml", "version");
  if (library.empty()) library = Field(state, "libcuda", "version");
  const std::string module = Field(state, "kernel_module", "version");
  if (library.empty() || module.empty())
    return {-1, "driver_library_mismatch",
            T("библиотеки драйвера NVIDIA и модуль ядра разных версий", "NVIDIA driver libraries and kernel module of different versions")};
  return {-1, "driver_library_mismatch",
          T(fmt::format("библиотеки драйвера NVIDIA {}, модуль ядра {}", library, module),
            fmt::format("NVIDIA driver libraries {}, kernel module {}", library, module))};
}

}  // namespace

bool AddDriverStateFindings(const json& state, bool whole_node, std::vector<Finding>& out) {
  if (!state.is_object()) return false;
  const std::string name = state.value("state", std::string());
  if (name == "module_not_loaded") {
    out.push_back(NotLoaded(state));
    return true;
  }
  if (name == "version_mismatch") {
    out.push_back(Mismatch(state));
    return true;
  }
  const size_t gpus = GpusOnBus(state);
  if (name == "not_installed" && gpus > 0 && whole_node) {
    out.push_back({-1, "driver_not_installed",
                   T(fmt::format("драйвер NVIDIA не установлен (на шине PCI {} GPU)", gpus),
                     fmt::format("no NVIDIA driver installed ({} GPU{} on the PCI bus)", gpus, gpus == 1 ? "" : "s"))});
    return true;
  }
  return false;
}

}  // namespace labcheck::node_check

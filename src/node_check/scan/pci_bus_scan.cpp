#include "node_check/scan/pci_bus_scan.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>

#include "env/nvidia_pci.h"
#include "env/sysfs.h"

namespace labcheck::node_check {

namespace {

using nlohmann::json;

// "CUDA_VISIBLE_DEVICES=0,1,3" → 3 (an empty list names none).
size_t ListedCards(const std::string& scope) {
  const std::string list = scope.substr(scope.find('=') + 1);
  return list.empty() ? 0 : static_cast<size_t>(std::count(list.begin(), list.end(), ',')) + 1;
}

}  // namespace

json ScanPciBus(const std::string& sys_root) {
  const env::NvidiaPciBus bus = env::ReadNvidiaPciBus(sys_root);
  if (bus.na) return {{"na", *bus.na}};
  return {{"gpus", bus.Gpus()}, {"nvswitches", bus.NvSwitches()}};
}

std::optional<std::string> PartialScope(const EnvLookup& env) {
  for (const char* name : {"CUDA_VISIBLE_DEVICES", "SLURM_JOB_GPUS"})
    if (std::optional<std::string> v = env(name)) return std::string(name) + "=" + *v;
  if (std::optional<std::string> v = env("NVIDIA_VISIBLE_DEVICES"); v && *v != "all" && !v->empty())
    return "NVIDIA_VISIBLE_DEVICES=" + *v;
  return std::nullopt;
}

namespace {

// What tells a container and the cards it holds (ContainerScope).
struct ContainerCards {
  std::string marker;               // "/.dockerenv", "container=podman"
  std::vector<std::string> nodes;   // "/dev/nvidia0", sorted
};

std::optional<ContainerCards> ReadContainerCards(const std::string& fs_root, const EnvLookup& env) {
  std::string marker;
  for (const char* file : {"/.dockerenv", "/run/.containerenv"})
    if (access((fs_root + file).c_str(), F_OK) == 0) marker = file;
  if (marker.empty())
    for (const char* name : {"container", "KUBERNETES_SERVICE_HOST"})
      if (std::optional<std::string> v = env(name); v && !v->empty()) marker = std::string(name) + "=" + *v;
  if (marker.empty()) return std::nullopt;
  std::vector<std::string> nodes;
  for (const std::string& name : env::ListDirectory(fs_root + "/dev"))
    if (name.size() > 6 && name.rfind("nvidia", 0) == 0 &&
        std::all_of(name.begin() + 6, name.end(), [](char c) { return c >= '0' && c <= '9'; }))
      nodes.push_back("/dev/" + name);
  std::sort(nodes.begin(), nodes.end());
  return ContainerCards{marker, nodes};
}

std::string Describe(const ContainerCards& c) {
  std::string list;
  for (const std::string& n : c.nodes) list += (list.empty() ? "" : ",") + n;
  return "a container (" + c.marker + "), device nodes=" + list;
}

}  // namespace

std::optional<std::string> ContainerScope(const std::string& fs_root, const EnvLookup& env) {
  const std::optional<ContainerCards> cards = ReadContainerCards(fs_root, env);
  return cards ? std::optional<std::string>(Describe(*cards)) : std::nullopt;
}

std::optional<std::string> GateSysRoot(const EnvLookup& env, bool simulated) {
  const std::optional<std::string> root = env("LABCHECK_SYS_ROOT");
  if (root && !root->empty()) return root;
  if (simulated) return std::nullopt;
  return "/sys";
}

json PciBusFacts(const EnvLookup& env, bool simulated) {
  const std::optional<std::string> root = GateSysRoot(env, simulated);
  if (!root) return {{"na", "a simulated machine: the real /sys is not its bus (set LABCHECK_SYS_ROOT)"}};
  json facts = ScanPciBus(*root);
  // A list naming as many cards as the bus holds is the whole node (a job given all eight, Slurm's
  // prolog of such a job): the bus is the expectation again, so a lost card is still named.
  if (!facts.contains("gpus")) return facts;
  const size_t on_bus = facts["gpus"].size();
  if (const std::optional<std::string> given = PartialScope(env)) {
    if (ListedCards(*given) < on_bus) facts["partial"] = *given;
    return facts;
  }
  // A fake /sys (LABCHECK_SYS_ROOT) is not this container's: the container is judged only with its
  // own fake root (LABCHECK_FS_ROOT) or on the real /sys.
  const std::optional<std::string> fs_root = env("LABCHECK_FS_ROOT");
  if (!fs_root && env("LABCHECK_SYS_ROOT")) return facts;
  const std::optional<ContainerCards> container = ReadContainerCards(fs_root.value_or(""), env);
  if (container && container->nodes.size() < on_bus) facts["partial"] = Describe(*container);
  return facts;
}

}  // namespace labcheck::node_check

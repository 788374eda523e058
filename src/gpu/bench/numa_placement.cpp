#include "gpu/bench/numa_placement.h"

#include <pthread.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "env/cpu_info.h"
#include "env/sysfs.h"

namespace labcheck::gpu {

namespace {

std::optional<std::vector<int>> ReadCpuList(const std::string& path) {
  Result<std::string> line = env::ReadFirstLine(path);
  if (!line.ok()) return std::nullopt;
  Result<std::vector<int>> ids = env::ParseIdList(*line);
  if (!ids.ok() || ids->empty()) return std::nullopt;
  return *ids;
}

std::optional<std::vector<int>> NvmlCpus(const Nvml* nvml, nvml::nvmlDevice_t device) {
  if (nvml == nullptr || device == nullptr || nvml->api().nvmlDeviceGetCpuAffinity == nullptr) return std::nullopt;
  constexpr unsigned kWords = 64;  // 4096 CPUs
  unsigned long mask[kWords] = {};
  if (nvml->api().nvmlDeviceGetCpuAffinity(device, kWords, mask) != nvml::kSuccess) return std::nullopt;
  std::vector<int> cpus;
  constexpr unsigned kBits = 8 * sizeof(unsigned long);
  for (unsigned word = 0; word < kWords; ++word)
    for (unsigned bit = 0; bit < kBits; ++bit)
      if (mask[word] & (1ul << bit)) cpus.push_back(static_cast<int>(word * kBits + bit));
  if (cpus.empty()) return std::nullopt;
  return cpus;
}

// The node whose CPUs include most of `cpus`.
std::optional<int> NodeOfCpus(const std::vector<int>& cpus, const std::string& sys_root) {
  const std::string nodes = sys_root + "/devices/system/node";
  std::optional<int> best;
  size_t best_count = 0;
  for (const std::string& name : env::ListDirectory(nodes)) {
    if (name.rfind("node", 0) != 0 || name.size() == 4 ||
        !std::all_of(name.begin() + 4, name.end(), [](char c) { return c >= '0' && c <= '9'; }))
      continue;
    std::optional<std::vector<int>> members = ReadCpuList(nodes + "/" + name + "/cpulist");
    if (!members) continue;
    const size_t count = static_cast<size_t>(
        std::count_if(cpus.begin(), cpus.end(), [&](int cpu) { return std::count(members->begin(), members->end(), cpu); }));
    if (count > best_count) {
      best_count = count;
      best = std::atoi(name.c_str() + 4);
    }
  }
  return best;
}

std::vector<int> AllowedCpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> cpus;
  if (pthread_getaffinity_np(pthread_self(), sizeof set, &set) != 0) return cpus;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
    if (CPU_ISSET(cpu, &set)) cpus.push_back(cpu);
  return cpus;
}

}  // namespace

std::string SysRoot() {
  const char* root = std::getenv("LABCHECK_SYS_ROOT");
  return root != nullptr && *root != '\0' ? root : "/sys";
}

std::string CpuListText(const std::vector<int>& cpus) {
  std::string out;
  for (size_t i = 0; i < cpus.size();) {
    size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out += std::to_string(cpus[i]);
    if (j > i) {
      out += '-';
      out += std::to_string(cpus[j]);
    }
    i = j + 1;
  }
  return out;
}

std::string PlacementKey(const NumaPlacement& placement) {
  return placement.cpus.empty() ? "" : "cpus " + CpuListText(placement.cpus);
}

NumaPlacement FindNumaPlacement(const Nvml* nvml, nvml::nvmlDevice_t device, const std::string& pci_bus_id,
                                const std::string& sys_root) {
  NumaPlacement placement;
  const std::string pci = sys_root + "/bus/pci/devices/" + pci_bus_id;
  std::optional<std::vector<int>> cpus = NvmlCpus(nvml, device);
  placement.source = "nvml";
  if (!cpus && !pci_bus_id.empty()) {
    cpus = ReadCpuList(pci + "/local_cpulist");
    placement.source = "sysfs";
  }
  // The device's own numa_node; -1 means the platform has no NUMA information for it.
  if (Result<std::string> node = env::ReadFirstLine(pci + "/numa_node"); node.ok() && !pci_bus_id.empty()) {
    const int value = std::atoi(env::Trim(*node).c_str());
    if (value >= 0) placement.node = value;
  }
  if (!placement.node && cpus) placement.node = NodeOfCpus(*cpus, sys_root);
  if (!cpus) {
    placement.source.clear();
    placement.note = "neither NVML nor sysfs names the GPU's CPUs";
    return placement;
  }
  const std::vector<int> allowed = AllowedCpus();
  for (int cpu : *cpus)
    if (std::count(allowed.begin(), allowed.end(), cpu)) placement.cpus.push_back(cpu);
  if (placement.cpus.empty())
    placement.note = "the GPU's CPUs " + CpuListText(*cpus) + " are not among those this process may use (" +
                     CpuListText(allowed) + ")";
  return placement;
}

ScopedCpuAffinity::ScopedCpuAffinity(const std::vector<int>& cpus) {
  if (cpus.empty()) return;
  CPU_ZERO(&saved_);
  if (int error = pthread_getaffinity_np(pthread_self(), sizeof saved_, &saved_); error != 0) {
    status_ = Status::Error(std::string("pthread_getaffinity_np: ") + std::strerror(error));
    return;
  }
  cpu_set_t wanted;
  CPU_ZERO(&wanted);
  for (int cpu : cpus)
    if (cpu >= 0 && cpu < CPU_SETSIZE) CPU_SET(cpu, &wanted);
  if (int error = pthread_setaffinity_np(pthread_self(), sizeof wanted, &wanted); error != 0) {
    status_ = Status::Error("pinning the thread to CPUs " + CpuListText(cpus) + ": " + std::strerror(error));
    return;
  }
  restore_ = true;
}

ScopedCpuAffinity::~ScopedCpuAffinity() {
  if (restore_) pthread_setaffinity_np(pthread_self(), sizeof saved_, &saved_);
}

}  // namespace labcheck::gpu

// Where a GPU's host buffers belong on a board with several NUMA nodes (two sockets): on the node
// whose CPUs sit nearest the GPU, as nvbandwidth does it (it pins each host buffer and the copying
// thread there). Linux places a page on the node of the CPU that first touches it, and
// cuMemHostAlloc touches every page it pins; a buffer made by a thread that may run anywhere lands
// wherever that thread was, and a copy from the far node crosses the socket link. So the thread
// is pinned to the GPU's CPUs while it allocates and while it copies, and let go afterwards.
#pragma once
#include <sched.h>

#include <optional>
#include <string>
#include <vector>

#include "core/status.h"
#include "gpu/nvidia/nvml_library.h"

namespace labcheck::gpu {

struct NumaPlacement {
  std::vector<int> cpus;    // the GPU's CPUs this process may run on; empty: do not pin
  std::optional<int> node;  // the NUMA node they belong to; nullopt when sysfs does not say
  std::string source;       // where `cpus` came from: "nvml" or "sysfs"
  std::string note;         // why the thread is not pinned, when it is not
};

// nvmlDeviceGetCpuAffinity (the CPUs `nvidia-smi topo -m` lists for the GPU) where NVML has it,
// else <sys>/bus/pci/devices/<bus id>/local_cpulist; the node from the device's numa_node, else
// the node of <sys>/devices/system/node/node*/cpulist holding those CPUs. Only CPUs this process
// may use are kept (a container or taskset may allow fewer).
NumaPlacement FindNumaPlacement(const Nvml* nvml, nvml::nvmlDevice_t device, const std::string& pci_bus_id,
                                const std::string& sys_root);

// "/sys", or the fake tree LABCHECK_SYS_ROOT names (tests).
std::string SysRoot();

// Where buffers made under `placement` live, as a pool key: the CPUs the thread was pinned to
// ("cpus 0-27,56-83"), or "" (not pinned: anywhere). The CPUs, not the node number: they decide
// where the pages land, and GPUs of one node share them (NVML answers per node).
std::string PlacementKey(const NumaPlacement& placement);

// "0-3,8": CPU numbers as the kernel writes lists.
std::string CpuListText(const std::vector<int>& cpus);

// Pins the calling thread to `cpus` (nothing when empty) until destroyed, then gives it back the
// CPUs it had. Threads it starts meanwhile inherit the pinning.
class ScopedCpuAffinity {
 public:
  explicit ScopedCpuAffinity(const std::vector<int>& cpus);
  ~ScopedCpuAffinity();
  ScopedCpuAffinity(const ScopedCpuAffinity&) = delete;
  ScopedCpuAffinity& operator=(const ScopedCpuAffinity&) = delete;
  const Status& status() const { return status_; }

 private:
  cpu_set_t saved_;
  bool restore_ = false;
  Status status_ = Status::Ok();
};

}  // namespace labcheck::gpu

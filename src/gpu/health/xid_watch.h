// XID errors: the driver's numbered fault reports (https://docs.nvidia.com/deploy/xid-errors/).
// Two sources: NVML's event set while lab_check runs (XidWatch), and the kernel log since boot
// ("NVRM: Xid (PCI:0000:3b:00): 79, ..." lines in /dev/kmsg), readable without root only where
// kernel.dmesg_restrict is 0.
#pragma once
#include <atomic>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/status.h"
#include "gpu/nvidia/nvml_health_api.h"

namespace labcheck::gpu::health {

// Watches every registered GPU for nvmlEventTypeXidCriticalError from a thread of its own.
class XidWatch {
 public:
  XidWatch(const nvml::NvmlHealthApi& api, const std::vector<nvml::nvmlDevice_t>& devices);
  ~XidWatch();
  XidWatch(const XidWatch&) = delete;
  XidWatch& operator=(const XidWatch&) = delete;
  // Stops watching; per device the XIDs seen (JSON array of numbers) or {"na": why}.
  std::vector<nlohmann::json> Stop();

 private:
  const nvml::NvmlHealthApi& api_;
  std::vector<nvml::nvmlDevice_t> devices_;
  std::vector<nlohmann::json> results_;
  nvml::nvmlEventSet_t set_ = nullptr;
  std::atomic<bool> stop_{false};
  std::mutex mutex_;
  std::thread thread_;
};

struct KernelXid {
  std::string pci;  // "0000:3b:00" as the driver prints it (domain:bus:device, lower case)
  int xid = 0;
  std::string line;
};

// One kernel log message → the XID it reports, if it is an "NVRM: Xid" line.
std::optional<KernelXid> ParseXidLine(const std::string& message);

// Every XID line in the kernel ring buffer, or why it cannot be read (permission, no /dev/kmsg).
Result<std::vector<KernelXid>> ReadKernelXids(const std::string& kmsg_path = "/dev/kmsg");

// Whether `kernel_pci` ("0000:3b:00") names the GPU at canonical bus id `bus_id` ("0000:3b:00.0").
bool SameGpu(const std::string& kernel_pci, const std::string& bus_id);

}  // namespace labcheck::gpu::health

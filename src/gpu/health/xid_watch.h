// XID errors: the driver's numbered fault reports (https://docs.nvidia.com/deploy/xid-errors/).
// Two sources: NVML's event set while lab_check runs (XidWatch, here), and the kernel log since
// boot (kernel_log.h). What each XID means: xid_catalog.h.
#pragma once
#include <atomic>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/status.h"
#include "gpu/health/kernel_log.h"
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

}  // namespace labcheck::gpu::health

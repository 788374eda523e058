#include "gpu/health/xid_watch.h"

#include <chrono>

#include "gpu/health/health_facts.h"

namespace labcheck::gpu::health {

XidWatch::XidWatch(const nvml::NvmlHealthApi& api, const std::vector<nvml::nvmlDevice_t>& devices)
    : api_(api), devices_(devices), results_(devices.size(), nlohmann::json::array()) {
  if (api_.nvmlEventSetCreate == nullptr || api_.nvmlDeviceRegisterEvents == nullptr || api_.nvmlEventSetWait == nullptr) {
    for (auto& r : results_) r = MissingFunction("nvmlEventSetCreate/nvmlDeviceRegisterEvents/nvmlEventSetWait_v2");
    return;
  }
  nvml::nvmlReturn_t created = api_.nvmlEventSetCreate(&set_);
  if (created != nvml::kSuccess) {
    for (auto& r : results_) r = NotAvailable("nvmlEventSetCreate", created);
    set_ = nullptr;
    return;
  }
  bool any = false;
  for (size_t i = 0; i < devices_.size(); ++i) {
    nvml::nvmlReturn_t r = devices_[i] == nullptr
                               ? nvml::kErrorNotFound
                               : api_.nvmlDeviceRegisterEvents(devices_[i], nvml::kEventTypeXidCriticalError, set_);
    if (r != nvml::kSuccess) results_[i] = NotAvailable("nvmlDeviceRegisterEvents", r);
    else any = true;
  }
  if (!any) return;
  thread_ = std::thread([this] {
    while (!stop_.load()) {
      nvml::nvmlEventData_t data{};
      // A short timeout so Stop() returns quickly; nvmlEventSetWait blocks in the driver.
      nvml::nvmlReturn_t r = api_.nvmlEventSetWait(set_, &data, 100);
      if (r != nvml::kSuccess || (data.eventType & nvml::kEventTypeXidCriticalError) == 0) {
        if (r != nvml::kSuccess && r != nvml::kErrorTimeout) std::this_thread::sleep_for(std::chrono::milliseconds(50));
        continue;
      }
      std::lock_guard<std::mutex> lock(mutex_);
      for (size_t i = 0; i < devices_.size(); ++i)
        if (devices_[i] == data.device && results_[i].is_array()) results_[i].push_back(data.eventData);
    }
  });
}

XidWatch::~XidWatch() { Stop(); }

std::vector<nlohmann::json> XidWatch::Stop() {
  stop_.store(true);
  if (thread_.joinable()) thread_.join();
  if (set_ != nullptr && api_.nvmlEventSetFree != nullptr) api_.nvmlEventSetFree(set_);
  set_ = nullptr;
  std::lock_guard<std::mutex> lock(mutex_);
  return results_;
}

}  // namespace labcheck::gpu::health

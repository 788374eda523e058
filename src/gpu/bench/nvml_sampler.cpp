#include "gpu/bench/nvml_sampler.h"

#include <algorithm>
#include <chrono>

namespace labcheck::gpu {

NvmlSampler::NvmlSampler(const Nvml* nvml, nvml::nvmlDevice_t device, int period_ms)
    : nvml_(nvml), device_(device), period_ms_(period_ms) {
  if (nvml_ == nullptr || device_ == nullptr) return;
  thread_ = std::thread([this] {
    std::unique_lock<std::mutex> lock(mutex_);
    // Wait first: the moment the sampler starts is the moment the work has not started yet.
    while (!wake_.wait_for(lock, std::chrono::milliseconds(period_ms_), [this] { return stop_; })) {
      lock.unlock();
      SampleOnce();
      lock.lock();
    }
  });
}

NvmlSampler::~NvmlSampler() { Stop(); }

void NvmlSampler::SampleNow() {
  if (nvml_ != nullptr && device_ != nullptr) SampleOnce();
}

NvmlSamples NvmlSampler::Stop() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
  std::lock_guard<std::mutex> lock(mutex_);
  return samples_;
}

void NvmlSampler::SampleOnce() {
  const bool under_load_before = busy_.load();
  const nvml::NvmlApi& api = nvml_->api();
  NvmlSamples now;
  unsigned long long reasons = 0;
  const bool reasons_read = api.nvmlDeviceGetCurrentClocksEventReasons != nullptr &&
                            api.nvmlDeviceGetCurrentClocksEventReasons(device_, &reasons) == nvml::kSuccess;
  unsigned value = 0;
  if (api.nvmlDeviceGetClockInfo != nullptr && api.nvmlDeviceGetClockInfo(device_, nvml::kClockSm, &value) == nvml::kSuccess)
    now.min_sm_clock_mhz = value;
  if (api.nvmlDeviceGetPowerUsage != nullptr && api.nvmlDeviceGetPowerUsage(device_, &value) == nvml::kSuccess)
    now.max_power_w = value / 1000.0;
  if (api.nvmlDeviceGetCurrPcieLinkGeneration != nullptr &&
      api.nvmlDeviceGetCurrPcieLinkGeneration(device_, &value) == nvml::kSuccess)
    now.pcie_gen_under_load = value;
  if (api.nvmlDeviceGetCurrPcieLinkWidth != nullptr && api.nvmlDeviceGetCurrPcieLinkWidth(device_, &value) == nvml::kSuccess)
    now.pcie_width_under_load = value;
  // Under load only if the work ran for the whole sample.
  const bool under_load = under_load_before && busy_.load();

  std::lock_guard<std::mutex> lock(mutex_);
  if (!under_load) {
    ++samples_.idle_count;
    return;
  }
  if (reasons_read) samples_.reasons.Add(reasons);  // a failed read is no "no reason" sample
  auto keep_min = [](std::optional<unsigned>& into, std::optional<unsigned> v) {
    if (v) into = into ? std::min(*into, *v) : *v;
  };
  auto keep_max = [](auto& into, auto v) {
    if (v) into = into ? std::max(*into, *v) : *v;
  };
  keep_min(samples_.min_sm_clock_mhz, now.min_sm_clock_mhz);
  keep_max(samples_.max_power_w, now.max_power_w);
  keep_max(samples_.pcie_gen_under_load, now.pcie_gen_under_load);
  keep_max(samples_.pcie_width_under_load, now.pcie_width_under_load);
  ++samples_.count;
}

}  // namespace labcheck::gpu

// Watches a GPU through NVML while a measurement runs, from a thread of its own: the clock event
// reasons seen (power cap, thermal, hardware slowdown: why a matmul is "far below the
// reference"), the lowest SM clock, the highest power draw and the PCIe link in use under load
// (links train down when idle, so the link read before a copy says little).
#pragma once
#include <atomic>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "gpu/nvidia/nvml_library.h"

namespace labcheck::gpu {

struct NvmlSamples {
  unsigned long long clock_event_reasons = 0;  // OR of every sample
  std::optional<unsigned> min_sm_clock_mhz;
  std::optional<double> max_power_w;
  std::optional<unsigned> pcie_gen_under_load;    // the highest seen
  std::optional<unsigned> pcie_width_under_load;
  int count = 0;
  std::vector<std::string> ReasonNames() const { return ClockEventReasonNames(clock_event_reasons); }
};

class NvmlSampler {
 public:
  // `nvml` or `device` may be null: then it samples nothing and Stop() returns empty samples.
  NvmlSampler(const Nvml* nvml, nvml::nvmlDevice_t device, int period_ms = 20);
  ~NvmlSampler();
  NvmlSampler(const NvmlSampler&) = delete;
  NvmlSampler& operator=(const NvmlSampler&) = delete;
  NvmlSamples Stop();

 private:
  void SampleOnce();
  const Nvml* nvml_;
  nvml::nvmlDevice_t device_;
  int period_ms_;
  std::atomic<bool> stop_{false};
  std::mutex mutex_;
  NvmlSamples samples_;
  std::thread thread_;
};

}  // namespace labcheck::gpu

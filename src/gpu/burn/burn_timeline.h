// The burn test's timeline as the child writes it: one JSON object per line, appended and flushed
// as it happens, so that the parent keeps every sample when the child is killed (Ctrl-C, timeout,
// a driver crash). Lines: {"gpu": i, "name": "..."} once per GPU, {"gpu": i, "sample": {t_s,
// tflops, sm_clock_mhz, mem_clock_mhz, power_w, temperature_c, fan_percent, clock_event_reasons}},
// {"gpu": i, "check": {t_s, ok, samples, failures}}, {"gpu": i, "error": "..."}, {"gpu": i,
// "xids": [...]}, and {"done": true} last.
#pragma once
#include <cstdio>
#include <mutex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/status.h"
#include "gpu/nvidia/nvml_health_api.h"

namespace labcheck::gpu::burn {

struct SpotResult {
  double t_s = 0;
  bool ok = true;
  int samples = 0, failures = 0;
};

struct GpuTimeline {
  int index = 0;
  std::string name;
  std::string pci_bus_id;  // canonical, "0000:81:00.0"; empty when the driver did not say
  std::vector<nlohmann::json> samples;  // the contract's sample objects, in time order
  std::vector<SpotResult> checks;
  std::vector<int> xids;
  std::string error;
};

struct Timeline {
  double interval_s = 1.0;
  std::vector<GpuTimeline> gpus;
  bool complete = false;  // the child wrote {"done": true}
};

class TimelineWriter {
 public:
  static Result<std::unique_ptr<TimelineWriter>> Open(const std::string& path);
  ~TimelineWriter();
  void Write(const nlohmann::json& line);  // thread-safe, flushed

 private:
  std::FILE* file_ = nullptr;
  std::mutex mutex_;
};

// Reads what a (possibly killed) child wrote; a torn last line is ignored. `gpus` fixes the order.
Timeline ReadTimeline(const std::string& text, double interval_s);

// One NVML sample of the contract's fields (null where NVML cannot say); t_s and tflops are set by
// the caller.
nlohmann::json ReadNvmlSample(const nvml::NvmlApi* base, const nvml::NvmlHealthApi* health, nvml::nvmlDevice_t device);

}  // namespace labcheck::gpu::burn

#include "gpu/burn/burn_timeline.h"

#include <map>
#include <sstream>

#include "gpu/nvidia/nvml_library.h"

namespace labcheck::gpu::burn {

using nlohmann::json;

Result<std::unique_ptr<TimelineWriter>> TimelineWriter::Open(const std::string& path) {
  std::FILE* file = std::fopen(path.c_str(), "w");
  if (file == nullptr) return Status::Error("cannot write the burn timeline to " + path);
  std::unique_ptr<TimelineWriter> writer(new TimelineWriter());
  writer->file_ = file;
  return writer;
}

TimelineWriter::~TimelineWriter() {
  if (file_ != nullptr) std::fclose(file_);
}

void TimelineWriter::Write(const json& line) {
  const std::string text = line.dump() + "\n";
  std::lock_guard<std::mutex> lock(mutex_);
  std::fwrite(text.data(), 1, text.size(), file_);
  std::fflush(file_);
}

Timeline ReadTimeline(const std::string& text, double interval_s) {
  Timeline timeline;
  timeline.interval_s = interval_s;
  std::map<int, size_t> slot;
  auto gpu = [&](int index) -> GpuTimeline& {
    auto it = slot.find(index);
    if (it != slot.end()) return timeline.gpus[it->second];
    slot[index] = timeline.gpus.size();
    timeline.gpus.push_back(GpuTimeline{index});
    return timeline.gpus.back();
  };
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    json j = json::parse(line, nullptr, false);
    if (j.is_discarded() || !j.is_object()) continue;  // the line the kill cut short
    if (j.value("done", false)) {
      timeline.complete = true;
      continue;
    }
    if (!j.contains("gpu") || !j["gpu"].is_number_integer()) continue;
    GpuTimeline& g = gpu(j["gpu"].get<int>());
    if (j.contains("name") && j["name"].is_string()) g.name = j["name"];
    if (j.contains("pci_bus_id") && j["pci_bus_id"].is_string()) g.pci_bus_id = j["pci_bus_id"];
    if (j.contains("sample") && j["sample"].is_object()) g.samples.push_back(j["sample"]);
    if (j.contains("check") && j["check"].is_object()) {
      const json& c = j["check"];
      g.checks.push_back({c.value("t_s", 0.0), c.value("ok", false), c.value("samples", 0), c.value("failures", 0)});
    }
    if (j.contains("error") && j["error"].is_string()) g.error = j["error"];
    if (j.contains("xids") && j["xids"].is_array())
      for (const json& x : j["xids"])
        if (x.is_number_integer()) g.xids.push_back(x.get<int>());
  }
  return timeline;
}

json ReadNvmlSample(const nvml::NvmlApi* base, const nvml::NvmlHealthApi* health, nvml::nvmlDevice_t device) {
  json s = {{"sm_clock_mhz", nullptr}, {"mem_clock_mhz", nullptr}, {"power_w", nullptr},
            {"temperature_c", nullptr}, {"fan_percent", nullptr}, {"clock_event_reasons", nullptr}};
  if (base == nullptr || device == nullptr) return s;
  unsigned value = 0;
  if (base->nvmlDeviceGetClockInfo != nullptr) {
    if (base->nvmlDeviceGetClockInfo(device, nvml::kClockSm, &value) == nvml::kSuccess) s["sm_clock_mhz"] = value;
    if (base->nvmlDeviceGetClockInfo(device, nvml::kClockMem, &value) == nvml::kSuccess) s["mem_clock_mhz"] = value;
  }
  if (base->nvmlDeviceGetPowerUsage != nullptr && base->nvmlDeviceGetPowerUsage(device, &value) == nvml::kSuccess)
    s["power_w"] = value / 1000.0;
  if (base->nvmlDeviceGetTemperature != nullptr &&
      base->nvmlDeviceGetTemperature(device, nvml::kTemperatureGpu, &value) == nvml::kSuccess)
    s["temperature_c"] = value;
  if (health != nullptr && health->nvmlDeviceGetFanSpeed != nullptr &&
      health->nvmlDeviceGetFanSpeed(device, &value) == nvml::kSuccess)
    s["fan_percent"] = value;
  unsigned long long reasons = 0;
  if (base->nvmlDeviceGetCurrentClocksEventReasons != nullptr &&
      base->nvmlDeviceGetCurrentClocksEventReasons(device, &reasons) == nvml::kSuccess)
    s["clock_event_reasons"] = ClockEventReasonNames(reasons);
  return s;
}

}  // namespace labcheck::gpu::burn

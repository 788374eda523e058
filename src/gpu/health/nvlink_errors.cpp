#include "gpu/health/nvlink_errors.h"

#include "gpu/health/health_facts.h"

namespace labcheck::gpu::health {

using nlohmann::json;

namespace {

constexpr std::pair<const char*, int> kCounters[] = {{"replay", nvml::kNvLinkErrorReplay},
                                                     {"recovery", nvml::kNvLinkErrorRecovery},
                                                     {"crc_flit", nvml::kNvLinkErrorCrcFlit},
                                                     {"crc_data", nvml::kNvLinkErrorCrcData}};

}  // namespace

json ReadNvLinkErrorCounters(const nvml::NvmlApi& base, const nvml::NvmlHealthApi& h, nvml::nvmlDevice_t device) {
  if (h.nvmlDeviceGetNvLinkErrorCounter == nullptr) return MissingFunction("nvmlDeviceGetNvLinkErrorCounter");
  if (base.nvmlDeviceGetNvLinkState == nullptr) return MissingFunction("nvmlDeviceGetNvLinkState");
  json links = json::array();
  for (unsigned link = 0; link < nvml::kNvLinkMaxLinks; ++link) {
    nvml::nvmlEnableState_t active = 0;
    if (base.nvmlDeviceGetNvLinkState(device, link, &active) != nvml::kSuccess || active != nvml::kFeatureEnabled) continue;
    json one = {{"link", link}};
    for (const auto& [name, counter] : kCounters) {
      unsigned long long value = 0;
      if (h.nvmlDeviceGetNvLinkErrorCounter(device, link, counter, &value) == nvml::kSuccess) one[name] = value;
    }
    links.push_back(one);
  }
  return links;
}

json NvLinkErrorGrowth(const json& before, json after) {
  if (!before.is_array() || !after.is_array()) return after;
  for (json& link : after) {
    for (const json& old : before) {
      if (old.value("link", -1) != link.value("link", -2)) continue;
      for (const auto& [name, counter] : kCounters) {
        (void)counter;
        if (!old.contains(name) || !link.contains(name)) continue;
        const unsigned long long was = old[name].get<unsigned long long>(), now = link[name].get<unsigned long long>();
        link[std::string(name) + "_growth"] = now > was ? now - was : 0;
      }
    }
  }
  return after;
}

}  // namespace labcheck::gpu::health

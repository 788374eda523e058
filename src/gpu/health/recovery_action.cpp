#include "gpu/health/recovery_action.h"

#include <fmt/format.h>

#include "gpu/health/health_facts.h"

namespace labcheck::gpu::health {

using nlohmann::json;

std::string RecoveryActionKey(unsigned value) {
  switch (value) {
    case nvml::kRecoveryActionNone: return "none";
    case nvml::kRecoveryActionGpuReset: return "gpu_reset";
    case nvml::kRecoveryActionNodeReboot: return "node_reboot";
    case nvml::kRecoveryActionDrainP2p: return "drain_p2p";
    case nvml::kRecoveryActionDrainAndReset: return "drain_and_reset";
    default: return fmt::format("unknown_{}", value);
  }
}

json ReadRecoveryAction(const nvml::NvmlHealthApi& h, nvml::nvmlDevice_t device) {
  if (h.nvmlDeviceGetFieldValues == nullptr) return MissingFunction("nvmlDeviceGetFieldValues");
  nvml::nvmlFieldValue_t value{};
  value.fieldId = nvml::kFieldGpuRecoveryAction;
  const nvml::nvmlReturn_t r = h.nvmlDeviceGetFieldValues(device, 1, &value);
  if (r != nvml::kSuccess) return NotAvailable("nvmlDeviceGetFieldValues", r);
  if (value.nvmlReturn != nvml::kSuccess) return NotAvailable("NVML_FI_DEV_GET_GPU_RECOVERY_ACTION", value.nvmlReturn);
  // The enum comes back as an unsigned int; a wider type is read by its own member.
  const unsigned long long raw =
      value.valueType == nvml::kValueTypeUnsignedLongLong ? value.value.ullVal : value.value.uiVal;
  return RecoveryActionKey(static_cast<unsigned>(raw));
}

// Wording after nvml.h's comments on nvmlDeviceGpuRecoveryAction_t as NVIDIA's binding repeats
// them ("GPU reset required", "node reboot required", "drain P2P", "drain and reset": the card
// runs at reduced capacity until reset).
Text RecoveryActionText(const std::string& key) {
  if (key == "gpu_reset") return T("драйвер требует сброса GPU", "the driver asks for a GPU reset");
  if (key == "node_reboot") return T("драйвер требует перезагрузки узла", "the driver asks for a node reboot");
  if (key == "drain_p2p") return T("драйвер требует остановить обмен P2P", "the driver asks to drain peer-to-peer traffic");
  if (key == "drain_and_reset")
    return T("драйвер: карта работает не в полную силу, снимите задачи и сбросьте GPU",
             "the driver says the card runs at reduced capacity: drain and reset the GPU");
  if (key == "none") return Text{};
  return T("драйвер требует действия " + key, "the driver asks for recovery action " + key);
}

}  // namespace labcheck::gpu::health

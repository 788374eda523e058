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
    case nvml::kRecoveryActionRecoverImexDomain: return "recover_imex_domain";
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

// Wording after NVIDIA's GPU memory error management guide, "Error Recovery and Response Flags"
// (https://docs.nvidia.com/deploy/a100-gpu-mem-error-mgmt/error-recovery-and-response-flags.html):
// reset "Terminate all GPU processes, reset the GPU"; reboot "may have left the OS in an
// inconsistent state"; drain P2P "requires all peer-to-peer traffic to be quiesced. Terminate all
// GPU processes that conduct peer-to-peer traffic and disable UVM persistence mode. Once all
// peer-to-peer traffic are drained, query NVML_FI_DEV_GET_GPU_RECOVERY_ACTION again" (not a reset;
// DCGM's DCGM_FR_GPU_RECOVERY_DRAIN_P2P_NEXT says the same); drain and reset: the card runs at
// reduced capacity until reset; nvml.h's "Recover IMEX Domain." for value 5.
Text RecoveryActionText(const std::string& key) {
  if (key == "gpu_reset") return T("драйвер требует сброса GPU", "the driver asks for a GPU reset");
  if (key == "node_reboot") return T("драйвер требует перезагрузки узла", "the driver asks for a node reboot");
  if (key == "drain_p2p") return T("драйвер требует остановить обмен P2P", "the driver asks to drain peer-to-peer traffic");
  if (key == "drain_and_reset")
    return T("драйвер: карта работает не в полную силу, снимите задачи и сбросьте GPU",
             "the driver says the card runs at reduced capacity: drain and reset the GPU");
  if (key == "recover_imex_domain")
    return T("драйвер требует восстановить домен IMEX", "the driver asks for the IMEX domain to be recovered");
  if (key == "none") return Text{};
  return T("драйвер требует действия " + key, "the driver asks for recovery action " + key);
}

}  // namespace labcheck::gpu::health

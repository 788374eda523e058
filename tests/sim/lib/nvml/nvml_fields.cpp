// libnvidia-ml.so.1 sim: nvmlDeviceGetFieldValues, for the fields lab_check asks for. nvml.h's
// contract: NVML_ERROR_INVALID_ARGUMENT for a bad device or a NULL array; otherwise NVML_SUCCESS,
// each record carrying its own nvmlReturn (a field the driver does not know is that record's
// error, not the call's). Field 230, NVML_FI_DEV_GET_GPU_RECOVERY_ACTION (values from NVIDIA's
// nvidia-ml-py pynvml.py), exists since R550: on a profile whose "driver_version" is older the
// record says NVML_ERROR_NOT_SUPPORTED, as an older driver does; on a newer one it reports
// "health/recovery_action" ("none", "gpu_reset", "node_reboot", "drain_p2p", "drain_and_reset").
#include <cstdlib>
#include <string>

#include "nvml/nvml_internal.h"

using namespace nvmlsim;

namespace {

struct FieldValue {  // nvmlFieldValue_t
  unsigned fieldId;
  unsigned scopeId;
  long long timestamp;
  long long latencyUsec;
  int valueType;
  nvmlReturn_t nvmlReturn;
  union {
    double dVal;
    unsigned uiVal;
    unsigned long ulVal;
    unsigned long long ullVal;
    long long sllVal;
  } value;
};

constexpr unsigned kFieldGpuRecoveryAction = 230;
constexpr int kValueTypeUnsignedInt = 1;
constexpr int kFirstDriverWithRecoveryAction = 550;

unsigned RecoveryActionValue(const std::string& key) {
  if (key == "gpu_reset") return 1;
  if (key == "node_reboot") return 2;
  if (key == "drain_p2p") return 3;
  if (key == "drain_and_reset") return 4;
  return 0;  // "none"
}

void Fill(const nvsim::Gpu& g, FieldValue& v) {
  v.nvmlReturn = kNotSupported;
  if (v.fieldId != kFieldGpuRecoveryAction) return;
  if (std::atoi(nvsim::Profile().String("driver_version").c_str()) < kFirstDriverWithRecoveryAction) return;
  v.valueType = kValueTypeUnsignedInt;
  v.value.uiVal = RecoveryActionValue(g.String("health/recovery_action"));
  v.nvmlReturn = kSuccess;
}

}  // namespace

NVSIM_EXPORT(nvmlReturn_t, nvmlDeviceGetFieldValues, (nvmlDevice_t device, int count, FieldValue* values)) {
  const nvsim::Gpu* g = Check(device);
  if (g == nullptr) return Initialised() ? kInvalidArgument : kUninitialized;
  if (values == nullptr) return kInvalidArgument;
  for (int i = 0; i < count; ++i) Fill(*g, values[i]);
  return kSuccess;
}

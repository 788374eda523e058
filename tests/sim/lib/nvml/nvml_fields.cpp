// libnvidia-ml.so.1 sim: nvmlDeviceGetFieldValues, for the fields lab_check asks for. nvml.h's
// contract: NVML_ERROR_INVALID_ARGUMENT for a bad device or a NULL array; otherwise NVML_SUCCESS,
// each record carrying its own nvmlReturn (a field the driver does not know is that record's
// error, not the call's). Field 230, NVML_FI_DEV_GET_GPU_RECOVERY_ACTION, is in the public nvml.h
// from NVML 12.8 on, the R570 driver's (NVIDIA/go-nvml gen/nvml/nvml.h at commit
// f420a3285a89be0f8c68649f1e2dae2b7ea9b74d; the 12.6 header has no field 230): on a profile whose
// "driver_version" is older the record says NVML_ERROR_NOT_SUPPORTED (dated as the header dates it:
// whether an R550 or R560 driver answers field 230 was not tried); on a
// newer one it reports "health/recovery_action" by nvmlDeviceGpuRecoveryAction_t's values, the
// whole enum of CUDA 13.3's nvml.h ("none" 0, "gpu_reset" 1, "node_reboot" 2, "drain_p2p" 3,
// "drain_and_reset" 4, "recover_imex_domain" 5). Another name does not load (core/profile.cpp).
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
constexpr int kFirstDriverWithRecoveryAction = 570;

unsigned RecoveryActionValue(const std::string& key) {
  if (key == "gpu_reset") return 1;
  if (key == "node_reboot") return 2;
  if (key == "drain_p2p") return 3;
  if (key == "drain_and_reset") return 4;
  if (key == "recover_imex_domain") return 5;
  return 0;  // "none" (any other name was refused when the profile loaded)
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

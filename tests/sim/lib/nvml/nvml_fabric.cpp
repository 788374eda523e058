// libnvidia-ml.so.1 sim: nvmlDeviceGetGpuFabricInfo, how far the fabric manager got registering a
// GPU of an NVSwitch board. Layout and values from NVML's nvml.h of CUDA 12.x (nvmlGpuFabricInfo_t;
// NVML_GPU_FABRIC_STATE_NOT_SUPPORTED 0, NOT_STARTED 1, IN_PROGRESS 2, COMPLETED 3; "status" is to
// be read only when the state is COMPLETED). Each GPU's "fabric_state" ("not_started",
// "in_progress", "completed"); absent, the call returns NVML_ERROR_NOT_SUPPORTED, as on a card
// without an NVSwitch fabric. While cuda/init_error_until_ms has not passed the state is the
// profile's; after it the fabric has registered the GPU: COMPLETED with success, the moment cuInit
// stops returning 802 (core/boot.h).
#include <cstring>
#include <string>

#include "core/boot.h"
#include "nvml/nvml_internal.h"

using namespace nvmlsim;

namespace {

struct FabricInfo {
  unsigned char clusterUuid[16];
  nvmlReturn_t status;
  unsigned cliqueId;
  unsigned char state;
};

unsigned char StateCode(const std::string& name) {
  if (name == "not_started") return 1;
  if (name == "in_progress") return 2;
  if (name == "completed") return 3;
  return 0;
}

}  // namespace

NVSIM_EXPORT(nvmlReturn_t, nvmlDeviceGetGpuFabricInfo, (nvmlDevice_t device, FabricInfo* info)) {
  const nvsim::Gpu* g = Check(device);
  if (g == nullptr) return Initialised() ? kInvalidArgument : kUninitialized;
  if (info == nullptr) return kInvalidArgument;
  const nvsim::json* state = g->At("fabric_state");
  if (state == nullptr || !state->is_string()) return kNotSupported;
  std::memset(info, 0, sizeof *info);
  const nvsim::Machine& m = nvsim::Profile();
  const bool registered = m.At("cuda/init_error_until_ms") != nullptr && !nvsim::InitErrorHolds(m);
  info->state = registered ? 3 : StateCode(state->get<std::string>());
  info->status = kSuccess;
  return kSuccess;
}

// The simulated GPUs as the CUDA driver presents them: CUDA_VISIBLE_DEVICES and CUDA_DEVICE_ORDER
// applied (the driver renumbers the GPUs it shows; NVML is not affected), primary contexts, the
// current context per thread, default streams and the memory each GPU has handed out.
#pragma once
#include <cstddef>
#include <vector>

#include "core/profile.h"
#include "core/timeline.h"

namespace nvsim {

struct Context {
  int device = -1;  // profile index
  int retained = 0;
  std::vector<bool> peer_access;  // by profile index: cuCtxEnablePeerAccess done towards it
  // An error the context can no longer leave (CUDA_ERROR_ECC_UNCORRECTABLE after a memory-test
  // kernel read a cell ECC could not correct): every later call on it returns this. 0: none.
  int sticky_error = 0;
};

// CUDA ordinal → profile index, as CUDA_VISIBLE_DEVICES / CUDA_DEVICE_ORDER make it.
const std::vector<int>& VisibleDevices();
const Gpu* CudaGpu(int ordinal);  // null when out of range

Context& PrimaryContext(int device);
Context* CurrentContext();
void SetCurrentContext(Context* context);

// The stream a cuStream handle means; the null handle is the current context's default stream.
Stream* StreamFor(void* handle);
Stream& DefaultStream(int device);

// Memory accounting: false when the allocation does not fit (profile: memory_used_by_others_gib,
// alloc_fails_past_mib).
bool Reserve(int device, size_t bytes);
void Release(int device, size_t bytes);
size_t FreeBytes(int device);

}  // namespace nvsim

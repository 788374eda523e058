// The GPU checks, one spec per file (gpu_check_spec.h); gpu_checks.cpp puts them in report order.
#pragma once
#include "gpu/checks/gpu_check_spec.h"

namespace labcheck::gpu {

extern const GpuCheckSpec kInventoryCheck;       // inventory_check.cpp
extern const GpuCheckSpec kHealthCheck;          // health_check.cpp
extern const GpuCheckSpec kMatmulCheck;          // matmul_check.cpp
extern const GpuCheckSpec kMemoryBandwidthCheck;  // memory_check.cpp
extern const GpuCheckSpec kMemtestCheck;         // memtest_check.cpp
extern const GpuCheckSpec kHostDeviceCopyCheck;  // copy_checks.cpp
extern const GpuCheckSpec kPeerCheck;            // peer_check.cpp
extern const GpuCheckSpec kAllReduceCheck;       // allreduce_check.cpp

}  // namespace labcheck::gpu

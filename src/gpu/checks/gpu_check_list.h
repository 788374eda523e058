// The run functions of the GPU checks, one file each (registered by gpu_checks.cpp).
#pragma once
#include "core/check_result.h"
#include "runner/check.h"

namespace labcheck::gpu {

CheckResult RunInventoryCheck(CheckContext& context);
CheckResult RunMatmulCheck(CheckContext& context);
CheckResult RunMemoryBandwidthCheck(CheckContext& context);
CheckResult RunHostDeviceCopyCheck(CheckContext& context);
CheckResult RunPeerCheck(CheckContext& context);
CheckResult RunAllReduceCheck(CheckContext& context);
CheckResult RunHealthCheck(CheckContext& context);  // health_check.cpp

}  // namespace labcheck::gpu

// The child jobs' work once the runtime is open: `XJob(args)` in gpu_jobs.h opens NVIDIA's
// libraries and calls `XJobOn`. Split so that tests run a whole job on in-process fakes
// (GpuRuntime::FromParts) and see its JSON, without a GPU and without a child process.
#pragma once
#include <nlohmann/json.hpp>

#include "gpu/jobs/gpu_runtime.h"
#include "gpu/nvidia/nccl_library.h"

namespace labcheck::gpu {

// Options every copy job takes besides JobArgs' own: `--copy-mib N` sets the buffer size
// (tests and slow simulated machines; the defaults are what docs/gpu-checks.md says).
nlohmann::json InventoryJobOn(GpuRuntime& runtime, const JobArgs& args);
nlohmann::json MatmulJobOn(GpuRuntime& runtime, const CublasLt& lt, const JobArgs& args);
nlohmann::json MemoryJobOn(GpuRuntime& runtime, const JobArgs& args);
nlohmann::json HostCopyJobOn(GpuRuntime& runtime, const JobArgs& args);
nlohmann::json PeerJobOn(GpuRuntime& runtime, const JobArgs& args);
// gpu-health on an open runtime: `--quick` shortens the load window to 500 ms.
nlohmann::json HealthJobOn(GpuRuntime& runtime, const JobArgs& args);
nlohmann::json AllReduceJobOn(GpuRuntime& runtime, const Nccl& nccl, const JobArgs& args);

}  // namespace labcheck::gpu

// The child jobs behind the GPU checks, run as `lab_check internal-child JOB ARGS`. Each loads
// NVIDIA's libraries itself, so a crash in a driver ends only that child.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/status.h"

namespace labcheck::gpu {

inline constexpr const char* kInventoryJob = "gpu-inventory";
inline constexpr const char* kMatmulJob = "gpu-matmul";
inline constexpr const char* kMemoryJob = "gpu-memory";
inline constexpr const char* kHostCopyJob = "gpu-host-copy";
inline constexpr const char* kPeerJob = "gpu-p2p";
inline constexpr const char* kAllReduceJob = "gpu-allreduce";
// One rank per process, under a cluster launcher (docs/multi-node.md).
inline constexpr const char* kAllReduceRankJob = "gpu-allreduce-rank";
inline constexpr const char* kClusterGatherJob = "gpu-cluster-gather";
// The block each rank hands to rank 0 in the gather: its JSON must fit (it has no NCCL log or
// library list, only figures and facts, a few KiB).
inline constexpr size_t kClusterBlockBytes = 32 * 1024;
inline constexpr const char* kHealthJob = "gpu-health";
inline constexpr const char* kBurnJob = "gpu-burn";
// The memory test: gpu.memtest, `lab_check memtest`, `burn --memtest`, `node-check --memtest`.
inline constexpr const char* kMemtestJob = "gpu-memtest";
// `lab_check node-check`: inventory, health, NVLink states, a short matmul and copy per GPU, in
// one process so that the driver is initialised once (src/node_check/).
inline constexpr const char* kNodeCheckJob = "gpu-node-check";

Result<nlohmann::json> InventoryJob(const std::vector<std::string>& args);
Result<nlohmann::json> MatmulJob(const std::vector<std::string>& args);
Result<nlohmann::json> MemoryJob(const std::vector<std::string>& args);
Result<nlohmann::json> HostCopyJob(const std::vector<std::string>& args);
Result<nlohmann::json> PeerJob(const std::vector<std::string>& args);
Result<nlohmann::json> AllReduceJob(const std::vector<std::string>& args);
Result<nlohmann::json> AllReduceRankJob(const std::vector<std::string>& args);
Result<nlohmann::json> ClusterGatherJob(const std::vector<std::string>& args);
Result<nlohmann::json> HealthJob(const std::vector<std::string>& args);  // health_job.cpp
Result<nlohmann::json> BurnJob(const std::vector<std::string>& args);    // burn_job.cpp
Result<nlohmann::json> MemtestJob(const std::vector<std::string>& args);  // memtest_job.cpp
Result<nlohmann::json> NodeCheckJob(const std::vector<std::string>& args);  // node_check_job.cpp

}  // namespace labcheck::gpu

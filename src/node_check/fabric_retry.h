// cuInit's 802 while an NVSwitch board's fabric manager is still registering the GPUs at boot: the
// driver says "system not yet initialized" until it has (gpu/nvidia/cuda_init_result.cpp). Without
// a wait, the health check slurmd runs at boot drains the node once per boot. node-check runs its
// child again a few times, a second apart, before it judges; each try is a new process, so a
// driver that remembered a failed cuInit for the life of a process could not hide a fabric that
// became ready meanwhile.
#pragma once
#include <functional>

#include "node_check/verdict/env_lookup.h"
#include "runner/cancel.h"
#include "runner/child_job.h"

namespace labcheck::node_check {

// Five retries one second apart: a few seconds in all, well inside the 30 s node-check gives
// itself under slurmd (node_check_command.h). LABCHECK_TEST_FABRIC_RETRY_MS scales the step down
// in tests.
inline constexpr int kFabricRetries = 5;
inline constexpr int kFabricRetryStepMs = 1000;

// Whether the child said cuInit 802 (CUDA_ERROR_SYSTEM_NOT_READY).
bool FabricNotReady(const ChildJobOutcome& outcome);

// run() again while it says 802, up to kFabricRetries times; `retries` counts the reruns.
ChildJobOutcome RunWhileFabricStarts(const std::function<ChildJobOutcome()>& run, const CancelToken& cancel,
                                     const EnvLookup& env, int& retries);

}  // namespace labcheck::node_check

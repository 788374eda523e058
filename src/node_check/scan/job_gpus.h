// Under a Slurm job on a node that jobs share, node-check judges the job's GPUs and leaves the
// others (and their jobs' processes) alone. A job step has CUDA_VISIBLE_DEVICES set by Slurm;
// a prolog or epilog has only SLURM_JOB_GPUS ("The GPU IDs of GPUs in the job allocation", Slurm's
// Prolog and Epilog Guide, https://slurm.schedmd.com/prolog_epilog.html), which node-check hands
// to its child as CUDA_VISIBLE_DEVICES with CUDA_DEVICE_ORDER=PCI_BUS_ID: Slurm's GPU ids count
// the node's /dev/nvidiaN devices, which NVML numbers in PCI bus order (an assumption that holds
// where gres.conf lists the devices in order, as AutoDetect=nvml does). The health check (no
// SLURM_JOB_ID) still judges the whole node.
#pragma once
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "node_check/verdict/env_lookup.h"

namespace labcheck::node_check {

struct JobGpus {
  int count = 0;                                              // the job's GPUs: what is expected
  std::string ids;                                            // as Slurm gave them ("1,3")
  std::string source;                                         // "CUDA_VISIBLE_DEVICES" or "SLURM_JOB_GPUS"
  std::vector<std::pair<std::string, std::string>> child_env; // what the child needs to see only them
};

// nullopt outside a job, or in a job that names no GPUs (then the whole node is judged).
std::optional<JobGpus> JobGpusFromEnv(const EnvLookup& env);

}  // namespace labcheck::node_check

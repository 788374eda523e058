// How node-check reads the environment: a function, so that tests hand in their own variables
// (SLURM_JOB_GPUS, SLURMD_NODENAME, LABCHECK_SYSFS_ROOT…) without touching the process's.
#pragma once
#include <functional>
#include <optional>
#include <string>

namespace labcheck::node_check {

using EnvLookup = std::function<std::optional<std::string>(const std::string& name)>;

}  // namespace labcheck::node_check

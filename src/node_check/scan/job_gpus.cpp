#include "node_check/scan/job_gpus.h"

#include <algorithm>

namespace labcheck::node_check {

namespace {

std::string NonEmpty(const EnvLookup& env, const char* name) { return env(name).value_or(""); }

int CountIds(const std::string& ids) {
  if (ids.empty()) return 0;
  return static_cast<int>(std::count(ids.begin(), ids.end(), ',')) + 1;
}

}  // namespace

std::optional<JobGpus> JobGpusFromEnv(const EnvLookup& env) {
  if (NonEmpty(env, "SLURM_JOB_ID").empty()) return std::nullopt;
  JobGpus job;
  if (std::string visible = NonEmpty(env, "CUDA_VISIBLE_DEVICES"); !visible.empty()) {
    // A job step, and a prolog under Slurm 22.05 (Debian 12's slurmd sets it there too: the real
    // Slurm test sees it): the child inherits it. Slurm's ids count gres.conf's devices in bus
    // order; CUDA's default order guesses the fastest card as 0 and leaves the rest unspecified,
    // so where the environment names no order, the child is given the bus order.
    job.ids = visible;
    job.source = "CUDA_VISIBLE_DEVICES";
    if (NonEmpty(env, "CUDA_DEVICE_ORDER").empty()) job.child_env = {{"CUDA_DEVICE_ORDER", "PCI_BUS_ID"}};
  } else if (std::string gpus = NonEmpty(env, "SLURM_JOB_GPUS"); !gpus.empty()) {
    job.ids = gpus;
    job.source = "SLURM_JOB_GPUS";
    job.child_env = {{"CUDA_VISIBLE_DEVICES", gpus}, {"CUDA_DEVICE_ORDER", "PCI_BUS_ID"}};
  } else {
    return std::nullopt;
  }
  job.count = CountIds(job.ids);
  return job;
}

}  // namespace labcheck::node_check

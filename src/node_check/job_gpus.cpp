#include "node_check/job_gpus.h"

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
    job.ids = visible;  // a job step: the child inherits it and sees the job's GPUs only
    job.source = "CUDA_VISIBLE_DEVICES";
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

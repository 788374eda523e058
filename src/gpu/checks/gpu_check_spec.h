// One GPU check, said once: its id, where and when it runs, the child job it runs (if any) and the
// checks it reads. Each check file ends with its spec (gpu_check_list.h names them); the ordered
// list in gpu_checks.cpp registers the checks and their child jobs from these specs alone, so a
// new check is its file, one line in that list, and its test.
#pragma once
#include <vector>

#include "core/text.h"
#include "runner/check.h"
#include "runner/child_job.h"

namespace labcheck::gpu {

struct GpuCheckSpec {
  const char* id = "";       // "gpu.matmul" (docs/report-schema.md); other GPU code reads it from here
  const char* section = "";  // "gpu" or "interconnect"
  Text title;
  QuickMode quick = QuickMode::Full;
  bool distributed = false;  // SKIP under --skip-dist
  double budget_s = 60;      // the child's timeout, not an expected duration (runner/check.h)
  // The child job it runs as `lab_check internal-child JOB` (gpu/jobs/gpu_jobs.h); registered
  // from the list with the check. nullptr: the check runs no job of its own.
  const char* job = nullptr;
  ChildJobFn job_fn;
  CheckResult (*run)(CheckContext&) = nullptr;
  // The checks whose results `run` reads (Check::reads): pointers, so a reader cannot misspell an
  // id. Taking another file's spec's address is a constant, safe in a static initialiser.
  std::vector<const GpuCheckSpec*> reads = {};
};

// The runner's view of a spec.
Check ToCheck(const GpuCheckSpec& spec);

}  // namespace labcheck::gpu

// The GPUs of this machine in brief, for the calculators' `plan`: read through the inventory child
// job (so a broken driver cannot crash the caller). No GPU, no driver or the stub driver give an
// empty list; a crash, a timeout or a failing driver give the error.
#pragma once
#include <string>
#include <vector>

#include "core/status.h"

namespace labcheck {

struct LiveGpuBrief {
  std::string name;
  double memory_total_gib = 0;
};

Result<std::vector<LiveGpuBrief>> ReadLiveGpus(const std::string& self_exe, double timeout_s);

}  // namespace labcheck

// Slurm's compressed host lists, as SLURM_JOB_NODELIST / SLURM_STEP_NODELIST hold them:
// "gpu[01-04,07],login1" → gpu01 gpu02 gpu03 gpu04 gpu07 login1. Zero padding follows the
// written width of the range's first number, and several bracket groups in one name multiply
// ("rack[1-2]-n[1-2]" → rack1-n1 rack1-n2 rack2-n1 rack2-n2), as `scontrol show hostnames` does
// (slurm.schedmd.com/scontrol.html, "hostnames"). We only need the first host — rank 0's node,
// where NCCL's bootstrap root listens — but expanding the whole list catches malformed input.
#pragma once
#include <string>
#include <vector>

#include "core/status.h"

namespace labcheck::cluster {

// An error names the part of the list that could not be read. Lists longer than `max_hosts`
// are refused (a typo like "n[1-99999999]" must not eat memory).
Result<std::vector<std::string>> ExpandHostList(const std::string& list, size_t max_hosts = 100000);

// The first host, without expanding the rest beyond what is needed to check it.
Result<std::string> FirstHost(const std::string& list);

}  // namespace labcheck::cluster

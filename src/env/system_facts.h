// Everything env.system reports, gathered once from /proc, /sys and statvfs. Each part carries its
// own error, so one unreadable file costs one line of the report, not the check.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "env/cpu_info.h"
#include "env/disk_space.h"
#include "env/os_info.h"

namespace labcheck::env {

enum class DiskRole { CurrentDirectory, HfCache };

struct DiskFacts {
  DiskRole role = DiskRole::CurrentDirectory;
  std::string path;
  std::optional<DiskSpace> space;
  std::string error;  // why `space` is empty
};

struct SystemFacts {
  OsInfo os;
  std::optional<CpuInfo> cpu;
  std::string cpu_error;
  std::optional<MemInfo> memory;
  std::string memory_error;
  std::vector<DiskFacts> disks;  // the current directory first, then the HF cache
  HfCacheLocation hf_cache;
  std::optional<DiskSpace> shm;  // /dev/shm; empty when it does not exist
  std::string shm_error;
};

// Reads this machine. Never fails as a whole: missing parts carry their error.
SystemFacts CollectSystemFacts();

}  // namespace labcheck::env

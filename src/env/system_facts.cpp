#include "env/system_facts.h"

#include <cstdlib>
#include <filesystem>

namespace labcheck::env {
namespace {

DiskFacts MeasureRole(DiskRole role, const std::string& path) {
  DiskFacts facts;
  facts.role = role;
  facts.path = path;
  if (auto space = MeasureDiskSpace(path); space.ok()) {
    facts.space = std::move(space).value();
  } else {
    facts.error = space.status().message();
  }
  return facts;
}

}  // namespace

SystemFacts CollectSystemFacts() {
  SystemFacts facts;
  facts.os = ReadOsInfo();

  if (auto cpu = ReadCpuInfo(); cpu.ok()) {
    facts.cpu = std::move(cpu).value();
  } else {
    facts.cpu_error = cpu.status().message();
  }
  if (auto memory = ReadMemInfo(); memory.ok()) {
    facts.memory = *memory;
  } else {
    facts.memory_error = memory.status().message();
  }

  std::error_code error;
  std::string cwd = std::filesystem::current_path(error).string();
  facts.disks.push_back(MeasureRole(DiskRole::CurrentDirectory, error ? "/" : cwd));
  facts.hf_cache = ResolveHfCache([](const char* name) { return std::getenv(name); });
  facts.disks.push_back(MeasureRole(DiskRole::HfCache, facts.hf_cache.path));

  // Measured only where /dev/shm itself exists: its parent /dev says nothing about shared memory.
  if (std::filesystem::is_directory("/dev/shm", error)) {
    if (auto shm = MeasureDiskSpace("/dev/shm"); shm.ok()) {
      facts.shm = std::move(shm).value();
    } else {
      facts.shm_error = shm.status().message();
    }
  } else {
    facts.shm_error = "/dev/shm does not exist";
  }
  return facts;
}

}  // namespace labcheck::env

#include "env/disk_space.h"

#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace labcheck::env {
namespace {

bool IsSet(const char* value) { return value != nullptr && value[0] != '\0'; }

std::string CurrentDirectory() {
  std::error_code error;
  auto cwd = std::filesystem::current_path(error);
  return error ? std::string("/") : cwd.string();
}

}  // namespace

std::string AbsolutePath(const std::string& base, const std::string& relative) {
  if (relative.empty() || relative.front() == '/') return relative;
  return (std::filesystem::path(base) / relative).lexically_normal().string();
}

HfCacheLocation ResolveHfCache(const std::function<const char*(const char*)>& getenv) {
  const std::string cwd = CurrentDirectory();
  for (const char* name : {"HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE"}) {
    if (const char* value = getenv(name); IsSet(value)) return {AbsolutePath(cwd, value), name};
  }
  if (const char* home = getenv("HF_HOME"); IsSet(home)) {
    return {AbsolutePath(cwd, std::string(home) + "/hub"), "HF_HOME"};
  }
  if (const char* xdg = getenv("XDG_CACHE_HOME"); IsSet(xdg)) {
    return {AbsolutePath(cwd, std::string(xdg) + "/huggingface/hub"), "XDG_CACHE_HOME"};
  }
  const char* home = getenv("HOME");
  std::string base = IsSet(home) ? home : cwd;
  return {base + "/.cache/huggingface/hub", "default"};
}

Result<DiskSpace> MeasureDiskSpace(const std::string& path) {
  DiskSpace space;
  space.path = path;
  std::filesystem::path probe = std::filesystem::path(path).lexically_normal();
  std::error_code error;
  space.exists = std::filesystem::exists(probe, error);
  while (!std::filesystem::exists(probe, error) && probe.has_parent_path() &&
         probe.parent_path() != probe) {
    probe = probe.parent_path();
  }
  space.measured_path = probe.string();

  struct statvfs fs {};
  if (statvfs(space.measured_path.c_str(), &fs) != 0) {
    return Status::Error("statvfs " + space.measured_path + ": " + std::strerror(errno));
  }
  space.free_bytes = static_cast<uint64_t>(fs.f_bavail) * fs.f_frsize;
  space.total_bytes = static_cast<uint64_t>(fs.f_blocks) * fs.f_frsize;
  struct stat st {};
  if (stat(space.measured_path.c_str(), &st) == 0) space.device = st.st_dev;
  return space;
}

}  // namespace labcheck::env

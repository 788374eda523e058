// Free space where the course writes: the current directory (checkpoints, datasets), the Hugging
// Face cache (model downloads) and /dev/shm (NCCL and DataLoader workers share tensors there).
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "core/status.h"

namespace labcheck::env {

// Where huggingface_hub stores downloads, and which setting decided it.
struct HfCacheLocation {
  std::string path;    // absolute path of the hub cache directory
  std::string source;  // "HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE", "HF_HOME", "XDG_CACHE_HOME", "default"
};

// Resolves the hub cache the way huggingface_hub does: HF_HUB_CACHE, then the legacy
// HUGGINGFACE_HUB_CACHE, then $HF_HOME/hub, then $XDG_CACHE_HOME/huggingface/hub, then
// ~/.cache/huggingface/hub. `getenv` is injected so tests do not touch the process environment.
HfCacheLocation ResolveHfCache(const std::function<const char*(const char*)>& getenv);

// Space on the file system that holds `path`. A path that does not exist yet (a fresh machine has
// no HF cache) is measured at its nearest existing parent, where it would be created.
struct DiskSpace {
  std::string path;           // as asked
  std::string measured_path;  // the existing directory statvfs was called on
  bool exists = false;        // whether `path` itself exists
  // f_bavail × f_frsize: what an unprivileged user can still write (root's reserve excluded).
  uint64_t free_bytes = 0;
  uint64_t total_bytes = 0;  // f_blocks × f_frsize
  uint64_t device = 0;       // st_dev, to tell when two paths share one file system
};

Result<DiskSpace> MeasureDiskSpace(const std::string& path);

// Joins `relative` onto `base` unless it is already absolute ("~" is not expanded: the shell does
// that before an environment variable is set).
std::string AbsolutePath(const std::string& base, const std::string& relative);

}  // namespace labcheck::env

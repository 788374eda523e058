#include "gpu/nvidia/nvidia_search_paths.h"

#include <cstdlib>

#include "platform/machine_arch.h"

namespace labcheck::gpu {

std::vector<std::string> DriverFolders() {
  return {std::string("/usr/lib/") + MultiarchTriplet(), "/usr/lib64", "/usr/lib", "/usr/local/nvidia/lib64", "/usr/local/nvidia/lib", "/usr/lib/wsl/lib"};
}

LibrarySearchPaths NvidiaSearchPaths(std::vector<std::string> site_packages) {
  LibrarySearchPaths paths;
  paths.ld_library_path = LibrarySearchPaths::LdLibraryPathFromEnvironment();
  for (const char* variable : {"CUDA_HOME", "CUDA_PATH"}) {
    const char* value = std::getenv(variable);
    if (value != nullptr && value[0] != '\0') paths.toolkit_roots.emplace_back(value);
  }
  paths.toolkit_roots.emplace_back("/usr/local/cuda");
  paths.toolkit_lib_folders = {"lib64", "lib"};
  for (const std::string& target : CudaTargetNames()) paths.toolkit_lib_folders.push_back("targets/" + target + "/lib");
  paths.site_packages = std::move(site_packages);
  // cu13 (the CUDA 13 wheels put every library there) sorts among cublas, nccl and the rest.
  paths.wheel_namespace = "nvidia";
  paths.loader_cache_file = "/etc/ld.so.cache";
  paths.driver_folders = DriverFolders();
  return paths;
}

}  // namespace labcheck::gpu

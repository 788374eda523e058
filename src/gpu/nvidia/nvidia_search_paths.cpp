#include "gpu/nvidia/nvidia_search_paths.h"

#include <cstdlib>

namespace labcheck::gpu {

LibrarySearchPaths NvidiaSearchPaths(std::vector<std::string> site_packages) {
  LibrarySearchPaths paths;
  paths.ld_library_path = LibrarySearchPaths::LdLibraryPathFromEnvironment();
  for (const char* variable : {"CUDA_HOME", "CUDA_PATH"}) {
    const char* value = std::getenv(variable);
    if (value != nullptr && value[0] != '\0') paths.toolkit_roots.emplace_back(value);
  }
  paths.toolkit_roots.emplace_back("/usr/local/cuda");
  paths.toolkit_lib_folders = {"lib64", "lib", "targets/x86_64-linux/lib", "targets/sbsa-linux/lib"};
  paths.site_packages = std::move(site_packages);
  // cu13 (the CUDA 13 wheels put every library there) sorts among cublas, nccl and the rest.
  paths.wheel_namespace = "nvidia";
  return paths;
}

}  // namespace labcheck::gpu

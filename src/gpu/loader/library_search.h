// Where NVIDIA's libraries are looked for, in a stated order, and which file was taken.
//
// Order (docs/gpu-checks.md): LD_LIBRARY_PATH; the dynamic loader's cache and system folders (a
// bare soname handed to dlopen); $CUDA_HOME and $CUDA_PATH, then /usr/local/cuda (lib64, lib);
// the chosen Python's site-packages, nvidia/*/lib (pip's nvidia-cublas-cu12, nvidia-nccl-cu12 and
// the CUDA 13 wheels' nvidia/cu13/lib), which is where a pip-installed PyTorch keeps cuBLAS and
// NCCL: the course promises no separate CUDA toolkit is needed. The driver's own libraries
// (libcuda, NVML) are looked for only in the first two places: a toolkit holds only their stubs.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "core/status.h"
#include "gpu/loader/dynamic_library.h"

namespace labcheck::gpu {

struct LibrarySearchPaths {
  std::vector<std::string> ld_library_path;  // folders, in order
  std::vector<std::string> cuda_roots;       // toolkit roots: $CUDA_HOME, $CUDA_PATH, /usr/local/cuda
  std::vector<std::string> site_packages;    // the chosen Python's site-packages folders

  // Reads LD_LIBRARY_PATH, CUDA_HOME and CUDA_PATH from this process's environment.
  static LibrarySearchPaths FromEnvironment(std::vector<std::string> site_packages);
};

struct LibrarySpec {
  std::string name;                     // "cuBLASLt", shown in the report
  std::vector<std::string> file_names;  // newest first: libcublasLt.so.13, .so.12, .so.11
  bool driver_library = false;          // libcuda, NVML: not in toolkits or wheels
};

// Where a candidate came from, for the report and for tests.
enum class LibraryOrigin { LdLibraryPath, LoaderCache, CudaRoot, SitePackages };
const char* OriginName(LibraryOrigin origin);

struct LibraryCandidate {
  std::string path;  // a file path, or a bare soname for the loader cache
  LibraryOrigin origin;
};

// The candidates in search order. Folder-based ones are listed only if the file exists there, so a
// fake folder layout in a test gives exactly the files planted in it.
std::vector<LibraryCandidate> CandidatePaths(const LibrarySpec& spec, const LibrarySearchPaths& paths);

struct LoadedLibrary {
  DynamicLibrary library;
  std::string file;  // what the loader mapped
  LibraryOrigin origin = LibraryOrigin::LoaderCache;
};

// Decides whether an opened candidate will do (symbols present, not older than the driver…);
// a rejected one is closed and the search goes on.
using LibraryAcceptor = std::function<Status(const DynamicLibrary&)>;

// Opens the first candidate that opens and is accepted. The error lists every attempt and why it
// failed, so "not found" and "found but unusable" read differently.
Result<LoadedLibrary> LoadFirst(const LibrarySpec& spec, const LibrarySearchPaths& paths,
                                const LibraryAcceptor& accept = {});

}  // namespace labcheck::gpu

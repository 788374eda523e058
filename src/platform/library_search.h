// Where an optional shared library is looked for, in a stated order, and which file was taken.
// The mechanism only: which toolkit roots and wheel folders to search is the caller's policy
// (NVIDIA's is gpu/nvidia/nvidia_search_paths.h).
//
// Order: LD_LIBRARY_PATH; the dynamic loader's cache and system folders (a bare soname handed to
// dlopen); each toolkit root's library folders; the chosen Python's site-packages,
// <wheel_namespace>/*/lib (where pip wheels keep native libraries). A "system" library (a
// driver's own, like libcuda or NVML) is looked for only in the first two places: a toolkit holds
// only its stubs.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "core/status.h"
#include "platform/dynamic_library.h"

namespace labcheck {

struct LibrarySearchPaths {
  std::vector<std::string> ld_library_path;  // folders, in order
  std::vector<std::string> toolkit_roots;    // e.g. $CUDA_HOME, /usr/local/cuda
  std::vector<std::string> toolkit_lib_folders = {"lib64", "lib"};  // under each root, in order
  std::vector<std::string> site_packages;    // the chosen Python's site-packages folders
  std::string wheel_namespace;               // <site>/<this>/*/lib is searched; empty: none

  // This process's LD_LIBRARY_PATH, split at ':' (empty parts dropped).
  static std::vector<std::string> LdLibraryPathFromEnvironment();
};

struct LibrarySpec {
  std::string name;                     // "cuBLASLt", shown in the report
  std::vector<std::string> file_names;  // newest first: libcublasLt.so.13, .so.12, .so.11
  bool driver_library = false;          // a system library (libcuda, NVML): not in toolkits or wheels
};

// Where a candidate came from, for the report and for tests.
enum class LibraryOrigin { LdLibraryPath, LoaderCache, ToolkitRoot, SitePackages };
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

}  // namespace labcheck

// Where an optional shared library is looked for, in a stated order, and which file was taken.
// The mechanism only: which toolkit roots, driver folders and wheel folders to search is the
// caller's policy (NVIDIA's is gpu/nvidia/nvidia_search_paths.h).
//
// Order for an ordinary library:
//   1. LD_LIBRARY_PATH folders;
//   2. with LibrarySpec::wheels_first, the chosen Python's site-packages, <wheel_namespace>/*/lib;
//   3. the dynamic loader (a bare soname handed to dlopen: LD_LIBRARY_PATH again, its cache, the
//      system folders), then each file the loader's cache lists for the soname;
//   4. each toolkit root's library folders;
//   5. without wheels_first, the site-packages wheel folders.
// A "driver library" (libcuda, NVML: the driver's own) is looked for in 1, 3 and then the usual
// driver folders (LibrarySearchPaths::driver_folders), never in toolkits or wheels: a toolkit
// holds only its stubs.
//
// Every candidate that opens is judged (symbols present, not a stub, built for a CUDA the driver
// runs…). A refused one is closed and the search goes on; the refusals are kept, with the reason,
// for the report. A file reached twice (a symlink, the bare soname resolving to a file already
// judged) is judged once.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/status.h"
#include "core/text.h"
#include "platform/dynamic_library.h"

namespace labcheck {

struct LibrarySearchPaths {
  std::vector<std::string> ld_library_path;  // folders, in order
  std::vector<std::string> toolkit_roots;    // e.g. $CUDA_HOME, /usr/local/cuda
  std::vector<std::string> toolkit_lib_folders = {"lib64", "lib"};  // under each root, in order
  std::vector<std::string> site_packages;    // the chosen Python's site-packages folders
  std::string wheel_namespace;               // <site>/<this>/*/lib is searched; empty: none
  std::string loader_cache_file;             // /etc/ld.so.cache; empty: not read (tests)
  std::vector<std::string> driver_folders;   // for driver libraries, after the loader
  // The loaded driver's CUDA version (12080 for 12.8), 0 while unknown: judges refuse a library
  // built for a newer CUDA major. Set once the driver is up (GpuRuntime).
  int driver_cuda_version = 0;

  // This process's LD_LIBRARY_PATH, split at ':' (empty parts dropped).
  static std::vector<std::string> LdLibraryPathFromEnvironment();
};

struct LibrarySpec {
  std::string name;                     // "cuBLASLt", shown in the report
  std::vector<std::string> file_names;  // newest first: libcublasLt.so.13, .so.12, .so.11
  bool driver_library = false;          // a system library (libcuda, NVML): not in toolkits or wheels
  bool wheels_first = false;            // site-packages wheels before the loader and toolkits (NCCL)
};

// Where a candidate came from, for the report and for tests.
enum class LibraryOrigin { LdLibraryPath, LoaderCache, ToolkitRoot, SitePackages, DriverFolder };
const char* OriginName(LibraryOrigin origin);

struct LibraryCandidate {
  std::string path;  // a file path, or a bare soname for the loader
  LibraryOrigin origin;
};

// The candidates in search order. Folder-based ones are listed only if the file exists there, so a
// fake folder layout in a test gives exactly the files planted in it.
std::vector<LibraryCandidate> CandidatePaths(const LibrarySpec& spec, const LibrarySearchPaths& paths);

// A candidate that opened and was refused, and why (both languages: it is shown in the report).
struct SkippedLibrary {
  std::string file;
  LibraryOrigin origin = LibraryOrigin::LoaderCache;
  Text why;
};

struct LoadedLibrary {
  DynamicLibrary library;
  std::string file;  // what the loader mapped
  LibraryOrigin origin = LibraryOrigin::LoaderCache;
  std::vector<SkippedLibrary> skipped;       // refused before this one, in search order
  std::vector<LibraryCandidate> alternatives;  // files further down the order, never opened
};

// Judges an opened candidate: nothing to take it, else why it is refused. The judge may call
// into the library (cuInit); a refused library is closed right after.
using LibraryJudge = std::function<std::optional<Text>(const DynamicLibrary&)>;
// The same as a Status (Ok: take it); its message is the reason in both languages.
using LibraryAcceptor = std::function<Status(const DynamicLibrary&)>;

struct LibrarySearchResult {
  std::optional<LoadedLibrary> loaded;
  std::vector<SkippedLibrary> skipped;  // every refusal, in search order
  // When nothing was taken: "X not found (names)", or "no usable X (names)" after refusals, then
  // every attempt and why it failed.
  Status error = Status::Ok();
};

// Opens candidates in order until the judge takes one.
LibrarySearchResult SearchLibrary(const LibrarySpec& spec, const LibrarySearchPaths& paths,
                                  const LibraryJudge& judge);

// Opens the first candidate that opens and is accepted. The error lists every attempt and why it
// failed, so "not found" and "found but unusable" read differently.
Result<LoadedLibrary> LoadFirst(const LibrarySpec& spec, const LibrarySearchPaths& paths,
                                const LibraryAcceptor& accept = {});

}  // namespace labcheck

#include "platform/library_search.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <system_error>

namespace labcheck {
namespace fs = std::filesystem;

namespace {

std::vector<std::string> SplitPathList(const char* value) {
  std::vector<std::string> parts;
  if (value == nullptr) return parts;
  std::string text(value);
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find(':', start);
    if (end == std::string::npos) end = text.size();
    if (end > start) parts.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return parts;
}

bool IsFile(const fs::path& path) {
  std::error_code ignored;
  return fs::exists(path, ignored);
}

// <namespace>/*/lib under one site-packages folder, sorted so the order does not depend on the
// file system.
std::vector<fs::path> WheelLibFolders(const std::string& site_packages, const std::string& wheel_namespace) {
  std::vector<fs::path> folders;
  if (wheel_namespace.empty()) return folders;
  std::error_code error;
  fs::directory_iterator it(fs::path(site_packages) / wheel_namespace, error);
  if (error) return folders;
  for (const fs::directory_entry& entry : it) {
    fs::path lib = entry.path() / "lib";
    std::error_code ignored;
    if (fs::is_directory(lib, ignored)) folders.push_back(lib);
  }
  std::sort(folders.begin(), folders.end());
  return folders;
}

}  // namespace

std::vector<std::string> LibrarySearchPaths::LdLibraryPathFromEnvironment() {
  return SplitPathList(std::getenv("LD_LIBRARY_PATH"));
}

const char* OriginName(LibraryOrigin origin) {
  switch (origin) {
    case LibraryOrigin::LdLibraryPath: return "LD_LIBRARY_PATH";
    case LibraryOrigin::LoaderCache: return "loader cache";
    case LibraryOrigin::ToolkitRoot: return "toolkit";
    case LibraryOrigin::SitePackages: return "Python site-packages";
  }
  return "?";
}

std::vector<LibraryCandidate> CandidatePaths(const LibrarySpec& spec, const LibrarySearchPaths& paths) {
  std::vector<LibraryCandidate> candidates;
  std::set<std::string> seen;
  auto add = [&](const std::string& path, LibraryOrigin origin) {
    if (seen.insert(path).second) candidates.push_back({path, origin});
  };
  for (const std::string& folder : paths.ld_library_path)
    for (const std::string& file : spec.file_names)
      if (IsFile(fs::path(folder) / file)) add((fs::path(folder) / file).string(), LibraryOrigin::LdLibraryPath);
  for (const std::string& file : spec.file_names) add(file, LibraryOrigin::LoaderCache);
  if (spec.driver_library) return candidates;
  for (const std::string& root : paths.toolkit_roots)
    for (const std::string& sub : paths.toolkit_lib_folders)
      for (const std::string& file : spec.file_names)
        if (IsFile(fs::path(root) / sub / file)) add((fs::path(root) / sub / file).string(), LibraryOrigin::ToolkitRoot);
  for (const std::string& site : paths.site_packages)
    for (const fs::path& folder : WheelLibFolders(site, paths.wheel_namespace))
      for (const std::string& file : spec.file_names)
        if (IsFile(folder / file)) add((folder / file).string(), LibraryOrigin::SitePackages);
  return candidates;
}

Result<LoadedLibrary> LoadFirst(const LibrarySpec& spec, const LibrarySearchPaths& paths,
                                const LibraryAcceptor& accept) {
  std::string attempts;
  for (const LibraryCandidate& candidate : CandidatePaths(spec, paths)) {
    Result<DynamicLibrary> opened = DynamicLibrary::Open(candidate.path);
    if (!opened.ok()) {
      // A bare soname the loader does not know is the common case, not worth a line each.
      if (candidate.origin != LibraryOrigin::LoaderCache ||
          opened.status().message().find("No such file") == std::string::npos) {
        attempts += "\n  " + candidate.path + ": " + opened.status().message();
      }
      continue;
    }
    if (accept) {
      Status verdict = accept(opened.value());
      if (!verdict.ok()) {
        attempts += "\n  " + opened->file() + ": " + verdict.message();
        continue;
      }
    }
    LoadedLibrary loaded{std::move(opened).value(), "", candidate.origin};
    loaded.file = loaded.library.file();
    return loaded;
  }
  std::string names;
  for (const std::string& file : spec.file_names) names += (names.empty() ? "" : ", ") + file;
  return Status::Error(spec.name + " not found (" + names + ")" + attempts);
}

}  // namespace labcheck

#include "platform/library_search.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <system_error>

#include "platform/loader_cache.h"

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

// The same file however it was reached (symlinks, "lib/../lib"); the path itself when it cannot
// be resolved.
std::string FileIdentity(const std::string& path) {
  std::error_code error;
  fs::path resolved = fs::canonical(path, error);
  return error ? path : resolved.string();
}

bool IsBareSoname(const std::string& path) { return path.find('/') == std::string::npos; }

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
    case LibraryOrigin::DriverFolder: return "driver folder";
  }
  return "?";
}

std::vector<LibraryCandidate> CandidatePaths(const LibrarySpec& spec, const LibrarySearchPaths& paths) {
  std::vector<LibraryCandidate> candidates;
  std::set<std::string> seen;
  auto add = [&](const std::string& path, LibraryOrigin origin) {
    if (seen.insert(path).second) candidates.push_back({path, origin});
  };
  auto add_in = [&](const fs::path& folder, LibraryOrigin origin) {
    for (const std::string& file : spec.file_names)
      if (IsFile(folder / file)) add((folder / file).string(), origin);
  };
  auto add_wheels = [&] {
    for (const std::string& site : paths.site_packages)
      for (const fs::path& folder : WheelLibFolders(site, paths.wheel_namespace)) add_in(folder, LibraryOrigin::SitePackages);
  };
  for (const std::string& folder : paths.ld_library_path) add_in(folder, LibraryOrigin::LdLibraryPath);
  const bool wheels = !spec.driver_library;
  if (wheels && spec.wheels_first) add_wheels();
  for (const std::string& file : spec.file_names) add(file, LibraryOrigin::LoaderCache);
  for (const std::string& file : spec.file_names)
    for (const std::string& cached : LoaderCacheFiles(paths.loader_cache_file, file))
      add(cached, LibraryOrigin::LoaderCache);
  if (spec.driver_library) {
    for (const std::string& folder : paths.driver_folders) add_in(folder, LibraryOrigin::DriverFolder);
    return candidates;
  }
  for (const std::string& root : paths.toolkit_roots)
    for (const std::string& sub : paths.toolkit_lib_folders) add_in(fs::path(root) / sub, LibraryOrigin::ToolkitRoot);
  if (!spec.wheels_first) add_wheels();
  return candidates;
}

LibrarySearchResult SearchLibrary(const LibrarySpec& spec, const LibrarySearchPaths& paths, const LibraryJudge& judge) {
  LibrarySearchResult result;
  std::string attempts;
  std::set<std::string> judged;  // FileIdentity() of every file already opened and judged
  const std::vector<LibraryCandidate> candidates = CandidatePaths(spec, paths);
  for (size_t i = 0; i < candidates.size(); ++i) {
    const LibraryCandidate& candidate = candidates[i];
    if (!IsBareSoname(candidate.path) && judged.count(FileIdentity(candidate.path)) != 0) continue;
    Result<DynamicLibrary> opened = DynamicLibrary::Open(candidate.path);
    if (!opened.ok()) {
      // A bare soname the loader does not know is the common case, not worth a line each.
      if (!IsBareSoname(candidate.path) || opened.status().message().find("No such file") == std::string::npos) {
        attempts += "\n  " + candidate.path + ": " + opened.status().message();
      }
      continue;
    }
    // A bare soname resolves through LD_LIBRARY_PATH first: after a refused stub there, dlopen
    // hands back that same stub; it was judged already.
    if (!judged.insert(FileIdentity(opened->file())).second) continue;
    std::optional<Text> refused = judge ? judge(opened.value()) : std::nullopt;
    if (refused) {
      attempts += "\n  " + opened->file() + ": " + refused->en;
      result.skipped.push_back({opened->file(), candidate.origin, *refused});
      continue;  // `opened` goes out of scope: dlclose
    }
    LoadedLibrary loaded{std::move(opened).value(), "", candidate.origin, result.skipped, {}};
    loaded.file = loaded.library.file();
    for (size_t j = i + 1; j < candidates.size(); ++j) {
      const LibraryCandidate& later = candidates[j];
      if (IsBareSoname(later.path) || judged.count(FileIdentity(later.path)) != 0) continue;
      if (std::none_of(loaded.alternatives.begin(), loaded.alternatives.end(),
                       [&](const LibraryCandidate& c) { return FileIdentity(c.path) == FileIdentity(later.path); }))
        loaded.alternatives.push_back(later);
    }
    result.loaded = std::move(loaded);
    result.error = Status::Ok();
    return result;
  }
  std::string names;
  for (const std::string& file : spec.file_names) names += (names.empty() ? "" : ", ") + file;
  // "not found" only when nothing opened and was refused: a refused stub is not an absence.
  const std::string what = result.skipped.empty() ? spec.name + " not found" : "no usable " + spec.name;
  result.error = Status::Error(what + " (" + names + ")" + attempts);
  return result;
}

Result<LoadedLibrary> LoadFirst(const LibrarySpec& spec, const LibrarySearchPaths& paths,
                                const LibraryAcceptor& accept) {
  LibrarySearchResult found = SearchLibrary(spec, paths, [&](const DynamicLibrary& library) -> std::optional<Text> {
    if (!accept) return std::nullopt;
    Status verdict = accept(library);
    if (verdict.ok()) return std::nullopt;
    return Text(verdict.message());
  });
  if (!found.loaded) return found.error;
  return std::move(*found.loaded);
}

}  // namespace labcheck

#include "gpu/nvidia/nccl_library.h"

#include <cstdio>
#include <filesystem>
#include <string_view>
#include <system_error>

#include <fmt/format.h>

#include "gpu/nvidia/cublaslt_library.h"
#include "gpu/nvidia/cuda_driver.h"
#include "platform/elf_section.h"

namespace labcheck::gpu {

std::vector<SymbolBinding> NcclSymbols(nccl::NcclApi& a) {
  return {
      Required(a.ncclGetVersion, {"ncclGetVersion"}),
      Required(a.ncclGetErrorString, {"ncclGetErrorString"}),
      Optional(a.ncclGetLastError, {"ncclGetLastError"}),
      Required(a.ncclGetUniqueId, {"ncclGetUniqueId"}),
      Required(a.ncclCommInitAll, {"ncclCommInitAll"}),
      Required(a.ncclCommInitRank, {"ncclCommInitRank"}),
      Required(a.ncclCommDestroy, {"ncclCommDestroy"}),
      Required(a.ncclCommAbort, {"ncclCommAbort"}),
      Required(a.ncclCommGetAsyncError, {"ncclCommGetAsyncError"}),
      Required(a.ncclCommCount, {"ncclCommCount"}),
      Required(a.ncclCommUserRank, {"ncclCommUserRank"}),
      Required(a.ncclAllReduce, {"ncclAllReduce"}),
      Optional(a.ncclAllGather, {"ncclAllGather"}),
      Required(a.ncclGroupStart, {"ncclGroupStart"}),
      Required(a.ncclGroupEnd, {"ncclGroupEnd"}),
  };
}

std::optional<NcclBuild> ParseNcclVersionString(const std::string& text) {
  constexpr std::string_view kPrefix = "NCCL version ";
  for (size_t at = text.find(kPrefix); at != std::string::npos; at = text.find(kPrefix, at + 1)) {
    // The first of the format strings that share the prefix to carry "+cuda" is VERSION_STRING.
    const size_t end = text.find('\0', at);
    const std::string line = text.substr(at + kPrefix.size(), end == std::string::npos ? std::string::npos : end - at - kPrefix.size());
    const size_t plus = line.find("+cuda");
    if (plus == std::string::npos) continue;
    int major = 0, minor = 0;
    if (std::sscanf(line.c_str() + plus, "+cuda%d.%d", &major, &minor) != 2) continue;
    NcclBuild build;
    build.version = line.substr(0, line.find_first_not_of("0123456789.", 0));
    build.cuda_version = major * 1000 + minor * 10;
    build.source = "library";
    return build;
  }
  return std::nullopt;
}

int NcclWheelCudaVersion(const std::string& file) {
  namespace fs = std::filesystem;
  const fs::path lib = fs::path(file).parent_path();
  if (lib.filename() != "lib" || lib.parent_path().filename() != "nccl" ||
      lib.parent_path().parent_path().filename() != "nvidia")
    return 0;
  const fs::path site = lib.parent_path().parent_path().parent_path();
  int found = 0;
  std::error_code error;
  for (const fs::directory_entry& entry : fs::directory_iterator(site, error)) {
    const std::string name = entry.path().filename().string();
    int major = 0;
    if (!name.ends_with(".dist-info") || std::sscanf(name.c_str(), "nvidia_nccl_cu%d-", &major) != 1) continue;
    if (found != 0 && found != major * 1000) return 0;  // two NCCL wheels over one folder: unknown
    found = major * 1000;
  }
  return found;
}

std::optional<NcclBuild> ReadNcclBuild(const std::string& file) {
  // .rodata of NCCL 2.28 is ~220 KB; the cap keeps a wrong file from costing much.
  Result<std::string> rodata = ReadElfSection(file, ".rodata", 64u << 20);
  if (rodata.ok())
    if (std::optional<NcclBuild> build = ParseNcclVersionString(*rodata)) return build;
  if (const int wheel = NcclWheelCudaVersion(file); wheel != 0) return NcclBuild{"", wheel, "wheel"};
  return std::nullopt;
}

Result<std::unique_ptr<Nccl>> Nccl::Load(const LibrarySearchPaths& paths) {
  LibrarySpec spec{"NCCL", {"libnccl.so.2"}, /*driver_library=*/false, /*wheels_first=*/true};
  std::unique_ptr<Nccl> nccl(new Nccl());
  LibrarySearchResult found = SearchLibrary(spec, paths, [&](const DynamicLibrary& library) -> std::optional<Text> {
    nccl::NcclApi api;
    Status bound = BindSymbols(library, NcclSymbols(api));
    if (!bound.ok()) return T("нет нужных функций (" + bound.message() + "), пропущена",
                              "lacks functions we need (" + bound.message() + "), skipped");
    std::optional<NcclBuild> build = ReadNcclBuild(library.file());
    if (build && build->cuda_version > 0 && !DriverRunsLibrary(paths.driver_cuda_version, build->cuda_version)) {
      const std::string built = CudaVersionText(build->cuda_version), driver = CudaVersionText(paths.driver_cuda_version);
      return T(fmt::format("собрана для CUDA {}, а драйвер поддерживает CUDA {}: пропущена", built, driver),
               fmt::format("built for CUDA {}, the driver supports CUDA {}: skipped", built, driver));
    }
    nccl->api_ = api;
    nccl->build_ = build;
    return std::nullopt;
  });
  if (!found.loaded) return found.error;
  nccl->loaded_ = std::move(*found.loaded);
  nccl->api_.ncclGetVersion(&nccl->version_);
  return nccl;
}

std::unique_ptr<Nccl> Nccl::FromApi(const nccl::NcclApi& api) {
  std::unique_ptr<Nccl> nccl(new Nccl());
  nccl->api_ = api;
  if (api.ncclGetVersion != nullptr) api.ncclGetVersion(&nccl->version_);
  return nccl;
}

std::string Nccl::NcclVersionText(int code) {
  if (code >= 10000) return fmt::format("{}.{}.{}", code / 10000, (code % 10000) / 100, code % 100);
  return fmt::format("{}.{}.{}", code / 1000, (code % 1000) / 100, code % 100);
}

std::string Nccl::Describe(nccl::ncclResult_t result) const {
  const char* text = api_.ncclGetErrorString != nullptr ? api_.ncclGetErrorString(result) : nullptr;
  return text != nullptr ? fmt::format("{} ({})", text, result) : fmt::format("ncclResult {}", result);
}

}  // namespace labcheck::gpu

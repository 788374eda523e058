#include "gpu/nvidia/nccl_library.h"

#include <fmt/format.h>

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

Result<std::unique_ptr<Nccl>> Nccl::Load(const LibrarySearchPaths& paths) {
  LibrarySpec spec{"NCCL", {"libnccl.so.2"}, false};
  std::unique_ptr<Nccl> nccl(new Nccl());
  Result<LoadedLibrary> loaded = LoadFirst(spec, paths, [&](const DynamicLibrary& library) {
    return BindSymbols(library, NcclSymbols(nccl->api_));
  });
  if (!loaded.ok()) return loaded.status();
  nccl->loaded_ = std::move(loaded).value();
  Status bound = BindSymbols(nccl->loaded_.library, NcclSymbols(nccl->api_));
  if (!bound.ok()) return bound;
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

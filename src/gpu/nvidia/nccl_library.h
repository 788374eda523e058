// NCCL loaded at run time (libnccl.so.2: a pip-installed PyTorch brings it in
// site-packages/nvidia/nccl/lib). Only the all-reduce child process loads it.
#pragma once
#include <memory>
#include <string>

#include "core/status.h"
#include "gpu/nvidia/nccl_api.h"
#include "platform/library_search.h"

namespace labcheck::gpu {

class Nccl {
 public:
  static Result<std::unique_ptr<Nccl>> Load(const LibrarySearchPaths& paths);

  const nccl::NcclApi& api() const { return api_; }
  const std::string& file() const { return loaded_.file; }
  LibraryOrigin origin() const { return loaded_.origin; }
  int version() const { return version_; }
  std::string VersionText() const { return NcclVersionText(version_); }
  std::string Describe(nccl::ncclResult_t result) const;

  // NCCL's version code: major*10000 + minor*100 + patch since 2.9, major*1000 + … before.
  static std::string NcclVersionText(int code);

 private:
  Nccl() = default;
  LoadedLibrary loaded_;
  nccl::NcclApi api_;
  int version_ = 0;
};

}  // namespace labcheck::gpu

// NCCL loaded at run time (libnccl.so.2: a pip-installed PyTorch brings it in
// site-packages/nvidia/nccl/lib). Only the all-reduce child process loads it.
//
// Which NCCL: the one the chosen Python's PyTorch would load. PyTorch's wheels find libnccl.so.2
// through a RUNPATH into site-packages/nvidia/nccl/lib (pytorch/builder), and the dynamic loader
// searches LD_LIBRARY_PATH before a RUNPATH and the system after it. So: LD_LIBRARY_PATH (an
// explicit choice, which torch honours too), then the wheels (LibrarySpec::wheels_first), then the
// loader's cache and the toolkits (/usr/local/cuda/lib64/libnccl.so.2 is a real NCCL, but not the
// one torch uses). A candidate built for a newer CUDA major than the driver runs is skipped: its
// static CUDA runtime would fail in ncclCommInit with "driver version is insufficient".
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/status.h"
#include "gpu/nvidia/nccl_api.h"
#include "platform/library_search.h"

namespace labcheck::gpu {

// What an NCCL file says of its own build, without loading it.
struct NcclBuild {
  std::string version;    // "2.28.9"
  int cuda_version = 0;   // 13000 for CUDA 13.0; 0 when unknown
  std::string source;     // "library" (its version string) or "wheel" (its dist-info name)
};

// NCCL keeps "NCCL version 2.28.9+cuda13.0" in .rodata (src/init.cc VERSION_STRING, "so that
// running strings on the lib can quickly reveal the version"); failing that, a wheel's
// dist-info name says the CUDA major (nvidia_nccl_cu12-*, nvidia_nccl_cu13-*).
std::optional<NcclBuild> ReadNcclBuild(const std::string& file);
// The version string's fields from a blob of text (the .rodata bytes).
std::optional<NcclBuild> ParseNcclVersionString(const std::string& text);
// 12000 / 13000 from <site>/nvidia_nccl_cuNN-*.dist-info when `file` is
// <site>/nvidia/nccl/lib/libnccl.so.2 and exactly one such dist-info is there; 0 otherwise.
int NcclWheelCudaVersion(const std::string& file);

class Nccl {
 public:
  // paths.driver_cuda_version, when known, refuses NCCL builds for a newer CUDA major.
  static Result<std::unique_ptr<Nccl>> Load(const LibrarySearchPaths& paths);
  // A table filled by someone else (in-process fakes in tests).
  static std::unique_ptr<Nccl> FromApi(const nccl::NcclApi& api);

  const nccl::NcclApi& api() const { return api_; }
  const std::string& file() const { return loaded_.file; }
  LibraryOrigin origin() const { return loaded_.origin; }
  int version() const { return version_; }
  std::string VersionText() const { return NcclVersionText(version_); }
  std::string Describe(nccl::ncclResult_t result) const;
  // The CUDA this NCCL was built for (13000), 0 when unknown.
  int built_for_cuda() const { return build_ ? build_->cuda_version : 0; }
  // Refused before this one / found after it and never opened (the report's alternatives).
  const std::vector<SkippedLibrary>& skipped() const { return loaded_.skipped; }
  const std::vector<LibraryCandidate>& alternatives() const { return loaded_.alternatives; }

  // NCCL's version code: major*10000 + minor*100 + patch since 2.9, major*1000 + … before.
  static std::string NcclVersionText(int code);

 private:
  Nccl() = default;
  LoadedLibrary loaded_;
  nccl::NcclApi api_;
  int version_ = 0;
  std::optional<NcclBuild> build_;
};

// The symbol table Load binds (tests check every name against NVIDIA's libraries).
std::vector<SymbolBinding> NcclSymbols(nccl::NcclApi& api);

}  // namespace labcheck::gpu

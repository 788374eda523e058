// NVIDIA's search policy and the real cuBLASLt and NCCL, where they are installed.
#include <algorithm>

#include <gtest/gtest.h>

#include "gpu/nvidia/cublaslt_library.h"
#include "gpu/nvidia/nccl_library.h"
#include "gpu/nvidia/nvidia_search_paths.h"

namespace labcheck::gpu {
namespace {

TEST(NvidiaSearchPaths, ToolkitFoldersAndWheelsAsDocumented) {
  LibrarySearchPaths paths = NvidiaSearchPaths({"/site"});
  ASSERT_FALSE(paths.toolkit_roots.empty());
  EXPECT_EQ(paths.toolkit_roots.back(), "/usr/local/cuda");
  EXPECT_EQ(paths.toolkit_lib_folders.front(), "lib64");
  EXPECT_NE(std::find(paths.toolkit_lib_folders.begin(), paths.toolkit_lib_folders.end(), "targets/x86_64-linux/lib"),
            paths.toolkit_lib_folders.end());
  EXPECT_EQ(paths.wheel_namespace, "nvidia");
  EXPECT_EQ(paths.site_packages, std::vector<std::string>{"/site"});
}

TEST(LibrarySearch, RealCublasLtLoadsAndRefusesADriverOlderThanIt) {
  LibrarySearchPaths paths = NvidiaSearchPaths({});
  Result<std::unique_ptr<CublasLt>> any = CublasLt::Load(paths, 0);
  if (!any.ok()) GTEST_SKIP() << "no cuBLASLt here: " << any.status().message();
  const int built_for = static_cast<int>((*any)->api().cublasLtGetCudartVersion());
  EXPECT_GE(built_for, 11000);
  EXPECT_FALSE((*any)->VersionText().empty());
  // A driver one major version older than the library: every candidate of that major is refused.
  const int older_driver = (built_for / 1000 - 1) * 1000 + 80;
  Result<std::unique_ptr<CublasLt>> refused = CublasLt::Load(paths, older_driver);
  if (refused.ok()) {
    EXPECT_LE((*refused)->api().cublasLtGetCudartVersion() / 1000, static_cast<size_t>(older_driver / 1000));
  } else {
    EXPECT_NE(refused.status().message().find("built for CUDA"), std::string::npos) << refused.status().message();
  }
}

TEST(LibrarySearch, RealNcclReportsItsVersion) {
  Result<std::unique_ptr<Nccl>> nccl = Nccl::Load(NvidiaSearchPaths({}));
  if (!nccl.ok()) GTEST_SKIP() << "no NCCL here";
  EXPECT_GE((*nccl)->version(), 20000);
  EXPECT_EQ((*nccl)->VersionText().substr(0, 2), "2.");
}

TEST(VersionText, CublasAndNcclEncodings) {
  EXPECT_EQ(CublasVersionText(130100), "13.1.0");
  EXPECT_EQ(CublasVersionText(120805), "12.8.5");
  EXPECT_EQ(Nccl::NcclVersionText(22809), "2.28.9");
  EXPECT_EQ(Nccl::NcclVersionText(2804), "2.8.4");  // before 2.9: major*1000 + minor*100 + patch
  EXPECT_TRUE(DriverRunsLibrary(12080, 12040));   // minor-version compatibility
  EXPECT_FALSE(DriverRunsLibrary(12080, 13000));
  EXPECT_TRUE(DriverRunsLibrary(0, 13000));       // unknown driver: accept
}

}  // namespace
}  // namespace labcheck::gpu

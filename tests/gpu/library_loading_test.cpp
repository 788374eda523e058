// NVIDIA's search policy, the real cuBLASLt and NCCL where they are installed, and which NCCL is
// chosen among planted folder layouts (the simulator's libnccl.so.2 copied into them).
#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include <gtest/gtest.h>

#include "../platform/temp_tree.h"
#include "gpu/nvidia/cublaslt_library.h"
#include "gpu/nvidia/nccl_library.h"
#include "gpu/nvidia/nvidia_search_paths.h"
#include "platform/loader_cache.h"
#include "sim_dirs.h"

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

namespace fs = std::filesystem;
using testing::TempTree;

using testing::kSimCu13Dir;
using testing::kSimDir;

// The simulator's NCCL (built for CUDA 12.9) and the core it needs ($ORIGIN), copied into a folder.
void PlantSimNccl(const TempTree& tree, const std::string& folder) {
  fs::create_directories(tree.root() / folder);
  for (const char* file : {"libnccl.so.2", "libnvsim-core.so"})
    fs::copy_file(kSimDir / file, tree.root() / folder / file);
}

// The simulated libraries read their machine profile once per load.
class SimMachine {
 public:
  SimMachine() {
    if (const char* old = std::getenv("LABCHECK_SIM_MACHINE")) old_ = old;
    setenv("LABCHECK_SIM_MACHINE", (fs::path(LAB_CHECK_SOURCE_DIR) / "tests/sim/machines/single-h200.json").c_str(), 1);
  }
  ~SimMachine() {
    if (old_.empty()) unsetenv("LABCHECK_SIM_MACHINE");
    else setenv("LABCHECK_SIM_MACHINE", old_.c_str(), 1);
  }

 private:
  std::string old_;
};

// PyTorch's wheel NCCL (site-packages/nvidia/nccl/lib) is the one torch loads, so it comes before
// the loader's cache (here: /usr/local/cuda-13.0/lib/libnccl.so.2, a real NCCL) and the toolkit.
TEST(NcclChoice, TorchsWheelComesBeforeTheLoaderAndTheToolkit) {
  SimMachine machine;
  TempTree tree;
  PlantSimNccl(tree, "site/nvidia/nccl/lib");
  PlantSimNccl(tree, "cuda/lib64");
  LibrarySearchPaths paths;
  paths.toolkit_roots = {(tree.root() / "cuda").string()};
  paths.site_packages = {(tree.root() / "site").string()};
  paths.wheel_namespace = "nvidia";
  Result<std::unique_ptr<Nccl>> nccl = Nccl::Load(paths);
  ASSERT_TRUE(nccl.ok()) << nccl.status().message();
  EXPECT_NE((*nccl)->file().find("site/nvidia/nccl/lib/libnccl.so.2"), std::string::npos) << (*nccl)->file();
  EXPECT_EQ((*nccl)->origin(), LibraryOrigin::SitePackages);
}

TEST(NcclChoice, TheOthersFoundAreListedAsAlternatives) {
  SimMachine machine;
  TempTree tree;
  PlantSimNccl(tree, "site/nvidia/nccl/lib");
  PlantSimNccl(tree, "cuda/lib64");
  LibrarySearchPaths paths = NvidiaSearchPaths({(tree.root() / "site").string()});
  paths.ld_library_path.clear();
  paths.toolkit_roots = {(tree.root() / "cuda").string()};
  Result<std::unique_ptr<Nccl>> nccl = Nccl::Load(paths);
  ASSERT_TRUE(nccl.ok()) << nccl.status().message();
  EXPECT_EQ((*nccl)->built_for_cuda(), 12090);
  const auto& others = (*nccl)->alternatives();
  EXPECT_TRUE(std::any_of(others.begin(), others.end(), [&](const LibraryCandidate& c) {
    return c.path == (tree.root() / "cuda/lib64/libnccl.so.2").string() && c.origin == LibraryOrigin::ToolkitRoot;
  }));
  for (const std::string& cached : LoaderCacheFiles("/etc/ld.so.cache", "libnccl.so.2"))
    EXPECT_TRUE(std::any_of(others.begin(), others.end(), [&](const LibraryCandidate& c) { return c.path == cached; }))
        << cached << " from the loader cache is not listed";
}

// An NCCL built for CUDA 13 on a CUDA 12 driver fails in ncclCommInit: it is skipped, even first on
// LD_LIBRARY_PATH, and the wheel's CUDA 12 build taken; on a CUDA 13 driver it is taken.
TEST(NcclChoice, ABuildForANewerCudaMajorThanTheDriverIsSkipped) {
  SimMachine machine;
  TempTree tree;
  PlantSimNccl(tree, "site/nvidia/nccl/lib");
  LibrarySearchPaths paths;
  paths.ld_library_path = {kSimCu13Dir.string()};
  paths.site_packages = {(tree.root() / "site").string()};
  paths.wheel_namespace = "nvidia";
  paths.driver_cuda_version = 12080;
  {
    Result<std::unique_ptr<Nccl>> nccl = Nccl::Load(paths);
    ASSERT_TRUE(nccl.ok()) << nccl.status().message();
    EXPECT_EQ((*nccl)->origin(), LibraryOrigin::SitePackages) << (*nccl)->file();
    ASSERT_EQ((*nccl)->skipped().size(), 1u);
    EXPECT_NE((*nccl)->skipped()[0].file.find("sim-nvidia-cu13"), std::string::npos);
    EXPECT_NE((*nccl)->skipped()[0].why.en.find("built for CUDA 13.0, the driver supports CUDA 12.8"), std::string::npos)
        << (*nccl)->skipped()[0].why.en;
    EXPECT_FALSE((*nccl)->skipped()[0].why.ru.empty());
  }
  paths.driver_cuda_version = 13000;
  Result<std::unique_ptr<Nccl>> newer = Nccl::Load(paths);
  ASSERT_TRUE(newer.ok()) << newer.status().message();
  EXPECT_EQ((*newer)->origin(), LibraryOrigin::LdLibraryPath);
  EXPECT_EQ((*newer)->built_for_cuda(), 13000);
}

TEST(NcclBuild, FromTheVersionStringOrTheWheelName) {
  const char raw[] = "NCCL version %s\0NCCL version 2.28.9+cuda13.0\0%s";
  const std::string rodata(raw, sizeof raw - 1);
  std::optional<NcclBuild> build = ParseNcclVersionString(rodata);
  ASSERT_TRUE(build.has_value());
  EXPECT_EQ(build->version, "2.28.9");
  EXPECT_EQ(build->cuda_version, 13000);
  EXPECT_FALSE(ParseNcclVersionString("NCCL version %s").has_value());

  TempTree tree;
  const std::string file = tree.Write("site/nvidia/nccl/lib/libnccl.so.2").string();
  EXPECT_EQ(NcclWheelCudaVersion(file), 0);
  tree.Write("site/nvidia_nccl_cu12-2.27.3.dist-info/METADATA");
  EXPECT_EQ(NcclWheelCudaVersion(file), 12000);
  EXPECT_EQ(ReadNcclBuild(file)->cuda_version, 12000);  // not an ELF file: the wheel's name decides
  EXPECT_EQ(ReadNcclBuild(file)->source, "wheel");
  tree.Write("site/nvidia_nccl_cu13-2.28.9.dist-info/METADATA");
  EXPECT_EQ(NcclWheelCudaVersion(file), 0);  // two wheels over one folder: unknown
  EXPECT_EQ(NcclWheelCudaVersion(tree.Write("elsewhere/libnccl.so.2").string()), 0);

  const char* real = "/usr/local/cuda/lib64/libnccl.so.2";
  if (!fs::exists(real)) GTEST_SKIP() << "no toolkit NCCL";
  std::optional<NcclBuild> toolkit = ReadNcclBuild(real);
  ASSERT_TRUE(toolkit.has_value());
  EXPECT_EQ(toolkit->source, "library");
  EXPECT_GE(toolkit->cuda_version, 12000);
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

// Library discovery against fake folder layouts, and real loads where the toolkit is installed.
#include <gtest/gtest.h>

#include "gpu/loader/library_search.h"
#include "gpu/loader/python_site_packages.h"
#include "gpu/nvidia/cublaslt_library.h"
#include "gpu/nvidia/nccl_library.h"
#include "test_support.h"

namespace labcheck::gpu {
namespace {

using testing::TempTree;

LibrarySpec CublasSpec() { return {"cuBLASLt", {"libcublasLt.so.13", "libcublasLt.so.12"}, false}; }

TEST(LibrarySearch, OrderIsLdLibraryPathThenLoaderThenToolkitThenSitePackages) {
  TempTree tree;
  tree.Write("ld/libcublasLt.so.12");
  tree.Write("cuda/lib64/libcublasLt.so.13");
  tree.Write("site/nvidia/cublas/lib/libcublasLt.so.12");
  tree.Write("site/nvidia/cu13/lib/libcublasLt.so.13");
  tree.Write("site/nvidia/nccl/lib/libnccl.so.2");
  LibrarySearchPaths paths;
  paths.ld_library_path = {(tree.root() / "ld").string()};
  paths.cuda_roots = {(tree.root() / "cuda").string()};
  paths.site_packages = {(tree.root() / "site").string()};

  std::vector<LibraryCandidate> found = CandidatePaths(CublasSpec(), paths);
  ASSERT_EQ(found.size(), 6u);
  EXPECT_EQ(found[0].path, (tree.root() / "ld/libcublasLt.so.12").string());
  EXPECT_EQ(found[0].origin, LibraryOrigin::LdLibraryPath);
  EXPECT_EQ(found[1].path, "libcublasLt.so.13");  // the loader's cache, newest soname first
  EXPECT_EQ(found[1].origin, LibraryOrigin::LoaderCache);
  EXPECT_EQ(found[2].path, "libcublasLt.so.12");
  EXPECT_EQ(found[3].path, (tree.root() / "cuda/lib64/libcublasLt.so.13").string());
  EXPECT_EQ(found[3].origin, LibraryOrigin::CudaRoot);
  // Wheel folders in sorted order: nvidia/cu13 before nvidia/cublas.
  EXPECT_EQ(found[4].path, (tree.root() / "site/nvidia/cu13/lib/libcublasLt.so.13").string());
  EXPECT_EQ(found[5].path, (tree.root() / "site/nvidia/cublas/lib/libcublasLt.so.12").string());
  EXPECT_EQ(found[5].origin, LibraryOrigin::SitePackages);
}

TEST(LibrarySearch, DriverLibrariesAreNotTakenFromToolkitsOrWheels) {
  TempTree tree;
  tree.Write("cuda/lib64/libcuda.so.1");
  tree.Write("site/nvidia/cu13/lib/libcuda.so.1");
  LibrarySearchPaths paths;
  paths.cuda_roots = {(tree.root() / "cuda").string()};
  paths.site_packages = {(tree.root() / "site").string()};
  std::vector<LibraryCandidate> found = CandidatePaths({"CUDA driver", {"libcuda.so.1"}, true}, paths);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].origin, LibraryOrigin::LoaderCache);
}

TEST(LibrarySearch, FailureListsWhyEachCandidateWasRefused) {
  TempTree tree;
  tree.Write("ld/libcublasLt.so.13", "not an ELF file");
  LibrarySearchPaths paths;
  paths.ld_library_path = {(tree.root() / "ld").string()};
  Result<LoadedLibrary> loaded = LoadFirst({"fake", {"libcublasLt.so.13"}, true}, paths,
                                           [](const DynamicLibrary&) { return Status::Error("rejected"); });
  ASSERT_FALSE(loaded.ok());
  EXPECT_NE(loaded.status().message().find((tree.root() / "ld/libcublasLt.so.13").string()), std::string::npos);
  EXPECT_NE(loaded.status().message().find("fake not found"), std::string::npos);
}

TEST(LibrarySearch, LoadsARealLibraryFromSitePackagesAndSaysSo) {
  // A real shared object planted under nvidia/*/lib, named so that nothing else can provide it.
  const char* real = "/usr/local/cuda/lib64/stubs/libcuda.so";
  if (!std::filesystem::exists(real)) GTEST_SKIP() << "no CUDA toolkit stub to plant";
  TempTree tree;
  tree.Link("site/nvidia/fake/lib/liblabcheck_fake.so.1", real);
  LibrarySearchPaths paths;
  paths.site_packages = {(tree.root() / "site").string()};
  Result<LoadedLibrary> loaded = LoadFirst({"fake", {"liblabcheck_fake.so.1"}, false}, paths);
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  EXPECT_EQ(loaded->origin, LibraryOrigin::SitePackages);
  EXPECT_NE(loaded->file.find("site/nvidia/fake/lib"), std::string::npos);
  EXPECT_NE(loaded->library.Symbol("cuInit"), nullptr);
}

TEST(LibrarySearch, MissingRequiredSymbolNamesIt) {
  const char* real = "/usr/local/cuda/lib64/stubs/libcuda.so";
  if (!std::filesystem::exists(real)) GTEST_SKIP() << "no CUDA toolkit stub";
  Result<DynamicLibrary> library = DynamicLibrary::Open(real);
  ASSERT_TRUE(library.ok());
  void (*present)() = nullptr;
  void (*absent)() = nullptr;
  EXPECT_TRUE(BindSymbols(*library, {Required(present, {"cuInit"}), Optional(absent, {"labcheckNoSuchSymbol"})}).ok());
  EXPECT_NE(present, nullptr);
  EXPECT_EQ(absent, nullptr);
  Status missing = BindSymbols(*library, {Required(absent, {"labcheckNoSuchSymbol_v2", "labcheckNoSuchSymbol"})});
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.message().find("labcheckNoSuchSymbol_v2"), std::string::npos);
}

TEST(LibrarySearch, RealCublasLtLoadsAndRefusesADriverOlderThanIt) {
  LibrarySearchPaths paths = LibrarySearchPaths::FromEnvironment({});
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
  Result<std::unique_ptr<Nccl>> nccl = Nccl::Load(LibrarySearchPaths::FromEnvironment({}));
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

TEST(SitePackages, KeepsOnlyPackageFoldersInOrderWithoutDuplicates) {
  std::vector<std::string> folders = SitePackagesFromAnswer(
      R"(["/v/lib/python3.12/site-packages", "/usr/lib/python3/dist-packages/", "/v/lib/python312.zip",
          "", "/v/lib/python3.12/site-packages", 7])");
  EXPECT_EQ(folders, (std::vector<std::string>{"/v/lib/python3.12/site-packages", "/usr/lib/python3/dist-packages"}));
  EXPECT_TRUE(SitePackagesFromAnswer("not json").empty());
}

TEST(SitePackages, AsksTheRealInterpreter) {
  if (!std::filesystem::exists("/usr/bin/python3")) GTEST_SKIP() << "no python3";
  std::vector<std::string> folders = PythonSitePackages("/usr/bin/python3", CancelToken::Never());
  ASSERT_FALSE(folders.empty());
  for (const std::string& f : folders) EXPECT_TRUE(f.ends_with("-packages")) << f;
  EXPECT_TRUE(PythonSitePackages("/nonexistent/python", CancelToken::Never()).empty());
}

}  // namespace
}  // namespace labcheck::gpu

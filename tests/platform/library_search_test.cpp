// Library discovery against fake folder layouts, and a real load where the CUDA toolkit's stub is
// installed (any real shared object would do; that one is on CI).
#include <gtest/gtest.h>

#include "platform/library_search.h"
#include "platform/python_site_packages.h"
#include "temp_tree.h"

namespace labcheck {
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
  paths.toolkit_roots = {(tree.root() / "cuda").string()};
  paths.site_packages = {(tree.root() / "site").string()};
  paths.wheel_namespace = "nvidia";

  std::vector<LibraryCandidate> found = CandidatePaths(CublasSpec(), paths);
  ASSERT_EQ(found.size(), 6u);
  EXPECT_EQ(found[0].path, (tree.root() / "ld/libcublasLt.so.12").string());
  EXPECT_EQ(found[0].origin, LibraryOrigin::LdLibraryPath);
  EXPECT_EQ(found[1].path, "libcublasLt.so.13");  // the loader's cache, newest soname first
  EXPECT_EQ(found[1].origin, LibraryOrigin::LoaderCache);
  EXPECT_EQ(found[2].path, "libcublasLt.so.12");
  EXPECT_EQ(found[3].path, (tree.root() / "cuda/lib64/libcublasLt.so.13").string());
  EXPECT_EQ(found[3].origin, LibraryOrigin::ToolkitRoot);
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
  paths.toolkit_roots = {(tree.root() / "cuda").string()};
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
  paths.wheel_namespace = "nvidia";
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
}  // namespace labcheck

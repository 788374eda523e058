// Library discovery against fake folder layouts, and a real load where the CUDA toolkit's stub is
// installed (any real shared object would do; that one is on CI).
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <memory>

#include "platform/elf_section.h"
#include "platform/library_search.h"
#include "platform/loader_cache.h"
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
  // "not found", or "no usable" where the loader cache offers a real libcublasLt that is refused.
  const std::string& message = loaded.status().message();
  EXPECT_TRUE(message.rfind("fake not found", 0) == 0 || message.rfind("no usable fake", 0) == 0) << message;
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

constexpr const char* kToolkitStub = "/usr/local/cuda/lib64/stubs/libcuda.so";

TEST(LibrarySearch, DriverLibrariesGoOnFromTheLoaderToItsCacheAndTheDriverFolders) {
  TempTree tree;
  tree.Write("ld/libcuda.so.1");
  tree.Write("usr-lib64/libcuda.so.1");
  tree.Write("nvidia/lib64/libcuda.so.1");
  tree.Write("cuda/lib64/stubs/libcuda.so.1");
  LibrarySearchPaths paths;
  paths.ld_library_path = {(tree.root() / "ld").string()};
  paths.driver_folders = {(tree.root() / "usr-lib64").string(), (tree.root() / "empty").string(),
                          (tree.root() / "nvidia/lib64").string()};
  paths.toolkit_roots = {(tree.root() / "cuda").string()};
  std::vector<LibraryCandidate> found = CandidatePaths({"CUDA driver", {"libcuda.so.1"}, true}, paths);
  ASSERT_EQ(found.size(), 4u);
  EXPECT_EQ(found[0].origin, LibraryOrigin::LdLibraryPath);
  EXPECT_EQ(found[1].path, "libcuda.so.1");
  EXPECT_EQ(found[2].path, (tree.root() / "usr-lib64/libcuda.so.1").string());
  EXPECT_EQ(found[2].origin, LibraryOrigin::DriverFolder);
  EXPECT_EQ(found[3].path, (tree.root() / "nvidia/lib64/libcuda.so.1").string());
  EXPECT_STREQ(OriginName(LibraryOrigin::DriverFolder), "driver folder");
}

TEST(LibrarySearch, WheelsFirstPutsSitePackagesBeforeTheLoaderAndToolkits) {
  TempTree tree;
  tree.Write("ld/libnccl.so.2");
  tree.Write("cuda/lib64/libnccl.so.2");
  tree.Write("site/nvidia/nccl/lib/libnccl.so.2");
  LibrarySearchPaths paths;
  paths.ld_library_path = {(tree.root() / "ld").string()};
  paths.toolkit_roots = {(tree.root() / "cuda").string()};
  paths.site_packages = {(tree.root() / "site").string()};
  paths.wheel_namespace = "nvidia";
  LibrarySpec nccl{"NCCL", {"libnccl.so.2"}, false, /*wheels_first=*/true};
  std::vector<LibraryCandidate> found = CandidatePaths(nccl, paths);
  ASSERT_EQ(found.size(), 4u);
  EXPECT_EQ(found[0].origin, LibraryOrigin::LdLibraryPath);  // an explicit choice stays first
  EXPECT_EQ(found[1].path, (tree.root() / "site/nvidia/nccl/lib/libnccl.so.2").string());
  EXPECT_EQ(found[2].path, "libnccl.so.2");
  EXPECT_EQ(found[3].origin, LibraryOrigin::ToolkitRoot);
  nccl.wheels_first = false;
  EXPECT_EQ(CandidatePaths(nccl, paths).back().origin, LibraryOrigin::SitePackages);
}

// A refused candidate is closed and the next one tried; the refusal is kept with its reason, the
// files after the one taken are its alternatives, and a file reached twice is judged once.
TEST(LibrarySearch, ARefusedCandidateIsSkippedAndTheSearchGoesOn) {
  if (!std::filesystem::exists(kToolkitStub)) GTEST_SKIP() << "no CUDA toolkit stub to plant";
  TempTree tree;
  for (const char* folder : {"first", "second", "third"}) {
    std::filesystem::create_directories(tree.root() / folder);
    std::filesystem::copy_file(kToolkitStub, tree.root() / folder / "libfake.so.1");  // three distinct files
  }
  tree.Link("again/libfake.so.1", tree.root() / "first/libfake.so.1");
  LibrarySearchPaths paths;
  paths.ld_library_path = {(tree.root() / "first").string(), (tree.root() / "again").string()};
  paths.driver_folders = {(tree.root() / "second").string(), (tree.root() / "third").string()};
  int judged = 0;
  LibrarySearchResult result = SearchLibrary({"fake", {"libfake.so.1"}, true}, paths,
                                             [&](const DynamicLibrary& library) -> std::optional<Text> {
                                               ++judged;
                                               if (library.file().find("/first/") != std::string::npos)
                                                 return T("заглушка", "a stub");
                                               return std::nullopt;
                                             });
  ASSERT_TRUE(result.loaded.has_value()) << result.error.message();
  EXPECT_EQ(judged, 2) << "the symlink to the refused file must not be judged again";
  EXPECT_NE(result.loaded->file.find("/second/"), std::string::npos) << result.loaded->file;
  EXPECT_EQ(result.loaded->origin, LibraryOrigin::DriverFolder);
  ASSERT_EQ(result.loaded->skipped.size(), 1u);
  EXPECT_NE(result.loaded->skipped[0].file.find("/first/"), std::string::npos);
  EXPECT_EQ(result.loaded->skipped[0].why.en, "a stub");
  EXPECT_EQ(result.loaded->skipped[0].why.ru, "заглушка");
  ASSERT_EQ(result.loaded->alternatives.size(), 1u);
  EXPECT_NE(result.loaded->alternatives[0].path.find("/third/"), std::string::npos);

  LibrarySearchResult none = SearchLibrary({"fake", {"libfake.so.1"}, true}, paths,
                                           [](const DynamicLibrary&) -> std::optional<Text> { return Text("no"); });
  EXPECT_FALSE(none.loaded.has_value());
  EXPECT_EQ(none.skipped.size(), 3u);
  EXPECT_EQ(none.error.message().rfind("no usable fake (libfake.so.1)", 0), 0u) << none.error.message();
}

// The parser against glibc's own reader: ldconfig -p lists the same files for a soname.
TEST(LoaderCache, ListsWhatLdconfigLists) {
  if (!std::filesystem::exists("/etc/ld.so.cache")) GTEST_SKIP() << "no loader cache";
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen("ldconfig -p 2>/dev/null", "r"), pclose);
  if (!pipe) GTEST_SKIP() << "no ldconfig";
  std::vector<std::string> expected;
  char line[4096];
  while (std::fgets(line, sizeof line, pipe.get()) != nullptr) {
    const std::string text(line);
    // "\tlibc.so.6 (libc6,x86-64) => /lib/x86_64-linux-gnu/libc.so.6"
    const bool own_abi = text.find("x86-64") != std::string::npos || text.find("AArch64") != std::string::npos;
    if (text.find("\tlibc.so.6 (libc6,") != 0 || !own_abi) continue;
    expected.push_back(text.substr(text.find("=> ") + 3, text.find_last_not_of("\n") - text.find("=> ") - 2));
  }
  if (expected.empty()) GTEST_SKIP() << "ldconfig lists no 64-bit libc.so.6";
  EXPECT_EQ(LoaderCacheFiles("/etc/ld.so.cache", "libc.so.6"), expected);
  EXPECT_TRUE(LoaderCacheFiles("/etc/ld.so.cache", "liblabcheck_nothing.so.9").empty());
  EXPECT_TRUE(LoaderCacheFiles("/nonexistent/ld.so.cache", "libc.so.6").empty());
}

// A planted cache in both layouts: the new table alone, and after the old one; other ABIs' entries
// are left out.
TEST(LoaderCache, ReadsTheNewTableAloneOrAfterTheOldOne) {
  auto u32 = [](std::string& out, uint32_t v) { out.append(reinterpret_cast<const char*>(&v), 4); };
#if defined(__x86_64__)
  const uint32_t own = 0x0303;
#else
  const uint32_t own = 0x0a03;
#endif
  auto new_table = [&] {
    std::string t = "glibc-ld.so.cache1.1";
    const std::string strings = std::string("libcuda.so.1\0/lib64/libcuda.so.1\0/lib32/libcuda.so.1\0", 53);
    u32(t, 2);                          // nlibs
    u32(t, static_cast<uint32_t>(strings.size()));
    t += std::string(4, '\0');          // flags, padding
    u32(t, 0);                          // extension_offset
    t += std::string(12, '\0');         // unused
    const uint32_t base = 48 + 2 * 24;  // strings follow the entries; offsets count from the header
    for (auto [flags, value] : {std::pair<uint32_t, uint32_t>{0x0003, base + 33}, {own, base + 13}}) {
      u32(t, flags);
      u32(t, base);  // key: "libcuda.so.1"
      u32(t, value);
      u32(t, 0);
      t += std::string(8, '\0');
    }
    return t + strings;
  };
  EXPECT_EQ(LoaderCacheFilesFromBytes(new_table(), "libcuda.so.1"), std::vector<std::string>{"/lib64/libcuda.so.1"});
  std::string old = "ld.so-1.7.0";
  old += std::string(1, '\0');
  u32(old, 1);
  old += std::string(12, '\0');  // one old entry: 16 + 12 = 28, aligned to 32
  old += std::string(4, '\0');
  EXPECT_EQ(LoaderCacheFilesFromBytes(old + new_table(), "libcuda.so.1"), std::vector<std::string>{"/lib64/libcuda.so.1"});
  EXPECT_TRUE(LoaderCacheFilesFromBytes("not a cache", "libcuda.so.1").empty());
  EXPECT_TRUE(LoaderCacheFilesFromBytes(new_table().substr(0, 60), "libcuda.so.1").empty());
}

TEST(ElfSection, ReadsOneSectionOfARealLibrary) {
  if (!std::filesystem::exists(kToolkitStub)) GTEST_SKIP() << "no CUDA toolkit stub";
  Result<std::string> names = ReadElfSection(kToolkitStub, ".dynstr", 1u << 20);
  ASSERT_TRUE(names.ok()) << names.status().message();
  EXPECT_NE(names->find("cuInit"), std::string::npos);
  EXPECT_FALSE(ReadElfSection(kToolkitStub, ".no_such_section", 1u << 20).ok());
  EXPECT_FALSE(ReadElfSection(kToolkitStub, ".dynstr", 16).ok());  // larger than allowed
  TempTree tree;
  EXPECT_FALSE(ReadElfSection(tree.Write("text.so", "not an ELF").string(), ".rodata", 1u << 20).ok());
}

}  // namespace
}  // namespace labcheck

// The binary goes to machines without our build dependencies (a lent GPU machine with no package
// registry, a student's fresh install): it may need nothing but glibc's own libraries. A libfmt,
// libstdc++ or libopenblas .so in its NEEDED list would make it fail to start there.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <sstream>
#include <string>

#include "runner/child_process.h"

namespace labcheck {
namespace {

// The NEEDED entries of an ELF file's dynamic section, through binutils' readelf.
std::vector<std::string> NeededLibraries(const std::string& file, std::string* error) {
  ChildSpec spec;
  spec.argv = {"readelf", "--dynamic", "--wide", file};
  spec.timeout_s = 30;
  ChildOutcome outcome = RunChild(spec, CancelToken::Never());
  if (!outcome.exited_ok()) {
    *error = "readelf failed: " + outcome.err;
    return {};
  }
  std::vector<std::string> needed;
  std::istringstream lines(outcome.out);
  for (std::string line; std::getline(lines, line);) {
    if (line.find("(NEEDED)") == std::string::npos) continue;
    const size_t open = line.find('['), close = line.find(']');
    if (open != std::string::npos && close > open) needed.push_back(line.substr(open + 1, close - open - 1));
  }
  return needed;
}

TEST(StaticBinary, NeedsOnlyGlibc) {
  std::string error;
  const std::vector<std::string> needed = NeededLibraries(LAB_CHECK_BINARY, &error);
  ASSERT_TRUE(error.empty()) << error;
  ASSERT_FALSE(needed.empty()) << "no NEEDED entries read from " << LAB_CHECK_BINARY;
  // glibc's libraries (libdl and libpthread are part of libc since 2.34 but older linkers name them).
  const std::set<std::string> glibc = {"libc.so.6",       "libm.so.6",   "libdl.so.2",
                                       "libpthread.so.0", "librt.so.1", "ld-linux-x86-64.so.2",
                                       "ld-linux-aarch64.so.1"};
  for (const std::string& library : needed)
    EXPECT_TRUE(glibc.count(library)) << LAB_CHECK_BINARY << " needs " << library
                                      << ": link it statically (CMakeLists.txt) so the binary runs where it is absent";
}

TEST(StaticBinary, NeededListReaderSeesASharedLibrary) {
  // The reader itself: a test binary links GoogleTest's and libstdc++'s shared libraries, so a
  // reader that saw nothing would make the test above pass for the wrong reason.
  std::string error;
  // readelf would read its own /proc/self/exe: name this test binary's file.
  const std::string self = std::filesystem::read_symlink("/proc/self/exe").string();
  const std::vector<std::string> needed = NeededLibraries(self, &error);
  ASSERT_TRUE(error.empty()) << error;
  bool libstdcxx = false;
  for (const std::string& library : needed) libstdcxx |= library.rfind("libstdc++", 0) == 0;
  EXPECT_TRUE(libstdcxx);
}

}  // namespace
}  // namespace labcheck

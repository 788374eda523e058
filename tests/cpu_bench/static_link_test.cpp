// The binary must run where OpenBLAS and gfortran are not installed: this test binary links
// lab_cpu_bench exactly as lab_check does, so its dynamic section must not need them.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <memory>
#include <string>

#include "cpu_bench/cpu_checks.h"

namespace labcheck {
namespace {

std::string DynamicSection(const std::string& path) {
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(("readelf -d '" + path + "' 2>&1").c_str(), "r"), pclose);
  std::string out;
  char buffer[4096];
  while (pipe && fgets(buffer, sizeof buffer, pipe.get())) out += buffer;
  return out;
}

TEST(StaticLink, NeedsNeitherOpenBlasNorGfortran) {
  if (access("/usr/bin/readelf", X_OK) != 0) GTEST_SKIP() << "readelf (binutils) not installed";
  Registry registry;
  RegisterCpuChecks(registry);  // keeps the OpenBLAS objects in this binary
  for (const std::string& binary : {std::string("/proc/self/exe"), std::string(LAB_CHECK_BINARY)}) {
    std::string dynamic = DynamicSection(binary);
    ASSERT_NE(dynamic.find("NEEDED"), std::string::npos) << binary << ": " << dynamic;
    EXPECT_EQ(dynamic.find("openblas"), std::string::npos) << binary << ": " << dynamic;
    EXPECT_EQ(dynamic.find("gfortran"), std::string::npos) << binary << ": " << dynamic;
    EXPECT_EQ(dynamic.find("libblas"), std::string::npos) << binary << ": " << dynamic;
  }
}

}  // namespace
}  // namespace labcheck

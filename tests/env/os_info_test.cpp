#include "env/os_info.h"

#include <gtest/gtest.h>

#include "test_data.h"

namespace labcheck::env {
namespace {

using testing::Sample;

TEST(ParseOsPrettyName, TakesPrettyNameUnquoted) {
  EXPECT_EQ(ParseOsPrettyName(Sample("os-release_debian12.txt")), "Debian GNU/Linux 12 (bookworm)");
  EXPECT_EQ(ParseOsPrettyName(Sample("os-release_ubuntu2404.txt")), "Ubuntu 24.04.1 LTS");
}

TEST(ParseOsPrettyName, FallsBackToNameAndVersion) {
  EXPECT_EQ(ParseOsPrettyName("NAME='Arch'\nVERSION=rolling\n# PRETTY_NAME=x\n"), "Arch rolling");
  EXPECT_EQ(ParseOsPrettyName(""), "");
}

TEST(ParseMemInfo, ReadsTotalAndAvailableInBytes) {
  auto info = ParseMemInfo(Sample("meminfo_24gib_vm.txt"));
  ASSERT_TRUE(info.ok());
  EXPECT_EQ(info->total_bytes, 24683548ull * 1024);
  ASSERT_TRUE(info->available_bytes.has_value());
  EXPECT_LE(*info->available_bytes, info->total_bytes);
  EXPECT_GT(*info->available_bytes, 0u);
}

TEST(ParseMemInfo, OldKernelsHaveNoAvailableFigure) {
  auto info = ParseMemInfo(Sample("meminfo_before_linux_3_14.txt"));
  ASSERT_TRUE(info.ok());
  EXPECT_EQ(info->total_bytes, 131916404ull * 1024);
  EXPECT_FALSE(info->available_bytes.has_value());  // not guessed from MemFree
}

TEST(ParseMemInfo, RejectsTextWithoutTotal) { EXPECT_FALSE(ParseMemInfo("MemFree: 1 kB\n").ok()); }

TEST(ReadOsInfo, ReportsKernelAndGlibc) {
  OsInfo os = ReadOsInfo();
  EXPECT_FALSE(os.name.empty());
  EXPECT_FALSE(os.kernel.empty());
  EXPECT_NE(os.glibc.find('.'), std::string::npos);  // "2.36"
}

}  // namespace
}  // namespace labcheck::env

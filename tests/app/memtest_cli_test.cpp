// lab_check memtest through the real binary on this machine (no GPU in CI): --help in both
// languages, bad input with exit code 2 and a message naming the flag, a clean SKIP report without
// a driver; and the two small parsers behind its options.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "app/memtest_command.h"
#include "run_binary.h"

namespace labcheck {
namespace {

using testing::Ran;
using testing::RunBinary;

TEST(MemtestCli, HelpNamesItsOptionsInBothLanguages) {
  Ran en = RunBinary("memtest --help --lang en");
  EXPECT_EQ(en.code, 0);
  for (const char* option : {"--minutes", "--passes", "--gpus", "--size", "--fraction", "--self-test", "--json"})
    EXPECT_NE(en.out.find(option), std::string::npos) << option;
  EXPECT_NE(en.out.find("memtest_vulkan"), std::string::npos) << en.out;
  Ran ru = RunBinary("memtest --help");
  EXPECT_NE(ru.out.find("самопроверка"), std::string::npos) << ru.out;
}

TEST(MemtestCli, BadOptionsAreUsageErrorsNamingTheFlag) {
  for (const char* args : {"--minutes 0", "--passes 2 --minutes 3", "--gpus zero", "--size 1x", "--size 1K", "--fraction 0"}) {
    Ran r = RunBinary(std::string("--lang en memtest ") + args);
    EXPECT_EQ(r.code, 2) << args << ": " << r.out;
    const std::string flag = std::string(args).substr(0, std::string(args).find(' '));
    EXPECT_NE(r.out.find(flag), std::string::npos) << args << ": " << r.out;
  }
}

TEST(MemtestCli, WithoutAGpuTheReportIsACleanSkip) {
  if (std::getenv("LABCHECK_SIM_MACHINE") != nullptr) GTEST_SKIP() << "a simulated machine is set";
  const std::string out = (std::filesystem::temp_directory_path() / ("lab_memtest_test_" + std::to_string(getpid()) + ".md")).string();
  Ran r = RunBinary("--lang en memtest --passes 1 --json --out " + out);
  std::filesystem::remove(out);
  std::filesystem::remove(out.substr(0, out.size() - 3) + ".json");
  const size_t start = r.out.find('{');
  ASSERT_NE(start, std::string::npos) << r.out;
  const nlohmann::json report = nlohmann::json::parse(r.out.substr(start), nullptr, false);
  ASSERT_FALSE(report.is_discarded()) << r.out;
  const nlohmann::json& check = report["checks"][0];
  EXPECT_EQ(check["id"], "gpu.memtest");
  if (check["status"] != "SKIP") GTEST_SKIP() << "this machine has a usable GPU: " << check["status"];
  EXPECT_EQ(r.code, 0);
  EXPECT_FALSE(check["reason"].get<std::string>().empty());
}

TEST(MemtestCli, SizesAreBinaryUnitsAndTheBitFadeComesWithTwoMinutes) {
  EXPECT_EQ(ParseByteSize("24G"), 24ull << 30);
  EXPECT_EQ(ParseByteSize("512M"), 512ull << 20);
  EXPECT_EQ(ParseByteSize("1.5GiB"), 3ull << 29);
  EXPECT_EQ(ParseByteSize("4096"), 4096u);
  EXPECT_FALSE(ParseByteSize("lots").has_value());
  EXPECT_FALSE(ParseByteSize("-1G").has_value());
  // memtest_vulkan's five minutes: 30 s waits each side of the bit fade, 240 s of passes.
  EXPECT_DOUBLE_EQ(ScheduleFor(300).fade_wait_s, 30);
  EXPECT_DOUBLE_EQ(ScheduleFor(300).pass_seconds, 240);
  EXPECT_DOUBLE_EQ(ScheduleFor(60).fade_wait_s, 0);  // under two minutes: passes only
  EXPECT_DOUBLE_EQ(ScheduleFor(60).pass_seconds, 60);
  EXPECT_DOUBLE_EQ(ScheduleFor(24 * 3600).fade_wait_s, 90 * 60);  // cuda_memtest's 90 minutes at most
}

}  // namespace
}  // namespace labcheck

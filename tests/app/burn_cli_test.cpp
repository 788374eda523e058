// lab_check burn through the real binary on this machine (no GPU in CI): --help, bad input with
// exit code 2 and a message naming the flag, and a clean SKIP report in the JSON contract's shape.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "run_binary.h"

namespace {

using labcheck::testing::Ran;
using labcheck::testing::RunBinary;

std::string TempReport() {
  return (std::filesystem::temp_directory_path() / ("lab_burn_test_" + std::to_string(getpid()) + ".md")).string();
}

TEST(BurnCli, HelpNamesItsOptions) {
  Ran r = RunBinary("burn --help --lang en");
  EXPECT_EQ(r.code, 0);
  for (const char* option : {"--minutes", "--quick", "--gpus", "--json"}) EXPECT_NE(r.out.find(option), std::string::npos) << option;
}

TEST(BurnCli, BadMinutesAndGpuListAreUsageErrors) {
  Ran r = RunBinary("--lang en burn --minutes 0");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.out.find("--minutes"), std::string::npos) << r.out;
  r = RunBinary("--lang en burn --gpus zero");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.out.find("--gpus"), std::string::npos) << r.out;
}

TEST(BurnCli, WithoutAGpuTheReportIsACleanSkip) {
  if (std::getenv("LABCHECK_SIM_MACHINE") != nullptr) GTEST_SKIP() << "a simulated machine is set";
  const std::string out = TempReport();
  Ran r = RunBinary("--lang en burn --quick --json --out " + out);
  std::filesystem::remove(out);
  std::filesystem::remove(out.substr(0, out.size() - 3) + ".json");
  const size_t start = r.out.find('{');
  ASSERT_NE(start, std::string::npos) << r.out;
  nlohmann::json report = nlohmann::json::parse(r.out.substr(start), nullptr, false);
  ASSERT_FALSE(report.is_discarded()) << r.out;
  ASSERT_EQ(report["checks"].size(), 1u);
  const nlohmann::json& check = report["checks"][0];
  EXPECT_EQ(check["id"], "gpu.burn");
  if (check["status"] != "SKIP") GTEST_SKIP() << "this machine has a usable GPU: " << check["status"];
  EXPECT_EQ(r.code, 0);
  EXPECT_FALSE(check["reason"].get<std::string>().empty());
}

}  // namespace

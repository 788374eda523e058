// DDP and FSDP2 for real: two CPU processes over gloo through torch.distributed.run, and the
// planted faults — a hung rank, a crashed rank, a wrong result — each ending as a FAIL that says
// what happened, with no rank left behind.
#include <dirent.h>

#include <chrono>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "reference/hints.h"
#include "smoke/dist_run.h"
#include "smoke/verdict.h"
#include "torch_python.h"

namespace labcheck::smoke {
namespace {

using testing::NoTorchPython;
using testing::TorchPython;
using testing::TorchVersion;

#define REQUIRE_TORCH_PYTHON(var)                                               \
  const std::string var = TorchPython();                                        \
  if (var.empty()) GTEST_SKIP() << "no Python with torch (set LABCHECK_TEST_PYTHON)"

CheckResult RunDist(const std::string& python, const std::string& test, double budget_s,
                    std::vector<std::pair<std::string, std::string>> env = {}) {
  probes::Interpreter interpreter(python, 1);
  TestOutcome outcome = RunDistributedTest({test, budget_s, std::move(env)}, interpreter, CancelToken::Never());
  return JudgeOutcome(*FindSmokeTest(test), outcome, nlohmann::json::object(), python);
}

// Processes whose environment carries `token`: the ranks of one test run, if any survived it.
int ProcessesWith(const std::string& token) {
  int found = 0;
  DIR* proc = opendir("/proc");
  if (!proc) return 0;
  while (dirent* entry = readdir(proc)) {
    if (entry->d_name[0] < '0' || entry->d_name[0] > '9') continue;
    std::ifstream environ(std::string("/proc/") + entry->d_name + "/environ");
    std::stringstream content;
    content << environ.rdbuf();
    if (content.str().find(token) != std::string::npos) ++found;
  }
  closedir(proc);
  return found;
}

std::string UniqueToken(const char* what) {
  return std::string("LABCHECK_TEST_TOKEN=") + what + std::to_string(std::chrono::steady_clock::now().time_since_epoch().count());
}

TEST(DistPython, DdpOnTwoCpuProcessesEqualsOneProcess) {
  REQUIRE_TORCH_PYTHON(python);
  CheckResult r = RunDist(python, "ddp", 180);
  ASSERT_EQ(r.outcome, Outcome::Pass) << r.reason.en << "\n" << r.error;
  EXPECT_EQ(r.data["probe"]["launcher"], "torch.distributed.run");
  EXPECT_GE(r.data["probe"]["world_size"].get<int>(), 2);
  ASSERT_NE(r.Find("smoke.ddp.max_abs_param_diff"), nullptr);
}

TEST(DistPython, APlantedMismatchFails) {
  REQUIRE_TORCH_PYTHON(python);
  CheckResult r = RunDist(python, "ddp", 180, {{"LABCHECK_TEST_PERTURB", "1"}});
  EXPECT_EQ(r.outcome, Outcome::Fail) << r.summary.en;
  EXPECT_GT(r.Find("smoke.ddp.max_abs_param_diff")->value, 1e-5);
  EXPECT_EQ(r.hint.ru, hint::Action(hint::kWrongSum).ru);
}

TEST(DistPython, AHungRankIsKilledAndNamed) {
  REQUIRE_TORCH_PYTHON(python);
  const std::string token = UniqueToken("hang");
  const auto eq = token.find('=');
  CheckResult r = RunDist(python, "ddp", 40, {{"LABCHECK_TEST_HANG_RANK", "1"}, {token.substr(0, eq), token.substr(eq + 1)}});
  EXPECT_EQ(r.outcome, Outcome::Fail);
  EXPECT_NE(r.reason.en.find("were killed"), std::string::npos) << r.reason.en;
  EXPECT_NE(r.reason.en.find("rank 1:"), std::string::npos) << r.reason.en;
  EXPECT_FALSE(r.hint.empty());
  EXPECT_EQ(ProcessesWith(token.substr(eq + 1)), 0) << "a rank outlived the test";
}

TEST(DistPython, ACrashedRankFailsTheTest) {
  REQUIRE_TORCH_PYTHON(python);
  CheckResult r = RunDist(python, "ddp", 180, {{"LABCHECK_TEST_CRASH_RANK", "1"}});
  EXPECT_EQ(r.outcome, Outcome::Fail);
  EXPECT_NE(r.reason.en.find("rank 1: SIGSEGV"), std::string::npos) << r.reason.en;
  EXPECT_FALSE(r.hint.empty());
}

TEST(DistPython, Fsdp2NeedsTorch24) {
  REQUIRE_TORCH_PYTHON(python);
  CheckResult r = RunDist(python, "fsdp2", 180);
  if (TorchVersion(python) < std::make_pair(2, 4)) {
    EXPECT_EQ(r.outcome, Outcome::Skip);
    EXPECT_EQ(r.reason.en.find("needs PyTorch 2.4 or newer"), 0u) << r.reason.en;
  } else {
    EXPECT_EQ(r.outcome, Outcome::Pass) << r.reason.en << "\n" << r.error;
  }
}

TEST(DistPython, APythonWithoutTorchSkips) {
  REQUIRE_TORCH_PYTHON(python);
  NoTorchPython bare(python);
  CheckResult r = RunDist(bare.path(), "ddp", 60);
  EXPECT_EQ(r.outcome, Outcome::Skip);
  EXPECT_NE(r.reason.en.find("has no PyTorch"), std::string::npos) << r.reason.en;
}

}  // namespace
}  // namespace labcheck::smoke

// A full run with an interpreter that never answers costs one start-up budget, not one timeout
// per Python check: the first probe misses its handshake, the later ones are SKIPs that say which
// interpreter hung, where, and how to check it by hand. --timeout-scale 0.5 halves the budgets
// (env.python 15 s, `import torch` 45 s) to keep the tests short; the bounds are generous limits
// that catch the old behaviour (minutes per smoke test), not benchmarks.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <chrono>

#include "cli_support.h"

namespace labcheck {
namespace {

using cli_testing::FindCheck;
using cli_testing::RunLabCheck;
using cli_testing::WriteScript;

class DeadPython : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = *MakePrivateTempDir("lab_check_dead_python_"); }
  void TearDown() override { RemoveTree(dir_); }

  // Runs the full check (not --quick: the smoke tests are the point) and reads its JSON report.
  nlohmann::json FullRun(const std::string& python, double& wall_s) {
    const auto start = std::chrono::steady_clock::now();
    ChildOutcome o = RunLabCheck(dir_, {"--python", python, "--lang", "en", "--timeout-scale", "0.5"}, 300);
    wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_TRUE(o.exited_ok() || o.exit_code == 1) << o.Describe() << "\n" << o.err;
    auto text = ReadFile(dir_ + "/journal/lab-report.json");
    if (!text.ok()) {
      ADD_FAILURE() << "no report written";
      return nlohmann::json::object();
    }
    return nlohmann::json::parse(*text);
  }
  std::string dir_;
};

TEST_F(DeadPython, InterpreterThatSleepsForeverCostsOneStartUpBudget) {
  const std::string python = dir_ + "/python";
  WriteScript(python, "#!/bin/sh\nexec sleep 100000\n");
  double wall_s = 0;
  const nlohmann::json report = FullRun(python, wall_s);
  // 15 s of handshake for env.python, the CPU benchmarks, and a minute to spare.
  EXPECT_LT(wall_s, 120) << "a dead interpreter must not cost one timeout per check";

  const nlohmann::json* env = FindCheck(report, "env.python");
  ASSERT_NE(env, nullptr);
  EXPECT_EQ((*env)["status"], "FAIL");
  const std::string reason = (*env)["reason"];
  EXPECT_NE(reason.find(python), std::string::npos) << reason;
  EXPECT_NE(reason.find("the interpreter itself hangs"), std::string::npos) << reason;
  EXPECT_NE((*env)["hint"].get<std::string>().find("timeout 30 " + python), std::string::npos);

  int smoke = 0;
  for (const auto& c : report["checks"]) {
    const std::string id = c["id"];
    if (id.rfind("smoke.", 0) != 0) continue;
    ++smoke;
    EXPECT_EQ(c["status"], "SKIP") << id;
    EXPECT_EQ(c["reason"], reason) << id;
    EXPECT_NE(c["hint"].get<std::string>().find("timeout 30 " + python), std::string::npos) << id;
  }
  EXPECT_GE(smoke, 5);
}

// An interpreter that exits at once (a virtualenv whose base Python was removed, a wrapper that
// fails): env.python says so once, and every smoke test is a SKIP with that reason, not a FAIL
// each with an unrelated hint (gloo ports, pip install).
TEST_F(DeadPython, InterpreterThatExitsAtOnceIsOneFailAndSkipsTheRest) {
  const std::string python = dir_ + "/python";
  WriteScript(python, "#!/bin/sh\necho 'error while loading shared libraries: libpython3.11.so.1.0' >&2\nexit 127\n");
  double wall_s = 0;
  const nlohmann::json report = FullRun(python, wall_s);
  const nlohmann::json* env = FindCheck(report, "env.python");
  ASSERT_NE(env, nullptr);
  EXPECT_EQ((*env)["status"], "FAIL");
  const std::string reason = (*env)["reason"];
  EXPECT_NE(reason.find("does not work: exit code 127"), std::string::npos) << reason;
  EXPECT_NE((*env)["hint"].get<std::string>().find(python + " -c"), std::string::npos);
  int smoke = 0;
  for (const auto& c : report["checks"]) {
    const std::string id = c["id"];
    if (id.rfind("smoke.", 0) != 0) continue;
    ++smoke;
    EXPECT_EQ(c["status"], "SKIP") << id << ": " << c.dump();
    EXPECT_EQ(c["reason"], reason) << id;
  }
  EXPECT_GE(smoke, 5);
}

TEST_F(DeadPython, HangInImportTorchIsNamedAndCostsOneStartUpBudget) {
  // A real python3 whose `torch` package sleeps when imported, as on a stuck driver.
  ASSERT_EQ(mkdir((dir_ + "/fake").c_str(), 0755), 0);
  ASSERT_EQ(mkdir((dir_ + "/fake/torch").c_str(), 0755), 0);
  ASSERT_TRUE(WriteFileAtomically(dir_ + "/fake/torch/__init__.py", "import time\nwhile True:\n    time.sleep(1)\n").ok());
  const std::string python = dir_ + "/python";
  WriteScript(python, "#!/bin/sh\nPYTHONPATH='" + dir_ + "/fake' exec python3 \"$@\"\n");
  double wall_s = 0;
  const nlohmann::json report = FullRun(python, wall_s);
  // 45 s of handshake for `import torch`, the rest of the run, and a minute to spare.
  EXPECT_LT(wall_s, 150) << "a hung `import torch` must not cost one timeout per smoke test";

  const nlohmann::json* env = FindCheck(report, "env.python");
  ASSERT_NE(env, nullptr);
  EXPECT_NE((*env)["status"], "FAIL") << "env.python imports nothing heavy: " << (*env)["reason"];

  int failed = 0, skipped = 0;
  std::string reason;
  for (const auto& c : report["checks"]) {
    const std::string id = c["id"];
    if (id.rfind("smoke.", 0) != 0) continue;
    const std::string status = c["status"];
    if (status == "FAIL") ++failed;
    if (status == "SKIP") ++skipped;
    ASSERT_TRUE(status == "FAIL" || status == "SKIP") << id << ": " << status;
    if (reason.empty()) reason = c["reason"];
    EXPECT_EQ(c["reason"], reason) << id;
    EXPECT_NE(c["hint"].get<std::string>().find("timeout 30 " + python + " -c \"import torch\""), std::string::npos)
        << id << ": " << c["hint"];
  }
  EXPECT_EQ(failed, 1) << "the probe that found the hang FAILs, the others SKIP";
  EXPECT_GE(skipped, 4);
  EXPECT_NE(reason.find("`import torch` hangs"), std::string::npos) << reason;
  EXPECT_NE(reason.find(python), std::string::npos) << reason;
}

}  // namespace
}  // namespace labcheck

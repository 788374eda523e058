// An interpreter that does not answer, through the real binary (issue 25): the whole run costs one
// start-up budget, however many parts use Python. env.python finds it and FAILs; env.compat and
// the smoke tests are SKIPs with the same reason and hint, and start nothing. Two ways to hang:
// the interpreter itself (a shell script that sleeps), and a python3 that answers the handshake and
// then hangs in `import torch` (a `torch` package that sleeps), each in a full check and --quick.
//
// The bound is the issue's: a normal run of the same kind (an interpreter that answers at once,
// measured just before, so it carries this machine's load), plus the one budget the hang costs,
// plus 10 s. --timeout-scale 0.15 makes the budgets 4.5 s (start-up) and 13.5 s (`import torch`):
// the code path is the one a 30 s or 90 s budget takes, the wait a sixth (issue 24). The code
// before issue 25 waited 4.5 + 18 (env.compat) + 7.5 (the site-packages query) s for a silent
// interpreter and 18 + 13.5 s for a hung `import torch` in a full check, past the bound by 16 and
// 8 s. With --quick and a hung `import torch` it waited only env.compat's 18 s, inside the bound:
// there the old code is caught by env.compat's own time (a SKIP waits for nothing) and by
// env.python, which passed.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <chrono>
#include <cstdio>
#include <filesystem>

#include "cli_support.h"

namespace labcheck {
namespace {

using cli_testing::FindCheck;
using cli_testing::RunLabCheck;
using cli_testing::WriteScript;

constexpr double kScale = 0.15;
constexpr double kStartupBudgetS = 30 * kScale;      // probes::kStartupBudgetS
constexpr double kTorchImportBudgetS = 90 * kScale;  // probes::kTorchImportBudgetS

enum class Hang { Interpreter, ImportTorch };
struct Case {
  Hang hang;
  bool quick;
};

std::string Name(const ::testing::TestParamInfo<Case>& info) {
  return std::string(info.param.hang == Hang::Interpreter ? "InterpreterItself" : "ImportTorch") +
         (info.param.quick ? "Quick" : "FullCheck");
}

class DeadPython : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = *MakePrivateTempDir("lab_check_dead_python_"); }
  void TearDown() override { RemoveTree(dir_); }

  // Runs the check as a user would (--skip-dist, as in the issue) and reads its JSON report. Only
  // the checks that ask Python, and those whose data they read (--only): the CPU benchmarks ask no
  // interpreter and cost each run 7 s of both cores (issue 24); the GPU checks skip here anyway.
  nlohmann::json Run(const std::string& python, bool quick, double& wall_s) {
    std::vector<std::string> args = {"--python", python, "--lang", "en", "--skip-dist", "--only", "env.*,smoke.*",
                                     "--timeout-scale", std::to_string(kScale)};
    if (quick) args.push_back("--quick");
    const auto start = std::chrono::steady_clock::now();
    ChildOutcome o = RunLabCheck(dir_, args, 400);
    wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_TRUE(o.exited_ok() || o.exit_code == 1) << o.Describe() << "\n" << o.err;
    auto text = ReadFile(dir_ + "/journal/lab-report.json");
    if (!text.ok()) {
      ADD_FAILURE() << "no report written";
      return nlohmann::json::object();
    }
    std::filesystem::remove_all(dir_ + "/journal");
    return nlohmann::json::parse(*text);
  }
  // An interpreter that answers at once: python3 without its site-packages (-S), so no torch and
  // no smoke test to run, whatever this machine has installed. The fastest normal run.
  std::string AnsweringPython() {
    const std::string path = dir_ + "/answering-python";
    WriteScript(path, "#!/bin/sh\nexec python3 -S \"$@\"\n");
    return path;
  }
  std::string SleepingPython() {
    const std::string path = dir_ + "/python";
    WriteScript(path, "#!/bin/sh\nexec sleep 100000\n");
    return path;
  }
  // A real python3 whose `torch` package sleeps when imported, as on a stuck driver.
  std::string TorchHangsPython() {
    std::filesystem::create_directories(dir_ + "/fake/torch");
    EXPECT_TRUE(WriteFileAtomically(dir_ + "/fake/torch/__init__.py", "import time\nwhile True:\n    time.sleep(1)\n").ok());
    const std::string path = dir_ + "/python";
    WriteScript(path, "#!/bin/sh\nPYTHONPATH='" + dir_ + "/fake' exec python3 \"$@\"\n");
    return path;
  }
  static std::string Durations(const nlohmann::json& report) {
    std::string out;
    for (const auto& c : report.value("checks", nlohmann::json::array()))
      out += "  " + c.value("id", std::string()) + " " + c.value("status", std::string()) + " " +
             std::to_string(c.value("duration_s", 0.0)) + " s\n";
    return out;
  }
  std::string dir_;
};

class DeadPythonBound : public DeadPython, public ::testing::WithParamInterface<Case> {};

TEST_P(DeadPythonBound, CostsOneStartUpBudgetAndEveryOtherPythonCheckSkipsWithItsReason) {
  const Case c = GetParam();
  double normal_s = 0, wall_s = 0;
  const nlohmann::json normal = Run(AnsweringPython(), c.quick, normal_s);
  const std::string python = c.hang == Hang::Interpreter ? SleepingPython() : TorchHangsPython();
  const nlohmann::json report = Run(python, c.quick, wall_s);
  const double budget_s = c.hang == Hang::Interpreter ? kStartupBudgetS : kTorchImportBudgetS;
  std::printf("normal run %.1f s, this run %.1f s, bound %.1f s\n", normal_s, wall_s, normal_s + budget_s + 10);
  EXPECT_LE(wall_s, normal_s + budget_s + 10)
      << "a normal run took " << normal_s << " s; this one should add one start-up budget (" << budget_s
      << " s), not one per part that asks Python\nnormal run:\n" << Durations(normal) << "this run:\n"
      << Durations(report);

  const nlohmann::json* env = FindCheck(report, "env.python");
  ASSERT_NE(env, nullptr);
  EXPECT_EQ((*env)["status"], "FAIL");
  const std::string reason = (*env)["reason"], hint = (*env)["hint"];
  EXPECT_NE(reason.find(python), std::string::npos) << reason;
  EXPECT_NE(reason.find(c.hang == Hang::Interpreter ? "the interpreter itself hangs" : "`import torch` hangs"),
            std::string::npos)
      << reason;
  EXPECT_NE(hint.find(c.hang == Hang::Interpreter ? "timeout 30 " + python : "timeout 30 " + python + " -c \"import torch\""),
            std::string::npos)
      << hint;
  EXPECT_TRUE((*env)["data"].contains("interpreter_unresponsive"));
  if (c.hang == Hang::ImportTorch) {
    // The interpreter itself answered: the packages it has are still shown.
    EXPECT_TRUE((*env)["data"].contains("packages")) << env->dump();
  }

  // Every other check that uses Python, and runs in this mode, says the same and waits for nothing.
  int asked = 0;
  for (const auto& check : report["checks"]) {
    const std::string id = check["id"];
    const bool uses_python = id == "env.compat" || id.rfind("smoke.", 0) == 0;
    if (!uses_python) continue;
    const std::string why = check.value("reason", std::string());
    if (why.find("--quick") != std::string::npos || why.find("--skip-dist") != std::string::npos) continue;
    ++asked;
    EXPECT_EQ(check["status"], "SKIP") << id << ": " << check.dump();
    EXPECT_EQ(why, reason) << id;
    EXPECT_EQ(check.value("hint", std::string()), hint) << id;
    EXPECT_TRUE(check["data"].contains("interpreter_unresponsive")) << id;
    EXPECT_LT(check.value("duration_s", 0.0), 1.0) << id << " waited";
  }
  EXPECT_GE(asked, c.quick ? 1 : 8) << "env.compat, and in a full check the single-process smoke tests";
}

INSTANTIATE_TEST_SUITE_P(Issue25, DeadPythonBound,
                         ::testing::Values(Case{Hang::Interpreter, false}, Case{Hang::Interpreter, true},
                                           Case{Hang::ImportTorch, false}, Case{Hang::ImportTorch, true}),
                         Name);

// An interpreter that exits at once (a virtualenv whose base Python was removed, a wrapper that
// fails): env.python says so once, and every other Python check is a SKIP with that reason, not a
// FAIL each with an unrelated hint (gloo ports, pip install).
TEST_F(DeadPython, InterpreterThatExitsAtOnceIsOneFailAndSkipsTheRest) {
  const std::string python = dir_ + "/python";
  WriteScript(python, "#!/bin/sh\necho 'error while loading shared libraries: libpython3.11.so.1.0' >&2\nexit 127\n");
  double wall_s = 0;
  const nlohmann::json report = Run(python, /*quick=*/false, wall_s);
  const nlohmann::json* env = FindCheck(report, "env.python");
  ASSERT_NE(env, nullptr);
  EXPECT_EQ((*env)["status"], "FAIL");
  const std::string reason = (*env)["reason"];
  EXPECT_NE(reason.find("does not work: exit code 127"), std::string::npos) << reason;
  EXPECT_NE((*env)["hint"].get<std::string>().find(python + " -c"), std::string::npos);
  int skipped = 0;
  for (const auto& c : report["checks"]) {
    const std::string id = c["id"];
    if (id != "env.compat" && id.rfind("smoke.", 0) != 0) continue;
    if (c.value("reason", std::string()).find("--skip-dist") != std::string::npos) continue;
    ++skipped;
    EXPECT_EQ(c["status"], "SKIP") << id << ": " << c.dump();
    EXPECT_EQ(c["reason"], reason) << id;
  }
  EXPECT_GE(skipped, 8);
}

}  // namespace
}  // namespace labcheck

// env.python end to end: the embedded probe under a real interpreter, a missing one, and one that
// prints garbage.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <string>
#include <vector>

#include "env/env_checks.h"
#include "env/python_check.h"
#include "platform/files.h"
#include "probes/interpreter.h"

namespace labcheck::env {
namespace {

CheckResult RunWith(const std::string& python) {
  RunOptions options;
  options.python = python;
  options.interpreter = std::make_shared<probes::Interpreter>(python, 1);
  std::vector<CheckResult> earlier;
  Check check;
  check.id = "env.python";
  check.budget_s = 30;
  CancelToken never = CancelToken::Never();
  CheckContext ctx(options, earlier, never, check, nullptr);
  return RunPythonCheck(ctx);
}

TEST(RunPythonCheck, SkipsWithoutAnInterpreter) {
  CheckResult result = RunWith("");
  EXPECT_EQ(result.outcome, Outcome::Skip);
  EXPECT_NE(result.hint.en.find("--python"), std::string::npos);
}

TEST(RunPythonCheck, ReadsARealInterpreter) {
  // Debian's python3 with python3-torch (a CPU build) on the development machine; any python3
  // elsewhere. The probe must answer for every course package either way.
  const std::string python = access("/usr/bin/python3", X_OK) == 0 ? "/usr/bin/python3" : "";
  if (python.empty()) GTEST_SKIP() << "no /usr/bin/python3";
  CheckResult result = RunWith(python);
  ASSERT_NE(result.outcome, Outcome::Fail) << result.error;
  ASSERT_NE(result.outcome, Outcome::Skip);
  EXPECT_EQ(result.data["python"]["path"], python);
  EXPECT_FALSE(result.data["python"]["site_packages"].empty());
  for (const std::string& name : CoursePackages()) {
    EXPECT_TRUE(result.data["packages"].contains(name)) << name;
  }
  if (!result.data["packages"]["torch"].is_null()) {
    // torch_cuda comes from torch/version.py: null for CPU builds, "12.x" for CUDA ones.
    EXPECT_TRUE(result.data["torch_cuda"].is_null() || result.data["torch_cuda"].is_string());
  }
}

TEST(RunPythonCheck, GarbageOutputFailsAndQuotesIt) {
  auto dir = MakePrivateTempDir("env_python_test_");
  ASSERT_TRUE(dir.ok());
  const std::string fake = *dir + "/python";
  {
    std::ofstream script(fake);
    script << "#!/bin/sh\necho 'Segmentation fault (core dumped), or so'\necho 'LABCHECK_RESULT [1,2'\n";
  }
  chmod(fake.c_str(), 0700);
  CheckResult result = RunWith(fake);
  RemoveTree(*dir);
  EXPECT_EQ(result.outcome, Outcome::Fail);
  EXPECT_NE(result.error.find("[1,2"), std::string::npos) << result.error;
  EXPECT_FALSE(result.hint.empty());
}

TEST(RunPythonCheck, WrongShapeFailsWithTheResult) {
  auto dir = MakePrivateTempDir("env_python_test_");
  ASSERT_TRUE(dir.ok());
  const std::string fake = *dir + "/python";
  {
    std::ofstream script(fake);
    script << "#!/bin/sh\necho 'LABCHECK_RESULT {\"python\": {\"version\": 3}}'\n";
  }
  chmod(fake.c_str(), 0700);
  CheckResult result = RunWith(fake);
  RemoveTree(*dir);
  EXPECT_EQ(result.outcome, Outcome::Fail);
  EXPECT_NE(result.error.find("python.version"), std::string::npos) << result.error;
}

TEST(RegisterEnvironmentChecks, AddsBothChecksInOrder) {
  Registry registry;
  RegisterEnvironmentChecks(registry);
  ASSERT_EQ(registry.checks().size(), 2u);
  EXPECT_EQ(registry.checks()[0].id, "env.system");
  EXPECT_EQ(registry.checks()[1].id, "env.python");
  for (const Check& check : registry.checks()) {
    EXPECT_EQ(check.section, "environment");
    EXPECT_TRUE(static_cast<bool>(check.run));
  }
}

}  // namespace
}  // namespace labcheck::env

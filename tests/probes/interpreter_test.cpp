// The run's one interpreter: started once, its answer (or its silence) shared by every question.
// Hangs are imitated by shell scripts and a `torch` package that sleeps; --timeout-scale (the
// `scale` below) shrinks the 30 s and 90 s budgets to a second or two.
#include "probes/interpreter.h"

#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "platform/files.h"
#include "probes/installed_version.h"
#include "runner/check.h"

namespace labcheck::probes {
namespace {

constexpr double kScale = 0.1;  // start-up 3 s, `import torch` 9 s: python3 starts well within 3 s on a loaded 2-core machine

class InterpreterTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = *MakePrivateTempDir("lab_check_interpreter_"); }
  void TearDown() override { RemoveTree(dir_); }
  std::string Script(const std::string& body) {
    const std::string path = dir_ + "/python";
    std::ofstream(path) << "#!/bin/sh\n" << body << "\n";
    chmod(path.c_str(), 0755);
    return path;
  }
  // python3 on PATH with a `torch` package whose __init__.py is `torch_body`.
  std::string PythonWithTorch(const std::string& torch_body) {
    std::filesystem::create_directories(dir_ + "/fake/torch");
    std::ofstream(dir_ + "/fake/torch/__init__.py") << torch_body;
    return Script("PYTHONPATH='" + dir_ + "/fake' exec python3 \"$@\"");
  }
  static ProbeSpec StdlibProbe() {
    ProbeSpec spec;
    spec.probe = "env_packages.py";
    spec.args = {"torch"};
    spec.timeout_s = 20;
    spec.startup_budget_s = 5;
    return spec;
  }
  static double Seconds(std::chrono::steady_clock::time_point since) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
  }
  std::string dir_;
};

TEST(SitePackagesFromAnswer, KeepsOnlyPackageFoldersInOrderWithoutDuplicates) {
  const nlohmann::json answer = nlohmann::json::parse(
      R"(["/v/lib/python3.12/site-packages", "/usr/lib/python3/dist-packages/", "/v/lib/python312.zip",
          "", "/v/lib/python3.12/site-packages", 7])");
  EXPECT_EQ(SitePackagesFromAnswer(answer),
            (std::vector<std::string>{"/v/lib/python3.12/site-packages", "/usr/lib/python3/dist-packages"}));
  EXPECT_TRUE(SitePackagesFromAnswer(nlohmann::json("not a list")).empty());
}

TEST_F(InterpreterTest, AWorkingInterpreterIsStartedOnceAndNamesItsSitePackages) {
  Interpreter python(PythonWithTorch("import sys\n"), kScale);
  EXPECT_FALSE(python.Start(Needs::Torch, CancelToken::Never()).has_value());
  EXPECT_EQ(python.started(), 2) << "the start, then `import torch` (a torch package is there)";
  const SitePackages site = python.FindSitePackages(CancelToken::Never());
  EXPECT_FALSE(site.unknown) << site.unknown->en;
  ASSERT_FALSE(site.folders.empty());
  for (const std::string& folder : site.folders) EXPECT_TRUE(folder.ends_with("-packages")) << folder;
  EXPECT_FALSE(python.Start(Needs::Torch, CancelToken::Never()).has_value());
  EXPECT_EQ(python.started(), 2) << "what it learned holds for the run";

  const Asked asked = python.Run(StdlibProbe(), Needs::Interpreter, CancelToken::Never());
  EXPECT_FALSE(asked.unresponsive);
  ASSERT_TRUE(asked.run.result.ok()) << asked.run.result.status().message();
  EXPECT_TRUE(asked.run.result->contains("packages"));
  EXPECT_EQ(python.started(), 3);
}

TEST_F(InterpreterTest, WithoutTorchThereIsNoImportToWaitFor) {
  // -S: no site-packages on sys.path, so no torch however python3 was installed.
  Interpreter python(Script("exec python3 -S \"$@\""), kScale);
  EXPECT_FALSE(python.Start(Needs::Torch, CancelToken::Never()).has_value());
  EXPECT_EQ(python.started(), 1);
}

TEST_F(InterpreterTest, ASilentInterpreterCostsOneStartUpBudgetForEveryQuestion) {
  const std::string path = Script("exec sleep 1000");
  Interpreter python(path, kScale);
  const auto start = std::chrono::steady_clock::now();
  const Asked first = python.Run(StdlibProbe(), Needs::Torch, CancelToken::Never());
  ASSERT_TRUE(first.unresponsive);
  EXPECT_TRUE(first.found_now);
  EXPECT_EQ(first.unresponsive->stage, "");
  EXPECT_EQ(first.unresponsive->python, path);
  EXPECT_FALSE(first.run.result.ok());

  const Asked second = python.Run(StdlibProbe(), Needs::Interpreter, CancelToken::Never());
  ASSERT_TRUE(second.unresponsive);
  EXPECT_FALSE(second.found_now) << "only the first question found it";
  EXPECT_EQ(second.unresponsive->Reason().en, first.unresponsive->Reason().en);
  const SitePackages site = python.FindSitePackages(CancelToken::Never());
  EXPECT_TRUE(site.folders.empty());
  ASSERT_TRUE(site.unknown);
  EXPECT_EQ(site.unknown->en, first.unresponsive->Reason().en);
  EXPECT_EQ(python.started(), 1) << "nothing is started after it is known not to answer";
  // One budget (3 s) and the kill, not one per question.
  EXPECT_LT(Seconds(start), 10);
}

TEST_F(InterpreterTest, AnInterpreterThatExitsAtOnceIsKnownGone) {
  Interpreter python(Script("echo 'error while loading shared libraries: libpython3.11.so.1.0' >&2\nexit 127"), kScale);
  const std::optional<Unresponsive> gone = python.Start(Needs::Interpreter, CancelToken::Never());
  ASSERT_TRUE(gone);
  EXPECT_EQ(gone->ended, "exit code 127");
  EXPECT_TRUE(python.Run(StdlibProbe(), Needs::Interpreter, CancelToken::Never()).unresponsive);
  EXPECT_EQ(python.started(), 1);
}

TEST_F(InterpreterTest, AHungImportTorchIsNamedAndStopsEveryLaterQuestion) {
  Interpreter python(PythonWithTorch("import time\nwhile True:\n    time.sleep(1)\n"), kScale);
  // The interpreter itself answers: its site-packages are known.
  EXPECT_FALSE(python.FindSitePackages(CancelToken::Never()).unknown);
  const std::optional<Unresponsive> stuck = python.Start(Needs::Torch, CancelToken::Never());
  ASSERT_TRUE(stuck);
  EXPECT_EQ(stuck->stage, "import torch");
  EXPECT_NE(stuck->Reason().en.find("`import torch` hangs"), std::string::npos) << stuck->Reason().en;
  // Even a question that needs no torch is answered at once: the same interpreter, known stuck.
  const Asked later = python.Run(StdlibProbe(), Needs::Interpreter, CancelToken::Never());
  ASSERT_TRUE(later.unresponsive);
  EXPECT_FALSE(later.found_now);
  EXPECT_EQ(python.started(), 2);
}

TEST_F(InterpreterTest, ATorchThatFailsToImportStillAnswers) {
  Interpreter python(PythonWithTorch("raise ImportError('libcudart.so.12: cannot open shared object file')\n"), kScale);
  EXPECT_FALSE(python.Start(Needs::Torch, CancelToken::Never()).has_value());
  EXPECT_FALSE(python.unresponsive());
}

TEST_F(InterpreterTest, AProbeThatMissesItsOwnHandshakeMakesItKnownUnresponsive) {
  // Answers the start, then hangs for every other probe (a stuck CUDA initialisation, say).
  Interpreter python(Script("case \"$1\" in */interpreter_start.py) exec python3 \"$@\";; esac\nexec sleep 1000"), kScale);
  ProbeSpec spec = StdlibProbe();
  spec.startup_budget_s = 1;
  const Asked first = python.Run(spec, Needs::Interpreter, CancelToken::Never());
  ASSERT_TRUE(first.unresponsive);
  EXPECT_TRUE(first.found_now);
  const Asked second = python.Run(spec, Needs::Interpreter, CancelToken::Never());
  ASSERT_TRUE(second.unresponsive);
  EXPECT_FALSE(second.found_now);
  EXPECT_EQ(python.started(), 2);
}

TEST_F(InterpreterTest, NoInterpreterStartsNothing) {
  Interpreter python("", kScale);
  EXPECT_FALSE(python.Start(Needs::Torch, CancelToken::Never()).has_value());
  EXPECT_FALSE(python.Run(StdlibProbe(), Needs::Interpreter, CancelToken::Never()).run.result.ok());
  EXPECT_TRUE(python.FindSitePackages(CancelToken::Never()).unknown);
  EXPECT_EQ(python.started(), 0);
}

// A distribution's version comes from its dist-info folder in the interpreter's site-packages (here
// the user site, moved into the test's folder by PYTHONUSERBASE), with no import of the package.
TEST_F(InterpreterTest, AnInstalledDistributionIsReadFromItsDistInfoFolder) {
  Interpreter python(Script("PYTHONUSERBASE='" + dir_ + "/userbase' exec python3 \"$@\""), kScale);
  std::string user_site;
  for (const std::string& folder : python.FindSitePackages(CancelToken::Never()).folders) {
    if (folder.rfind(dir_, 0) == 0) user_site = folder;
  }
  ASSERT_FALSE(user_site.empty()) << "the user site under " << dir_;
  EXPECT_EQ(InstalledDistributionVersion(python, "vllm"), std::nullopt);
  std::filesystem::create_directories(user_site + "/vllm-0.11.0.dist-info");
  std::filesystem::create_directories(user_site + "/vllm_flash_attn-2.6.1.dist-info");  // another name, same prefix
  EXPECT_EQ(InstalledDistributionVersion(python, "vllm"), "0.11.0");
  EXPECT_EQ(InstalledDistributionVersion(python, "flash_attn"), std::nullopt);
  EXPECT_EQ(python.started(), 1) << "asked once, no import";
}

TEST(UnresponsiveResult, TheFinderFailsTheOthersSkipWithTheSameWords) {
  Unresponsive u;
  u.python = "/x/python";
  u.waited_s = 30;
  const CheckResult found = UnresponsiveResult("env.python", u, /*found_now=*/true);
  const CheckResult later = UnresponsiveResult("env.compat", u, /*found_now=*/false);
  EXPECT_EQ(found.outcome, Outcome::Fail);
  EXPECT_EQ(later.outcome, Outcome::Skip);
  EXPECT_EQ(found.reason.en, later.reason.en);
  EXPECT_EQ(found.hint.en, later.hint.en);
  EXPECT_TRUE(later.data.contains(kUnresponsiveKey));
}

TEST(ChosenInterpreter, ARunWithoutOneIsAProgrammingError) {
  RunOptions options;
  EXPECT_THROW(ChosenInterpreter(options), std::logic_error);
  options.interpreter = std::make_shared<Interpreter>("/usr/bin/python3", 1);
  EXPECT_EQ(ChosenInterpreter(options).python(), "/usr/bin/python3");
}

}  // namespace
}  // namespace labcheck::probes

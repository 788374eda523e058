#include "probes/python_probe.h"

#include <sys/stat.h>

#include <cstdlib>
#include <fstream>

#include <gtest/gtest.h>

#include "platform/files.h"

namespace labcheck::probes {
namespace {

// A stand-in interpreter: a shell script that ignores the probe and prints what we want.
class FakePython : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = *MakePrivateTempDir("lab_check_test_"); }
  void TearDown() override { RemoveTree(dir_); }
  std::string Make(const std::string& body) {
    const std::string path = dir_ + "/python";
    std::ofstream(path) << "#!/bin/sh\n" << body << "\n";
    chmod(path.c_str(), 0755);
    return path;
  }
  ProbeRun Run(const std::string& python, double timeout_s = 10) {
    ProbeSpec spec;
    spec.python = python;
    spec.probe = "_labcheck.py";
    spec.timeout_s = timeout_s;
    return RunProbe(spec, CancelToken::Never());
  }
  std::string dir_;
};

TEST_F(FakePython, MissingInterpreterSaysSo) {
  ProbeRun run = Run("/nonexistent/python3");
  ASSERT_FALSE(run.result.ok());
  EXPECT_NE(run.result.status().message().find("cannot start /nonexistent/python3"), std::string::npos);
}

TEST_F(FakePython, GarbageIsRejectedWithWhatItPrinted) {
  ProbeRun run = Run(Make("echo 'Segmentation fault (core dumped)'; echo 'LABCHECK_RESULT {not json'"));
  ASSERT_FALSE(run.result.ok());
  EXPECT_NE(run.result.status().message().find("not valid JSON"), std::string::npos);
  run = Run(Make("echo 'some banner'"));
  ASSERT_FALSE(run.result.ok());
  EXPECT_NE(run.result.status().message().find("no result line"), std::string::npos);
  EXPECT_NE(run.result.status().message().find("some banner"), std::string::npos);
  run = Run(Make("echo 'LABCHECK_RESULT [1,2]'"));
  ASSERT_FALSE(run.result.ok());
  EXPECT_NE(run.result.status().message().find("not a JSON object"), std::string::npos);
}

TEST_F(FakePython, HangingInterpreterIsKilled) {
  ProbeRun run = Run(Make("sleep 30"), 0.5);
  ASSERT_FALSE(run.result.ok());
  EXPECT_TRUE(run.process.timed_out);
}

TEST_F(FakePython, TheLastResultLineWins) {
  ProbeRun run = Run(Make("echo 'LABCHECK_RESULT {\"a\":1}'; echo noise; echo 'LABCHECK_RESULT {\"a\":2}'"));
  ASSERT_TRUE(run.result.ok()) << run.result.status().message();
  EXPECT_EQ((*run.result)["a"], 2);
}

TEST_F(FakePython, ProbesAreWrittenBesideEachOtherAndRemovedAfterwards) {
  // The fake interpreter reports the directory of the script it was given, and what is in it.
  ProbeRun run = Run(Make("d=$(dirname \"$1\"); echo \"$d\" > " + dir_ + "/seen; "
                          "test -f \"$d/_labcheck.py\" && echo 'LABCHECK_RESULT {\"ok\":true}'"));
  ASSERT_TRUE(run.result.ok()) << run.result.status().message();
  std::string seen = *ReadFile(dir_ + "/seen");
  seen.pop_back();
  struct stat st {};
  EXPECT_NE(stat(seen.c_str(), &st), 0) << "temporary probe directory was left behind: " << seen;
}

TEST(ResolvePython, ExplicitPathMustExist) {
  auto r = ResolvePython("/nonexistent/bin/python");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("/nonexistent/bin/python"), std::string::npos);
  auto sh = ResolvePython("sh");  // a bare name is looked up in PATH
  ASSERT_TRUE(sh.ok());
  EXPECT_EQ(sh->front(), '/');
}

TEST(ResolvePython, PrefersTheActiveVirtualenv) {
  const std::string dir = *MakePrivateTempDir("lab_check_venv_");
  mkdir((dir + "/bin").c_str(), 0755);
  std::ofstream(dir + "/bin/python") << "#!/bin/sh\n";
  chmod((dir + "/bin/python").c_str(), 0755);
  setenv("VIRTUAL_ENV", dir.c_str(), 1);
  auto r = ResolvePython("");
  unsetenv("VIRTUAL_ENV");
  RemoveTree(dir);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, dir + "/bin/python");
}

TEST(EmbeddedProbes, HelperModuleIsEmbedded) {
  EXPECT_NE(EmbeddedProbe("_labcheck.py").find("def emit"), std::string_view::npos);
  EXPECT_TRUE(EmbeddedProbe("no_such_probe.py").empty());
}

}  // namespace
}  // namespace labcheck::probes

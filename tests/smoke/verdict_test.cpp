// From a probe's outcome to the check's result: SKIP reasons and their hints, errors, lost
// processes, and results that are not what the probe promised.
#include "smoke/verdict.h"

#include <gtest/gtest.h>

#include "reference/hints.h"

namespace labcheck::smoke {
namespace {

const nlohmann::json kNoFacts = nlohmann::json::object();

CheckResult Judge(const std::string& test, const nlohmann::json& result, const nlohmann::json& facts = kNoFacts) {
  return JudgeOutcome(*FindSmokeTest(test), TestOutcome::Of(result), facts, "/usr/bin/python3");
}

TEST(Verdict, MissingPackagesSkipWithTheCourseHint) {
  CheckResult r = Judge("lora", {{"status", "skip"}, {"reason", "package_missing"}, {"package", "peft"}});
  EXPECT_EQ(r.outcome, Outcome::Skip);
  EXPECT_EQ(r.reason.en, "package peft is not installed");
  EXPECT_EQ(r.hint.ru, hint::Action(hint::kLlamaLoraSkip).ru);
  r = Judge("qlora", {{"status", "skip"}, {"reason", "package_missing"}, {"package", "bitsandbytes"}});
  EXPECT_EQ(r.hint.ru, hint::Action(hint::kBitsandbytes).ru);
  r = Judge("qlora", {{"status", "skip"}, {"reason", "package_missing"}, {"package", "transformers"}});
  EXPECT_EQ(r.hint.ru, hint::Action(hint::kLlamaLoraSkip).ru);
  EXPECT_EQ(r.data["probe"]["package"], "transformers");  // the probe's own words stay in the JSON report
}

TEST(Verdict, NoTorchNamesTheInterpreterAndSaysHowToInstall) {
  CheckResult r = Judge("llama_train", {{"status", "skip"}, {"reason", "no_torch"}, {"error", "ModuleNotFoundError: No module named 'torch'"}});
  EXPECT_EQ(r.outcome, Outcome::Skip);
  EXPECT_NE(r.reason.en.find("/usr/bin/python3"), std::string::npos);
  EXPECT_NE(r.hint.en.find("pip install torch"), std::string::npos);
}

TEST(Verdict, TooOldTorchSaysWhichVersionIsNeeded) {
  CheckResult r = Judge("fsdp2", {{"status", "skip"}, {"reason", "torch_too_old"}, {"needed", "2.4"}, {"have", "1.13.1"}});
  EXPECT_EQ(r.outcome, Outcome::Skip);
  EXPECT_EQ(r.reason.en, "needs PyTorch 2.4 or newer, this one is 1.13.1");
}

TEST(Verdict, VllmSkipCarriesBothCommands) {
  const nlohmann::json facts = {{"devices", {{{"memory_gib", 31.5}}, {{"memory_gib", 31.5}}, {{"memory_gib", 31.5}}, {{"memory_gib", 31.5}}}}};
  CheckResult r = Judge("vllm", {{"status", "skip"}, {"reason", "package_missing"}, {"package", "vllm"}}, facts);
  EXPECT_EQ(r.outcome, Outcome::Skip);
  EXPECT_EQ(r.hint.ru, hint::Action(hint::kVllmSkip).ru);
  ASSERT_EQ(r.tables.size(), 1u);
  ASSERT_EQ(r.tables[0].rows.size(), 2u);
  EXPECT_NE(r.tables[0].rows[0][1].en.find("import vllm"), std::string::npos);
  EXPECT_NE(r.tables[0].rows[1][1].en.find("vllm serve Qwen/Qwen3-32B --tensor-parallel-size 4"), std::string::npos);
  EXPECT_EQ(r.data["vllm_serve_command"], r.tables[0].rows[1][1].en);
}

TEST(Verdict, CompilerErrorsGetTheCompilerHint) {
  CheckResult r = Judge("torch_compile", {{"status", "error"}, {"failure", "exception"}, {"stage", "run"},
                                          {"error_type", "InductorError"}, {"error", "fatal error: Python.h: No such file or directory"},
                                          {"traceback", "Traceback...\nfatal error: Python.h: No such file or directory"}});
  EXPECT_EQ(r.outcome, Outcome::Fail);
  EXPECT_NE(r.reason.en.find("InductorError: fatal error: Python.h"), std::string::npos) << r.reason.en;
  EXPECT_EQ(r.hint.ru, hint::Action(hint::kTritonCompiler).ru);
  EXPECT_NE(r.error.find("Traceback"), std::string::npos);
}

TEST(Verdict, UndefinedSymbolInBitsandbytesGetsItsHint) {
  CheckResult r = Judge("qlora", {{"status", "error"}, {"stage", "run"}, {"error_type", "OSError"},
                                  {"error", "libbitsandbytes_cuda121.so: undefined symbol: cget_col_row_stats"}});
  EXPECT_EQ(r.hint.ru, hint::Action(hint::kBitsandbytes).ru);
}

TEST(Verdict, ASoftTimeoutSaysSo) {
  CheckResult r = Judge("llama_train", {{"status", "error"}, {"failure", "timeout"}, {"budget_s", 2}, {"error", "no result within 2 s"}});
  EXPECT_EQ(r.outcome, Outcome::Fail);
  EXPECT_NE(r.reason.en.find("time budget (2 s)"), std::string::npos) << r.reason.en;
}

TEST(Verdict, AHangNamesWhereEveryRankStood) {
  CheckResult r = Judge("ddp", {{"status", "error"}, {"failure", "hang"}, {"backend", "nccl"}, {"watchdog_s", 165},
                                {"stages", {{"0", "ddp step 1 of 5"}, {"1", "hanging on purpose"}}},
                                {"error", "ranks [0, 1] not done after 165 s"}});
  EXPECT_EQ(r.outcome, Outcome::Fail);
  EXPECT_NE(r.reason.en.find("rank 1: hanging on purpose"), std::string::npos) << r.reason.en;
  EXPECT_EQ(r.hint.ru, hint::Action(hint::kNcclHang).ru);
}

TEST(Verdict, ACrashedRankIsNamedWithItsSignal) {
  CheckResult r = Judge("ddp", {{"status", "error"}, {"failure", "rank_failed"}, {"backend", "gloo"},
                                {"ranks", {{{"rank", 1}, {"exitcode", -11}, {"signal", "SIGSEGV"}}}},
                                {"stages", {{"0", "ddp step 1 of 5"}, {"1", "crashing"}}}, {"error", "ChildFailedError"}});
  EXPECT_EQ(r.outcome, Outcome::Fail);
  EXPECT_NE(r.reason.en.find("rank 1: SIGSEGV"), std::string::npos) << r.reason.en;
  EXPECT_FALSE(r.hint.empty());
}

TEST(Verdict, ARanksOwnPythonErrorIsQuoted) {
  CheckResult r = Judge("fsdp2", {{"status", "error"}, {"failure", "rank_failed"}, {"backend", "gloo"},
                                  {"ranks", {{{"rank", 0}, {"exitcode", 1}}}},
                                  {"rank_errors", {{"0", {{"failed_stage", "fsdp2 step 1 of 5"}, {"error_type", "RuntimeError"},
                                                           {"error", "gloo does not support reduce_scatter"}, {"traceback", "Traceback (most recent call last)"}}}}},
                                  {"error", "ChildFailedError"}});
  EXPECT_NE(r.reason.en.find("rank 0: exit code 1"), std::string::npos) << r.reason.en;
  EXPECT_NE(r.reason.en.find("RuntimeError: gloo does not support reduce_scatter"), std::string::npos) << r.reason.en;
  EXPECT_NE(r.error.find("Traceback"), std::string::npos);
}

TEST(Verdict, ALostProcessIsAFailAndAnInterruptIsNotRun) {
  CheckResult r = JudgeOutcome(*FindSmokeTest("hf_llama"), TestOutcome::Lost(T("упал", "crashed"), "Segmentation fault"), kNoFacts, "py");
  EXPECT_EQ(r.outcome, Outcome::Fail);
  EXPECT_EQ(r.reason.en, "crashed");
  EXPECT_EQ(r.error, "Segmentation fault");
  r = JudgeOutcome(*FindSmokeTest("hf_llama"), TestOutcome::Lost(T("стоп", "stopped"), "", /*cancelled=*/true), kNoFacts, "py");
  EXPECT_EQ(r.outcome, Outcome::NotRun);
}

TEST(Verdict, AResultWithoutStatusOrWithAStrangeOneFails) {
  CheckResult r = Judge("triton", {{"max_abs_err", 0}});
  EXPECT_EQ(r.outcome, Outcome::Fail);
  EXPECT_NE(r.reason.en.find("'status'"), std::string::npos) << r.reason.en;
  r = Judge("triton", {{"status", "defer"}});
  EXPECT_EQ(r.outcome, Outcome::Fail);
  r = Judge("triton", {{"status", 3}});
  EXPECT_EQ(r.outcome, Outcome::Fail);
  EXPECT_NE(r.reason.en.find("'status' is number"), std::string::npos) << r.reason.en;
}

}  // namespace
}  // namespace labcheck::smoke

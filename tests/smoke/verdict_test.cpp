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

// The report's facts for a machine whose driver has four cards: `state` is torch's.
facts::RunFacts FourCards(facts::TorchState state) {
  facts::RunFacts run;
  run.torch.state = state;
  run.torch.python = "/usr/bin/python3";
  run.torch.version = "2.5.1+cpu";
  run.torch.build = T("сборка только для CPU", "CPU-only build");
  run.cards.inventory_ran = true;
  run.cards.cuda_ok = true;
  run.cards.cuda_gpus = 4;
  run.cards.nvml = std::vector<facts::DriverGpu>(4);
  return run;
}

const nlohmann::json kDdpOnTheCpu = {{"status", "ran"}, {"backend", "gloo"}, {"world_size", 2}, {"device", "cpu"},
                                     {"cpu_because", "no_gpu"}, {"steps", 5}, {"max_abs_diff", 1e-8},
                                     {"cross_rank_max_diff", 0.0}, {"max_abs_param", 0.5}};

// A CPU-only torch on a machine with four cards (issue 56): DDP over gloo is a WARN that says why
// and what to do, never a PASS "no GPU: two processes over gloo, as the course page describes";
// on a machine without a GPU it stays the course page's PASS.
TEST(Verdict, ACpuRunOnAMachineWithCardsWarnsWithTheCause) {
  const facts::RunFacts cpu_only = FourCards(facts::TorchState::NoCuda);
  CheckResult r = JudgeOutcome(*FindSmokeTest("ddp"), TestOutcome::Of(kDdpOnTheCpu), kNoFacts, "/usr/bin/python3", &cpu_only);
  EXPECT_EQ(r.outcome, Outcome::Warn);
  EXPECT_NE(r.reason.en.find("ran on the CPU although the machine has GPUs (4)"), std::string::npos) << r.reason.en;
  EXPECT_NE(r.reason.en.find("CPU-only build"), std::string::npos) << r.reason.en;
  EXPECT_NE(r.hint.en.find("env.compat"), std::string::npos) << r.hint.en;
  EXPECT_EQ(r.summary.en.find("no GPU"), std::string::npos) << r.summary.en;

  facts::RunFacts none;
  none.torch.state = facts::TorchState::NoCuda;
  none.cards.inventory_ran = true;
  r = JudgeOutcome(*FindSmokeTest("ddp"), TestOutcome::Of(kDdpOnTheCpu), kNoFacts, "/usr/bin/python3", &none);
  EXPECT_EQ(r.outcome, Outcome::Pass);
  EXPECT_NE(r.summary.en.find("on the CPU: no GPU"), std::string::npos) << r.summary.en;
}

// A SKIP for want of a GPU says the cause (cards hidden by the variable), not "no GPU".
TEST(Verdict, ANoGpuSkipSaysWhyPyTorchHasNone) {
  facts::RunFacts hidden = FourCards(facts::TorchState::Cuda);
  hidden.cards.cuda_ok = false;
  hidden.cards.cuda_gpus = 0;
  hidden.cards.visible_devices = "";
  CheckResult r = JudgeOutcome(*FindSmokeTest("flash_attention"), TestOutcome::Of({{"status", "skip"}, {"reason", "no_gpu"}}), kNoFacts,
                               "/usr/bin/python3", &hidden);
  EXPECT_EQ(r.outcome, Outcome::Skip);
  EXPECT_NE(r.reason.en.find("CUDA_VISIBLE_DEVICES=\"\" hides all the driver's 4 GPUs"), std::string::npos) << r.reason.en;
  EXPECT_NE(r.hint.en.find("unset CUDA_VISIBLE_DEVICES"), std::string::npos) << r.hint.en;
}

// torch not installed: the smoke SKIP says what env.python says, with the same fix.
TEST(Verdict, NoTorchSaysWhatEnvPythonSays) {
  const facts::RunFacts absent = FourCards(facts::TorchState::Absent);
  CheckResult r = JudgeOutcome(*FindSmokeTest("llama_train"), TestOutcome::Of({{"status", "skip"}, {"reason", "no_torch"}}), kNoFacts,
                               "/usr/bin/python3", &absent);
  EXPECT_EQ(r.reason.en, "torch is not installed in the interpreter /usr/bin/python3");
  EXPECT_NE(r.hint.en.find("activate the course's environment"), std::string::npos) << r.hint.en;
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

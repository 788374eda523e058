#include "cpu_bench/matmul_check.h"

#include <gtest/gtest.h>

namespace labcheck::cpu_bench {
namespace {

// N = 1000: 2·10^9 FLOP per call, so GFLOPS = 2 / seconds.
MatmulInputs SgemmInputs(std::vector<double> seconds, std::string corename = "SkylakeX") {
  MatmulInputs in;
  in.run.n = 1000;
  in.run.threads = 8;
  in.run.corename = std::move(corename);
  in.run.config = "OpenBLAS 0.3.21 DYNAMIC_ARCH";
  in.run.seconds = std::move(seconds);
  return in;
}

FlopsPeak Avx512Peak(double gflops) {
  FlopsPeak peak;
  peak.gflops = gflops;
  peak.cores = 8;
  peak.mhz = 2000;
  peak.isa = {"AVX-512", 512, true, 2, {}};
  peak.label = T("8 ядер × …", "8 cores × …");
  return peak;
}

TEST(AssessMatmul, MedianGflopsWithKeyAndReference) {
  MatmulInputs in = SgemmInputs({0.02, 0.01, 0.04});  // 100, 200, 50 GFLOPS
  in.peak = Avx512Peak(1024);
  CheckResult result = AssessMatmul(in);
  const Measurement* m = result.Find("cpu.sgemm_gflops");
  ASSERT_TRUE(m);
  EXPECT_DOUBLE_EQ(m->value, 100);
  EXPECT_EQ(m->unit, "GFLOPS");
  EXPECT_EQ(m->reference, 1024);
  EXPECT_NE(m->method.en.find("2·N³"), std::string::npos);
  EXPECT_EQ(result.outcome, Outcome::Warn);  // 100 < 512
  EXPECT_EQ(result.data["gflops"].size(), 3u);
  EXPECT_EQ(result.data["theoretical"]["flop_per_cycle"], 64);
}

// A low figure on a busy machine (issue 56): the note says the machine was busy; the hint about a
// hot or power-saving CPU answers a low figure on an idle one only.
TEST(AssessMatmul, TheGovernorHintOnlyOnAnIdleMachine) {
  MatmulInputs in = SgemmInputs({0.02});  // 100 GFLOPS, under half of 1024
  in.peak = Avx512Peak(1024);
  CheckResult idle = AssessMatmul(in);
  EXPECT_NE(idle.hint.en.find("cpupower frequency-set -g performance"), std::string::npos) << idle.hint.en;
  in.load = {8.5, 2};
  CheckResult busy = AssessMatmul(in);
  EXPECT_EQ(busy.outcome, Outcome::Warn);
  EXPECT_NE(busy.reason.en.find("busy"), std::string::npos) << busy.reason.en;
  EXPECT_EQ(busy.hint.en.find("cpupower"), std::string::npos) << busy.hint.en;
}

TEST(AssessMatmul, HalfOfThePeakPasses) {
  MatmulInputs in = SgemmInputs({2.0 / 512});
  in.peak = Avx512Peak(1024);
  EXPECT_EQ(AssessMatmul(in).outcome, Outcome::Pass);
}

TEST(AssessMatmul, NarrowOpenBlasKernelsAreJudgedByWhatTheyCanReach) {
  // AVX-512 CPU, AVX2 ("Haswell") kernels: 512 GFLOPS reachable of 1024.
  MatmulInputs in = SgemmInputs({2.0 / 300}, "Haswell");
  in.peak = Avx512Peak(1024);
  CheckResult result = AssessMatmul(in);
  EXPECT_EQ(result.outcome, Outcome::Pass) << result.reason.en;  // 300 ≥ 256
  EXPECT_EQ(result.Find("cpu.sgemm_gflops")->reference, 1024);    // the CPU's own peak stays
  EXPECT_DOUBLE_EQ(result.data["theoretical"]["kernel_reachable_gflops"].get<double>(), 512);
  in.run.seconds = {2.0 / 200};
  EXPECT_EQ(AssessMatmul(in).outcome, Outcome::Warn);
}

TEST(AssessMatmul, WithoutPeakSaysWhy) {
  MatmulInputs in = SgemmInputs({0.01});
  in.peak_unavailable = T("нет флагов x86", "no x86 flags");
  CheckResult result = AssessMatmul(in);
  EXPECT_EQ(result.outcome, Outcome::Pass);
  EXPECT_FALSE(result.Find("cpu.sgemm_gflops")->reference.has_value());
  EXPECT_EQ(result.data["theoretical"]["error"], "no x86 flags");
  EXPECT_EQ(result.tables.at(0).notes.back().ru, "Теоретическую цифру вывести не удалось: нет флагов x86.");
  EXPECT_EQ(result.tables.at(0).rows.at(0).at(4).en, "—");
}

}  // namespace
}  // namespace labcheck::cpu_bench

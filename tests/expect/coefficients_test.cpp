// The two factors: computed from the right measurement, and a stated reason whenever missing.
#include "expect/coefficients.h"

#include <gtest/gtest.h>

#include "report_fixtures.h"

namespace labcheck::expect {
namespace {

using testing::AddCheck;
using testing::Measure;

ReportFacts Facts(const Report& r) { return ReadFacts(r, reference::GpuCatalog::Builtin()); }

TEST(TrainingFactor, IsTheLessonsBandOverTheMeasuredTflops) {
  Report r = testing::CourseMachineReport();
  Measure(r, "smoke.llama_train", "smoke.llama.train_tflops", 25, "TFLOPS");
  const Coefficient c = TrainingTimeFactor(r, Facts(r), Course());
  ASSERT_TRUE(c.value.has_value());
  EXPECT_DOUBLE_EQ(*c.value, 30.0 / 25);
  EXPECT_DOUBLE_EQ(c.range->low, 20.0 / 25);
  EXPECT_DOUBLE_EQ(c.range->high, 40.0 / 25);
  EXPECT_EQ(c.from_key, "smoke.llama.train_tflops");
  EXPECT_DOUBLE_EQ(*c.measured, 25);
}

TEST(TrainingFactor, MissingWithoutGpuEvenWithACpuFigure) {
  const Report r = testing::CpuOnlyReport();
  const Coefficient c = TrainingTimeFactor(r, Facts(r), Course());
  EXPECT_FALSE(c.value.has_value());
  EXPECT_NE(c.missing_reason.ru.find("нет GPU"), std::string::npos);
}

TEST(TrainingFactor, MissingWhenPyTorchSeesNoneOfTheCards) {
  // nvidia-smi lists four cards, torch is a CPU-only build: the smoke test ran on the CPU, and the
  // factor says why in the report's one wording of that cause.
  Report r = testing::CourseMachineReport();
  AddCheck(r, "env.python", Outcome::Pass).data["torch_cuda"] = nullptr;
  testing::RemoveMeasurement(r, "gpu.count");
  testing::RemoveMeasurement(r, "smoke.llama.train_tflops");
  Measure(r, "smoke.llama_train", "smoke.llama_cpu_tiny.tokens_per_s", 2400, "tokens/s");
  const Coefficient c = TrainingTimeFactor(r, Facts(r), Course());
  EXPECT_FALSE(c.value.has_value());
  EXPECT_NE(c.missing_reason.ru.find("сборка только для CPU"), std::string::npos) << c.missing_reason.ru;
  EXPECT_NE(c.missing_reason.en.find("ran on the CPU"), std::string::npos) << c.missing_reason.en;
  // The all-reduce went through the driver and NCCL, not PyTorch: its factor stands, since a
  // reinstalled torch will see the same links.
  const Coefficient communication = CommunicationTimeFactor(r, Facts(r), Course());
  ASSERT_TRUE(communication.value.has_value()) << communication.missing_reason.en;
  EXPECT_DOUBLE_EQ(*communication.value, Course().allreduce_busbw_assumed_gbps / *communication.measured);
}

TEST(TrainingFactor, MissingWhenTheTestFailedOrDidNotRun) {
  Report failed = testing::CourseMachineReport();
  testing::RemoveMeasurement(failed, "smoke.llama.train_tflops");
  AddCheck(failed, "smoke.llama_train", Outcome::Fail, "CUDA out of memory");
  const Coefficient c = TrainingTimeFactor(failed, Facts(failed), Course());
  EXPECT_FALSE(c.value.has_value());
  EXPECT_EQ(c.missing_reason.ru, "smoke.llama_train: FAIL: CUDA out of memory");

  Report quick = testing::CourseMachineReport();
  quick.meta.quick = true;
  testing::RemoveMeasurement(quick, "smoke.llama.train_tflops");
  quick.checks.erase(std::remove_if(quick.checks.begin(), quick.checks.end(),
                                    [](const CheckResult& ch) { return ch.id == "smoke.llama_train"; }),
                     quick.checks.end());
  AddCheck(quick, "smoke.llama_train", Outcome::Skip, "пропущено в режиме --quick");  // as the runner marks it
  const Coefficient q = TrainingTimeFactor(quick, Facts(quick), Course());
  EXPECT_FALSE(q.value.has_value());
  EXPECT_NE(q.missing_reason.ru.find("--quick"), std::string::npos);
}

TEST(TrainingFactor, AFailedRunsFigureDoesNotCount) {
  Report r = testing::CourseMachineReport();
  AddCheck(r, "smoke.llama_train", Outcome::Fail, "loss is NaN");
  EXPECT_FALSE(TrainingTimeFactor(r, Facts(r), Course()).value.has_value());
}

TEST(CommunicationFactor, IsWOverTheMeasuredBusBandwidth) {
  Report r = testing::CourseMachineReport();
  Measure(r, "interconnect.allreduce", "nccl.allreduce_busbw_gbps", 8, "GB/s");
  const Coefficient c = CommunicationTimeFactor(r, Facts(r), Course());
  ASSERT_TRUE(c.value.has_value());
  EXPECT_DOUBLE_EQ(*c.value, 10.0 / 8);
  EXPECT_FALSE(c.range.has_value());
  EXPECT_EQ(c.from_key, "nccl.allreduce_busbw_gbps");
}

// The measured busbw is bound by the ring's slowest link; the factor says which, so a user with
// bridged pairs sees why their NVLink does not lower it.
TEST(CommunicationFactor, NamesTheRingsSlowestLink) {
  const Report r = testing::BridgedA100Report();
  const Coefficient c = CommunicationTimeFactor(r, Facts(r), Course());
  ASSERT_TRUE(c.value.has_value());
  EXPECT_DOUBLE_EQ(*c.value, 10.0 / 13.5);
  EXPECT_NE(c.limited_by.en.find("through host memory"), std::string::npos) << c.limited_by.en;
  EXPECT_TRUE(c.ToJson().contains("limited_by"));
  // The course machine's W is its own reference: nothing to add.
  const Report course = testing::CourseMachineReport();
  EXPECT_TRUE(CommunicationTimeFactor(course, Facts(course), Course()).limited_by.empty());
}

TEST(CommunicationFactor, FromTheRetryWhenOnlyNcclP2PDisableWorked) {
  Report r = testing::CourseMachineReport();
  CheckResult& ar = AddCheck(r, "interconnect.allreduce", Outcome::Warn);
  ar.data["hung"] = true;
  ar.data["p2p_disable_retry"] = {{"hung", false}, {"wrong_sum", false}};
  const Coefficient c = CommunicationTimeFactor(r, Facts(r), Course());
  ASSERT_TRUE(c.value.has_value());
  EXPECT_DOUBLE_EQ(*c.value, 10 / 11.2);
}

TEST(CommunicationFactor, MissingCasesSayWhy) {
  const Report cpu = testing::CpuOnlyReport();
  EXPECT_NE(CommunicationTimeFactor(cpu, Facts(cpu), Course()).missing_reason.ru.find("нет GPU"), std::string::npos);

  Report one = testing::CourseMachineReport();
  auto& gpus = testing::Inventory(one)["gpus"];
  gpus.erase(gpus.begin() + 1, gpus.end());
  AddCheck(one, "env.python", Outcome::Pass).data["torch_cuda"]["device_count"] = 1;
  testing::Measure(one, "gpu.inventory", "gpu.count", 1);
  EXPECT_NE(CommunicationTimeFactor(one, Facts(one), Course()).missing_reason.ru.find("одна GPU"), std::string::npos);

  Report wrong = testing::CourseMachineReport();
  AddCheck(wrong, "interconnect.allreduce", Outcome::Fail).data["wrong_sum"] = true;
  const Coefficient w = CommunicationTimeFactor(wrong, Facts(wrong), Course());
  EXPECT_FALSE(w.value.has_value());
  EXPECT_NE(w.missing_reason.ru.find("неверную сумму"), std::string::npos);

  Report skipped = testing::CourseMachineReport();
  skipped.meta.skip_dist = true;
  testing::RemoveMeasurement(skipped, "nccl.allreduce_busbw_gbps");
  skipped.checks.erase(std::remove_if(skipped.checks.begin(), skipped.checks.end(),
                                      [](const CheckResult& ch) { return ch.id == "interconnect.allreduce"; }),
                       skipped.checks.end());
  AddCheck(skipped, "interconnect.allreduce", Outcome::Skip, "пропущено по флагу --skip-dist");  // as the runner marks it
  EXPECT_NE(CommunicationTimeFactor(skipped, Facts(skipped), Course()).missing_reason.ru.find("--skip-dist"),
            std::string::npos);

  Report hung = testing::CourseMachineReport();
  testing::RemoveMeasurement(hung, "nccl.allreduce_busbw_gbps");
  AddCheck(hung, "interconnect.allreduce", Outcome::Fail, "all-reduce завис").data["hung"] = true;
  EXPECT_EQ(CommunicationTimeFactor(hung, Facts(hung), Course()).missing_reason.ru,
            "interconnect.allreduce: FAIL: all-reduce завис");
}

TEST(Coefficient, JsonCarriesValueOrReason) {
  Report r = testing::CourseMachineReport();
  const auto j = TrainingTimeFactor(r, Facts(r), Course()).ToJson();
  EXPECT_NEAR(j["value"].get<double>(), 30 / 32.5, 1e-12);
  EXPECT_FALSE(j.contains("missing_reason"));
  const Report cpu = testing::CpuOnlyReport();
  const auto m = TrainingTimeFactor(cpu, Facts(cpu), Course()).ToJson();
  EXPECT_TRUE(m["value"].is_null());
  EXPECT_FALSE(m["missing_reason"]["en"].get<std::string>().empty());
}

}  // namespace
}  // namespace labcheck::expect

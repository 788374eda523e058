// FLOPs, time and money of training, worked by hand.
#include <gtest/gtest.h>

#include "calc/training_cost.h"

namespace labcheck::calc {
namespace {

TEST(TrainingCostTest, FlopsPerTokenPerParameter) {
  EXPECT_EQ(FlopsPerTokenPerParam(Method::Full, false), 6);
  EXPECT_EQ(FlopsPerTokenPerParam(Method::Full, true), 8);
  EXPECT_EQ(FlopsPerTokenPerParam(Method::Lora, false), 4);
  EXPECT_EQ(FlopsPerTokenPerParam(Method::Qlora, true), 6);
}

TEST(TrainingCostTest, SixNDAtThirtyTflopsOnFourGpus) {
  // 6 * 7e9 * 1e9 = 4.2e19 FLOPs; 4 GPUs * 30e12 = 1.2e14 FLOP/s -> 350,000 s = 97.22 h; 388.9 GPU-hours.
  CostInput in{7e9, 1e9, Method::Full, false, 4, 2.0};
  const TrainingCost c = ComputeTrainingCost(in, {30, 30, Text("test")});
  EXPECT_DOUBLE_EQ(c.flops, 4.2e19);
  EXPECT_NEAR(c.hours_low, 350000.0 / 3600, 1e-9);
  EXPECT_DOUBLE_EQ(c.hours_low, c.hours_high);
  EXPECT_NEAR(c.gpu_hours_low, 4 * 350000.0 / 3600, 1e-9);
  EXPECT_NEAR(*c.money_low, 2 * 4 * 350000.0 / 3600, 1e-9);
}

TEST(TrainingCostTest, RangeOfThroughputGivesRangeOfTime) {
  CostInput in{1e9, 1e9, Method::Lora, false, 1, std::nullopt};
  const TrainingCost c = ComputeTrainingCost(in, {20, 40, Text("course")});
  // 4e18 FLOPs: at 40 TFLOPS 1e5 s, at 20 TFLOPS 2e5 s.
  EXPECT_NEAR(c.hours_low, 1e5 / 3600, 1e-9);
  EXPECT_NEAR(c.hours_high, 2e5 / 3600, 1e-9);
  EXPECT_FALSE(c.money_low.has_value());
}

}  // namespace
}  // namespace labcheck::calc

#include "cpu_bench/machine_load.h"

#include <gtest/gtest.h>

namespace labcheck::cpu_bench {
namespace {

TEST(ParseLoadAverage, TakesTheOneMinuteFigure) {
  EXPECT_DOUBLE_EQ(*ParseLoadAverage("8.46 9.35 8.23 3/456 23514\n"), 8.46);
  EXPECT_DOUBLE_EQ(*ParseLoadAverage("0.00 0.01 0.05 1/100 1"), 0.0);
  EXPECT_FALSE(ParseLoadAverage("").has_value());
  EXPECT_FALSE(ParseLoadAverage("busy 1 2").has_value());
}

TEST(MachineLoad, BusyAboveHalfTheCpus) {
  EXPECT_FALSE((MachineLoad{1.0, 2}).busy());
  EXPECT_TRUE((MachineLoad{1.1, 2}).busy());
  EXPECT_FALSE((MachineLoad{std::nullopt, 2}).busy());
  EXPECT_TRUE((MachineLoad{1.1, 2}).Note().en.find("1.1") != std::string::npos);
  EXPECT_TRUE((MachineLoad{0.1, 2}).Note().empty());
}

}  // namespace
}  // namespace labcheck::cpu_bench

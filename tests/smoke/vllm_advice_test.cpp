#include "smoke/vllm_advice.h"

#include <gtest/gtest.h>

namespace labcheck::smoke {
namespace {

nlohmann::json Gpus(int count, double memory_gib) {
  nlohmann::json devices = nlohmann::json::array();
  for (int i = 0; i < count; ++i) devices.push_back({{"index", i}, {"memory_gib", memory_gib}});
  return {{"devices", devices}};
}

TEST(VllmServeAdvice, TheCoursesMachineServes32BAcrossFourCards) {
  auto advice = VllmServeAdvice(Gpus(4, 31.5));
  ASSERT_TRUE(advice);
  EXPECT_EQ(advice->model, "Qwen/Qwen3-32B");
  EXPECT_EQ(advice->tensor_parallel, 4);
  EXPECT_EQ(advice->command.rfind("vllm serve Qwen/Qwen3-32B --tensor-parallel-size 4", 0), 0u) << advice->command;
}

TEST(VllmServeAdvice, OneGamingCardServes8B) {
  auto advice = VllmServeAdvice(Gpus(1, 23.6));
  ASSERT_TRUE(advice);
  EXPECT_EQ(advice->model, "Qwen/Qwen3-8B");
  EXPECT_EQ(advice->tensor_parallel, 1);
}

TEST(VllmServeAdvice, TensorParallelismIsAPowerOfTwo) {
  auto advice = VllmServeAdvice(Gpus(3, 23.6));
  ASSERT_TRUE(advice);
  EXPECT_EQ(advice->tensor_parallel, 2);
  EXPECT_EQ(advice->model, "Qwen/Qwen3-14B");
}

TEST(VllmServeAdvice, NoGpuNoCommand) {
  EXPECT_FALSE(VllmServeAdvice(Gpus(0, 0)));
  EXPECT_FALSE(VllmServeAdvice(nlohmann::json::object()));
  EXPECT_FALSE(VllmServeAdvice({{"devices", "garbage"}}));
  EXPECT_FALSE(VllmServeAdvice(Gpus(1, 0.5)));  // too small for the smallest model
}

}  // namespace
}  // namespace labcheck::smoke

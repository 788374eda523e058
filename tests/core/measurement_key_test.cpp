#include "core/measurement_key.h"

#include <gtest/gtest.h>

namespace labcheck::measurement_key {
namespace {

TEST(MeasurementKey, FormatsIndexAndFigure) {
  EXPECT_EQ(Format(0, "matmul_bf16_tflops"), "gpu0.matmul_bf16_tflops");
  EXPECT_EQ(Format(12, "h2d_pinned_gbps"), "gpu12.h2d_pinned_gbps");
}

TEST(MeasurementKey, ParsesWhatFormatWrites) {
  for (int gpu : {0, 7, 15, 1023}) {
    const std::optional<GpuFigure> parsed = Parse(Format(gpu, "memory_total_gib"));
    ASSERT_TRUE(parsed) << gpu;
    EXPECT_EQ(parsed->gpu, gpu);
    EXPECT_EQ(parsed->figure, "memory_total_gib");
  }
}

TEST(MeasurementKey, FigureKeepsItsOwnDots) {
  const std::optional<GpuFigure> parsed = Parse("gpu3.a.b");
  ASSERT_TRUE(parsed);
  EXPECT_EQ(parsed->gpu, 3);
  EXPECT_EQ(parsed->figure, "a.b");
}

TEST(MeasurementKey, LeadingZerosReadAsTheRegexDid) {
  const std::optional<GpuFigure> parsed = Parse("gpu01.x");
  ASSERT_TRUE(parsed);
  EXPECT_EQ(parsed->gpu, 1);
}

TEST(MeasurementKey, RefusesKeysOfOtherShapes) {
  for (const char* key : {"gpu.count", "gpu0.", "gpu0", "gpu", "cpu0.mem_copy_gbps", "xgpu0.a", "GPU0.a", "gpu-1.a",
                          "gpu 0.a", "gpu0x.a", "p2p.0-1.copy_gbps", "nccl.allreduce_ok", "", "gpu0.a\nb",
                          "gpu99999999999999999999.a"})
    EXPECT_FALSE(Parse(key)) << key;
}

}  // namespace
}  // namespace labcheck::measurement_key

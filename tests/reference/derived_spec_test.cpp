// Unknown GPUs: figures estimated from driver facts must reproduce a known card's datasheet when
// fed that card's facts, and say when nothing could be estimated.
#include "reference/derived_spec.h"

#include <gtest/gtest.h>

namespace labcheck::reference {
namespace {

TEST(DeriveSpec, ReproducesTheRtx4090DatasheetFromItsDriverFacts) {
  // RTX 4090 as NVML reports it: 128 SMs, max SM clock 2520 MHz, memory clock 10501 MHz, 384 bit.
  DriverFacts facts{"NVIDIA GeForce RTX 4090", 23.99, 8, 9, 128, 2520.0, 10501.0, 384, 4, 16};
  const GpuSpec spec = DeriveSpec(facts, GpuCatalog::Builtin());
  EXPECT_EQ(spec.id, "derived");
  EXPECT_TRUE(spec.geforce);
  ASSERT_TRUE(spec.bf16_tflops.has_value());
  EXPECT_NEAR(*spec.bf16_tflops, 165.2, 0.5);
  ASSERT_TRUE(spec.memory_bandwidth_gbps.has_value());
  EXPECT_NEAR(*spec.memory_bandwidth_gbps, 1008, 1);
  EXPECT_NE(spec.source.en.find("derived"), std::string::npos);
  EXPECT_NE(spec.source.ru.find("оценка по данным драйвера: тензорные TFLOPS = 1024 FLOP/такт/SM × 128 SM × 2520 МГц × 0.5"), std::string::npos)
      << spec.source.ru;
  // The per-SM rate's source (cc 8.9: the RTX 6000 Ada datasheet) in the report's language too.
  EXPECT_NE(spec.source.ru.find("NVIDIA RTX 6000 Ada Generation datasheet (1457 TFLOPS FP8 с разреженностью"), std::string::npos);
  EXPECT_NE(spec.source.en.find("NVIDIA RTX 6000 Ada Generation datasheet (1457 FP8 TFLOPS with sparsity"), std::string::npos);
  EXPECT_EQ(spec.pcie_gen, 4);
}

TEST(DeriveSpec, DatacenterCardsKeepTheFullAccumulateRate) {
  DriverFacts facts{"NVIDIA RTX 6000 Ada Generation", 47.5, 8, 9, 142, 2505.0, std::nullopt, std::nullopt, 4, 16};
  const GpuSpec spec = DeriveSpec(facts, GpuCatalog::Builtin());
  EXPECT_FALSE(spec.geforce);
  EXPECT_NEAR(spec.fp16_tflops.value(), 364.2, 0.5);
  EXPECT_FALSE(spec.memory_bandwidth_gbps.has_value());
}

TEST(DeriveSpec, VoltaHasNoBf16) {
  DriverFacts facts{"Tesla V100-DGXS-32GB", 32, 7, 0, 80, 1530.0, 877.0, 4096, 3, 16};
  const GpuSpec spec = DeriveSpec(facts, GpuCatalog::Builtin());
  EXPECT_TRUE(spec.fp16_tflops.has_value());
  EXPECT_FALSE(spec.bf16_tflops.has_value());
  EXPECT_NEAR(*spec.memory_bandwidth_gbps, 898, 1);
}

TEST(DeriveSpec, UnknownArchitectureOrMissingClocksGiveNoTflops) {
  DriverFacts blackwell{"NVIDIA B200", 180, 10, 0, 148, 1965.0, std::nullopt, std::nullopt, 5, 16};
  EXPECT_FALSE(DeriveSpec(blackwell, GpuCatalog::Builtin()).fp16_tflops.has_value());
  DriverFacts no_clock{"NVIDIA Something", 16, 8, 9, 60, std::nullopt, std::nullopt, std::nullopt, {}, {}};
  const GpuSpec spec = DeriveSpec(no_clock, GpuCatalog::Builtin());
  EXPECT_FALSE(spec.fp16_tflops.has_value());
  EXPECT_NE(spec.source.en.find("too little"), std::string::npos);
  EXPECT_NE(spec.source.ru.find("слишком мало"), std::string::npos);
}

}  // namespace
}  // namespace labcheck::reference

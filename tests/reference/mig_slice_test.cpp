// A MIG slice's figures are its share of the whole card's: SMs for the tensor rates, memory for the
// size and bandwidth; with no share to know (an uncatalogued card, no SM count in the file) there
// is no spec, so the slice is not compared at all.
#include "reference/mig_slice.h"

#include <gtest/gtest.h>

namespace labcheck::reference {
namespace {

TEST(MigSlice, AnH100SliceGetsItsShareOfTheCard) {
  const GpuCatalog& catalog = GpuCatalog::Builtin();
  const GpuSpec* card = catalog.FindById("h100-sxm");
  ASSERT_NE(card, nullptr);
  ASSERT_EQ(card->sm_count, 132);
  const std::optional<GpuSpec> slice = MigSliceSpec(catalog, "NVIDIA H100 80GB HBM3 MIG 1g.10gb", 16, 9.75);
  ASSERT_TRUE(slice.has_value());
  EXPECT_DOUBLE_EQ(*slice->bf16_tflops, *card->bf16_tflops * 16 / 132);
  EXPECT_DOUBLE_EQ(*slice->memory_bandwidth_gbps, *card->memory_bandwidth_gbps * 9.75 / 80);
  EXPECT_DOUBLE_EQ(slice->memory_gib, 9.75);
  EXPECT_FALSE(slice->nvlink.has_value());
  EXPECT_EQ(MigParentName("NVIDIA H100 80GB HBM3 MIG 1g.10gb+me"), "NVIDIA H100 80GB HBM3");
}

TEST(MigSlice, WithoutAShareToKnowThereIsNoSpec) {
  const GpuCatalog& catalog = GpuCatalog::Builtin();
  EXPECT_FALSE(MigSliceSpec(catalog, "NVIDIA H100 80GB HBM3", 132, 79.6).has_value());  // not a slice
  EXPECT_FALSE(MigSliceSpec(catalog, "NVIDIA H100 80GB HBM3 MIG 1g.10gb", 0, 9.75).has_value());  // SMs unknown
  EXPECT_FALSE(MigSliceSpec(catalog, "NVIDIA Unknown GPU MIG 1g.10gb", 16, 9.75).has_value());
}

// The A100's catalog entry has no SM count but its 7 compute slices (NVIDIA's MIG user guide): a
// profile Ng gets N/7 of the tensor rate, a compute instance Nc of a larger GPU instance N/7 too.
TEST(MigSlice, AnA100SliceGetsItsComputeSlicesShare) {
  const GpuCatalog& catalog = GpuCatalog::Builtin();
  const GpuSpec* card = catalog.FindById("a100-sxm-80gb");
  ASSERT_NE(card, nullptr);
  ASSERT_EQ(card->sm_count, 0);
  ASSERT_EQ(card->mig_compute_slices, 7);
  const std::optional<GpuSpec> one = MigSliceSpec(catalog, "NVIDIA A100-SXM4-80GB MIG 1g.10gb", 14, 9.75);
  ASSERT_TRUE(one.has_value());
  EXPECT_DOUBLE_EQ(*one->bf16_tflops, *card->bf16_tflops / 7);
  EXPECT_DOUBLE_EQ(*one->memory_bandwidth_gbps, *card->memory_bandwidth_gbps * 9.75 / 80);
  const std::optional<GpuSpec> three = MigSliceSpec(catalog, "NVIDIA A100-SXM4-80GB MIG 3g.40gb", 42, 39.5);
  ASSERT_TRUE(three.has_value());
  EXPECT_DOUBLE_EQ(*three->bf16_tflops, *card->bf16_tflops * 3 / 7);
  const std::optional<GpuSpec> ci = MigSliceSpec(catalog, "NVIDIA A100-SXM4-80GB MIG 1c.3g.40gb", 14, 39.5);
  ASSERT_TRUE(ci.has_value());
  EXPECT_DOUBLE_EQ(*ci->bf16_tflops, *card->bf16_tflops / 7);
  // A name without a profile this can read, or more slices than the card has: not comparable.
  EXPECT_FALSE(MigSliceSpec(catalog, "NVIDIA A100-SXM4-80GB MIG 9g.90gb", 14, 9.75).has_value());
}

// The A30: four compute slices (MIG user guide: up to 4 instances, profiles 1g.6gb, 2g.12gb,
// 4g.24gb) and no SM count in the file, so a profile Ng gets N/4 of the card. Its device name
// carries no memory size ("NVIDIA A30 MIG 1g.6gb"), and there is one A30 entry to find.
TEST(MigSlice, AnA30SliceGetsAQuarterPerComputeSlice) {
  const GpuCatalog& catalog = GpuCatalog::Builtin();
  const GpuSpec* card = catalog.FindById("a30");
  ASSERT_NE(card, nullptr);
  ASSERT_EQ(card->sm_count, 0);
  ASSERT_EQ(card->mig_compute_slices, 4);
  const std::optional<GpuSpec> one = MigSliceSpec(catalog, "NVIDIA A30 MIG 1g.6gb", 14, 5.75);
  ASSERT_TRUE(one.has_value());
  EXPECT_DOUBLE_EQ(*one->bf16_tflops, *card->bf16_tflops / 4);
  EXPECT_DOUBLE_EQ(*one->memory_bandwidth_gbps, *card->memory_bandwidth_gbps * 5.75 / 24);
  EXPECT_FALSE(one->nvlink.has_value());
  const std::optional<GpuSpec> two = MigSliceSpec(catalog, "NVIDIA A30 MIG 2g.12gb", 28, 11.75);
  ASSERT_TRUE(two.has_value());
  EXPECT_DOUBLE_EQ(*two->bf16_tflops, *card->bf16_tflops * 2 / 4);
  // The A30 has four slices, not seven: a 7g profile is no A30's.
  EXPECT_FALSE(MigSliceSpec(catalog, "NVIDIA A30 MIG 7g.24gb", 56, 23.5).has_value());
}

}  // namespace
}  // namespace labcheck::reference

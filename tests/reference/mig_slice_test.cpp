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
  // The catalog gives no SM count for the A100 (yet): its slices stay "not comparable".
  EXPECT_FALSE(MigSliceSpec(catalog, "NVIDIA A100-SXM4-80GB MIG 1g.10gb", 14, 9.75).has_value());
  EXPECT_FALSE(MigSliceSpec(catalog, "NVIDIA Unknown GPU MIG 1g.10gb", 16, 9.75).has_value());
}

}  // namespace
}  // namespace labcheck::reference

// "Which card to rent": the fewest cards of each size, and one row per memory size.
#include "calc/gpu_fit.h"

#include <gtest/gtest.h>

#include <set>

#include "calc/byte_units.h"
#include "reference/gpu_catalog.h"

namespace labcheck::calc {
namespace {

reference::GpuSpec Card(const std::string& id, double memory_gib) {
  reference::GpuSpec card;
  card.id = id;
  card.name = "NVIDIA " + id;
  card.memory_gib = memory_gib;
  return card;
}

// A job that needs 60 GiB whole, split evenly over the cards.
double SixtyGiBSplit(int cards) { return 60.0 * kBytesPerGiB / cards; }

TEST(GpuFitTest, FewestCardsFirstThenTheSmallestCard) {
  const auto fits = FitOnGpus({Card("big", 80), Card("small", 16), Card("mid", 24), Card("tiny", 4)}, SixtyGiBSplit);
  ASSERT_EQ(fits.size(), 4u);
  EXPECT_EQ(fits[0].gpu_id, "big");
  EXPECT_EQ(fits[0].count, 1);
  // 30 GiB on two fits neither; 15 GiB on four fits both, and the smaller card is the cheaper rental.
  EXPECT_EQ(fits[1].gpu_id, "small");
  EXPECT_EQ(fits[1].count, 4);
  EXPECT_EQ(fits[2].gpu_id, "mid");
  EXPECT_EQ(fits[2].count, 4);
  EXPECT_EQ(fits[3].gpu_id, "tiny");
  EXPECT_FALSE(fits[3].count.has_value());
  EXPECT_DOUBLE_EQ(fits[3].per_gpu_bytes, SixtyGiBSplit(8));  // the need on 8 cards, for the note
}

std::vector<std::string> English(const std::vector<Text>& names) {
  std::vector<std::string> english;
  for (const Text& name : names) english.push_back(name.en);
  return english;
}

TEST(GpuFitTest, CardsOfOneSizeShareARowInTheCatalogsOrder) {
  const auto fits = FitOnGpus({Card("a", 24), Card("b", 80), Card("c", 24), Card("d", 80), Card("e", 16)}, SixtyGiBSplit);
  const auto groups = GroupByMemorySize(fits);
  ASSERT_EQ(groups.size(), 3u);
  EXPECT_EQ(groups[0].memory_gib, 80);
  EXPECT_EQ(English(groups[0].gpu_names), (std::vector<std::string>{"NVIDIA b", "NVIDIA d"}));
  EXPECT_EQ(English(groups[1].gpu_names), (std::vector<std::string>{"NVIDIA e"}));
  EXPECT_EQ(groups[2].memory_gib, 24);
  EXPECT_EQ(groups[2].count, 4);
  EXPECT_EQ(English(groups[2].gpu_names), (std::vector<std::string>{"NVIDIA a", "NVIDIA c"}));
}

// A name with words of ours ("(modified)") is shown in the report's language; JSON keeps English.
TEST(GpuFitTest, ANameWithWordsOfOursHasItsRussianForm) {
  reference::GpuSpec card = Card("x", 32);
  card.name_ru = "NVIDIA x (модифицированная)";
  const auto groups = GroupByMemorySize(FitOnGpus({card, Card("y", 32)}, SixtyGiBSplit));
  ASSERT_EQ(groups.size(), 1u);
  ASSERT_EQ(groups[0].gpu_names.size(), 2u);
  EXPECT_EQ(groups[0].gpu_names[0].ru, "NVIDIA x (модифицированная)");
  EXPECT_EQ(groups[0].gpu_names[0].en, "NVIDIA x");
  EXPECT_EQ(groups[0].gpu_names[1].ru, "NVIDIA y");
}

TEST(GpuFitTest, EverySizeOfTheCatalogIsOneRow) {
  const auto& gpus = reference::GpuCatalog::Builtin().gpus();
  const auto groups = GroupByMemorySize(FitOnGpus(gpus, SixtyGiBSplit));
  std::set<double> sizes;
  size_t names = 0;
  for (const auto& gpu : gpus) sizes.insert(gpu.memory_gib);
  for (const auto& group : groups) names += group.gpu_names.size();
  EXPECT_EQ(groups.size(), sizes.size());
  EXPECT_EQ(names, gpus.size());
}

}  // namespace
}  // namespace labcheck::calc

// The course's scale of deviation: in band, normal up to 20 %, flagged at 2× either way.
#include "expect/deviation.h"

#include <gtest/gtest.h>

namespace labcheck::expect {
namespace {

const reference::Band kBand{68, 83};

TEST(Judge, InsideTheBandIsRatioOne) {
  const Judgement j = Judge(75, kBand, 0.2, 2);
  EXPECT_DOUBLE_EQ(j.ratio, 1);
  EXPECT_EQ(j.level, Level::InBand);
  EXPECT_FALSE(j.flagged());
}

TEST(Judge, UpToTwentyPercentOutsideIsNormal) {
  EXPECT_EQ(Judge(68 * 0.85, kBand, 0.2, 2).level, Level::Normal);
  EXPECT_EQ(Judge(83 * 1.2, kBand, 0.2, 2).level, Level::Normal);
  EXPECT_EQ(Judge(68 * 0.7, kBand, 0.2, 2).level, Level::Notable);
}

TEST(Judge, TwiceOffEitherWayIsFlagged) {
  const Judgement low = Judge(34, kBand, 0.2, 2);
  EXPECT_EQ(low.level, Level::OffLow);
  EXPECT_DOUBLE_EQ(low.ratio, 0.5);
  EXPECT_TRUE(low.flagged());
  EXPECT_EQ(Judge(34.1, kBand, 0.2, 2).level, Level::Notable);
  const Judgement high = Judge(25, reference::Band{10, 10}, 0.2, 2);
  EXPECT_EQ(high.level, Level::OffHigh);
  EXPECT_DOUBLE_EQ(high.ratio, 2.5);
  EXPECT_EQ(Judge(19.9, reference::Band{10, 10}, 0.2, 2).level, Level::Notable);
}

TEST(Judge, FlagTextSaysHowManyTimesAndWhichWay) {
  EXPECT_EQ(FlagText(Judge(26, kBand, 0.2, 2)).ru, "да: ниже в 2.6 раза");
  EXPECT_EQ(FlagText(Judge(26, kBand, 0.2, 2)).en, "yes: 2.6× lower");
  EXPECT_EQ(FlagText(Judge(25, reference::Band{10, 10}, 0.2, 2)).en, "yes: 2.5× higher");
  EXPECT_EQ(FlagText(Judge(75, kBand, 0.2, 2)).ru, "нет");
  EXPECT_EQ(VerdictText(Judge(61.2, kBand, 0.2, 2)).ru, "норма (ниже на 10%)");
}

TEST(Format, NumbersAndBands) {
  EXPECT_EQ(Num(97.5), "97.5");
  EXPECT_EQ(Num(32.0), "32");
  EXPECT_EQ(Num(0.67), "0.67");
  EXPECT_EQ(BandText({68.25, 82.875}), "68–83");
  EXPECT_EQ(BandText({6.0, 6.5}), "6–6.5");
  EXPECT_EQ(BandText({10, 10}), "10");
}

}  // namespace
}  // namespace labcheck::expect

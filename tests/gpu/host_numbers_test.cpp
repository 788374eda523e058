// Host-side number formats and the matmul spot check: the check must pass exact results and
// catch zeros, NaNs and a transposed product.
#include <gtest/gtest.h>

#include <cmath>

#include "gpu/bench/host_numbers.h"
#include "gpu/bench/random_vectors.h"

namespace labcheck::gpu {
namespace {

TEST(Formats, Bf16AndHalfRoundToNearestEven) {
  EXPECT_EQ(FloatToBf16(1.0f), 0x3F80);
  EXPECT_EQ(Bf16ToFloat(0x3F80), 1.0f);
  EXPECT_EQ(FloatToBf16(-2.5f), 0xC020);
  // 1 + 2^-8 is halfway between two bf16 values: ties go to the even one (1.0).
  EXPECT_EQ(FloatToBf16(1.0f + std::ldexp(1.0f, -8)), 0x3F80);
  EXPECT_EQ(FloatToBf16(1.0f + 3 * std::ldexp(1.0f, -8)), 0x3F82);
  EXPECT_EQ(FloatToHalf(1.0f), 0x3C00);
  EXPECT_EQ(FloatToHalf(-0.5f), 0xB800);
  EXPECT_EQ(HalfToFloat(0x3C00), 1.0f);
  EXPECT_EQ(FloatToHalf(1.0f + std::ldexp(1.0f, -11)), 0x3C00);
  EXPECT_EQ(FloatToHalf(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3C02);
  for (float v : {0.0625f, 0.3f, -0.77f, 0.999f}) {
    EXPECT_NEAR(HalfToFloat(FloatToHalf(v)), v, std::fabs(v) * std::ldexp(1.0, -11));
    EXPECT_NEAR(Bf16ToFloat(FloatToBf16(v)), v, std::fabs(v) * std::ldexp(1.0, -8));
  }
}

TEST(Formats, E4m3DecodesTheOcpEncoding) {
  EXPECT_EQ(E4m3ToFloat(0x38), 1.0f);
  EXPECT_EQ(E4m3ToFloat(0x7E), 448.0f);  // the largest finite value
  EXPECT_EQ(E4m3ToFloat(0xB8), -1.0f);
  EXPECT_EQ(E4m3ToFloat(0x01), std::ldexp(1.0f, -9));  // smallest subnormal
  EXPECT_TRUE(std::isnan(E4m3ToFloat(0x7F)));
  FastRandom random(3);
  for (int i = 0; i < 10000; ++i) {
    float v = E4m3ToFloat(RandomE4m3(random));
    ASSERT_FALSE(std::isnan(v));
    ASSERT_GE(std::fabs(v), 0.125f);
    ASSERT_LE(std::fabs(v), 1.875f);
  }
}

TEST(Formats, RandomInputsAreNeverZero) {
  FastRandom random(11);
  for (int i = 0; i < 100000; ++i) ASSERT_GE(std::fabs(random.NonZeroUnit()), 0.0625f);
}

// The matmul inputs' four-at-a-time path (random_vectors.h) against the scalar conversions the
// spot check decodes with: the same bits for every value drawn, and the ties and the rounding
// carry into the exponent picked out.
TEST(RandomVectors, ConversionsMatchTheScalarOnesAndValuesAreNeverZero) {
  RandomLanes lanes(7);
  int negative = 0;
  for (int draw = 0; draw < 50000; ++draw) {
    const F32x4 values = NonZeroUnits(lanes.Next());
    const U16x4 bf16 = ToBf16(values), half = ToHalf(values);
    for (int lane = 0; lane < 4; ++lane) {
      ASSERT_GE(std::fabs(values[lane]), 0.0625f);
      ASSERT_LE(std::fabs(values[lane]), 1.0f);
      ASSERT_EQ(bf16[lane], FloatToBf16(values[lane])) << values[lane];
      ASSERT_EQ(half[lane], FloatToHalf(values[lane])) << values[lane];
      negative += values[lane] < 0;
    }
  }
  EXPECT_NEAR(negative, 100000, 2000);  // the sign bit is a fair coin
  const F32x4 ties = {1.0f + std::ldexp(1.0f, -11), 1.0f + 3 * std::ldexp(1.0f, -11), std::nextafter(1.0f, 0.0f), -0.0625f};
  const F32x4 bf16_ties = {1.0f + std::ldexp(1.0f, -8), 1.0f + 3 * std::ldexp(1.0f, -8), std::nextafter(1.0f, 0.0f), -1.0f};
  for (int lane = 0; lane < 4; ++lane) {
    EXPECT_EQ(ToHalf(ties)[lane], FloatToHalf(ties[lane])) << ties[lane];
    EXPECT_EQ(ToBf16(bf16_ties)[lane], FloatToBf16(bf16_ties[lane])) << bf16_ties[lane];
  }
  EXPECT_EQ(ToHalf(ties)[2], 0x3C00);  // just below 1 rounds up into the next exponent
}

// A small TN product on the host, as the GPU would compute it, rounded to the output format.
struct Small {
  int n = 64;
  std::vector<float> a, b;
  std::vector<std::pair<int, int>> positions;
  Small() {
    FastRandom random(5);
    for (int i = 0; i < n * n; ++i) a.push_back(Bf16ToFloat(FloatToBf16(random.NonZeroUnit())));
    for (int i = 0; i < n * n; ++i) b.push_back(Bf16ToFloat(FloatToBf16(random.NonZeroUnit())));
    for (int i = 0; i < 16; ++i) positions.emplace_back(static_cast<int>(random.Next() % n), static_cast<int>(random.Next() % n));
  }
  double Dot(int m, int col, bool transposed = false) const {
    double sum = 0;
    for (int k = 0; k < n; ++k) sum += static_cast<double>(transposed ? a[k * n + m] : a[m * n + k]) * b[col * n + k];
    return sum;
  }
};

TEST(SpotCheck, PassesRoundedResultsAndCatchesWrongOnes) {
  Small s;
  const ErrorModel bf16 = ErrorModelFor(MatmulPrecision::BF16);
  std::vector<double> rounded, zeros, transposed, nan_one;
  for (auto [m, col] : s.positions) {
    rounded.push_back(Bf16ToFloat(FloatToBf16(static_cast<float>(s.Dot(m, col)))));
    zeros.push_back(0);
    transposed.push_back(Bf16ToFloat(FloatToBf16(static_cast<float>(s.Dot(m, col, true)))));
  }
  nan_one = rounded;
  nan_one[3] = NAN;
  SpotCheck good = CheckSamples(s.a, s.b, s.n, s.n, s.positions, rounded, bf16);
  EXPECT_TRUE(good.ok());
  EXPECT_EQ(good.samples, 16);
  EXPECT_LT(good.worst_error_over_tolerance, 1);
  EXPECT_FALSE(CheckSamples(s.a, s.b, s.n, s.n, s.positions, zeros, bf16).ok());
  EXPECT_FALSE(CheckSamples(s.a, s.b, s.n, s.n, s.positions, transposed, bf16).ok());
  SpotCheck with_nan = CheckSamples(s.a, s.b, s.n, s.n, s.positions, nan_one, bf16);
  EXPECT_FALSE(with_nan.ok());
  EXPECT_EQ(with_nan.failures, 1);
  EXPECT_FALSE(CheckSamples(s.a, s.b, s.n, s.n, {}, {}, bf16).ok());  // nothing checked is not a pass
}

}  // namespace
}  // namespace labcheck::gpu

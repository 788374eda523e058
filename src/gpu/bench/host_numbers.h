// Host-side numbers for the matmul: random inputs in the GPU's formats (never zero, so a kernel
// that writes zeros cannot pass) and the spot check of a few results against a double-precision
// reference computed from exactly the rounded inputs the GPU saw.
#pragma once
#include <cstdint>
#include <cstring>
#include <vector>

namespace labcheck::gpu {

// xorshift64*: fast, reproducible, good enough for test data (not for statistics).
class FastRandom {
 public:
  explicit FastRandom(uint64_t seed) : state_(seed != 0 ? seed : 0x9E3779B97F4A7C15ull) {}
  // Inline: the FP8 matmul inputs draw one per value (the other formats: random_vectors.h).
  uint64_t Next() {
    state_ ^= state_ >> 12;
    state_ ^= state_ << 25;
    state_ ^= state_ >> 27;
    return state_ * 0x2545F4914F6CDD1Dull;
  }
  // Uniform in [-1, -1/16] ∪ [1/16, 1]: bounded away from zero. 24 random bits → [1/16, 1), then
  // a random sign.
  float NonZeroUnit() {
    uint64_t bits = Next();
    return Signed(Magnitude(bits >> 40), (bits & 1) != 0);
  }

 private:
  // 1/16 + 15/16 · bits/2²⁴, one multiply: 15/16 · 2⁻²⁴ is exact in a float, so the folded
  // constant gives the same values as scaling twice.
  static float Magnitude(uint64_t bits24) {
    constexpr float kScale = 0.9375f / static_cast<float>(1 << 24);
    return 0.0625f + static_cast<float>(bits24) * kScale;
  }
  static float Signed(float magnitude, bool negative) { return negative ? -magnitude : magnitude; }

  uint64_t state_;
};

// Round to nearest even. random_vectors.h converts the matmul inputs four at a time, as these do.
inline uint16_t FloatToBf16(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  uint32_t rounding = 0x7FFF + ((bits >> 16) & 1);
  return static_cast<uint16_t>((bits + rounding) >> 16);
}

float Bf16ToFloat(uint16_t bits);

// Round to nearest even; our inputs are normal numbers.
inline uint16_t FloatToHalf(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  uint32_t sign = (bits >> 16) & 0x8000;
  int exponent = static_cast<int>((bits >> 23) & 0xFF) - 127 + 15;
  uint32_t mantissa = bits & 0x7FFFFF;
  if (exponent <= 0) return static_cast<uint16_t>(sign);              // underflow: our inputs never do
  if (exponent >= 31) return static_cast<uint16_t>(sign | 0x7C00);    // overflow to infinity
  uint32_t half = sign | (static_cast<uint32_t>(exponent) << 10) | (mantissa >> 13);
  uint32_t rest = mantissa & 0x1FFF;
  if (rest > 0x1000 || (rest == 0x1000 && (half & 1) != 0)) ++half;  // nearest, ties to even
  return static_cast<uint16_t>(half);
}

float HalfToFloat(uint16_t bits);
float E4m3ToFloat(uint8_t bits);    // FP8 E4M3 (OCP "fn": no infinities, 0x7F/0xFF are NaN)
// A random E4M3 value with magnitude in [1/8, 1.875]: never zero, never NaN.
uint8_t RandomE4m3(FastRandom& random);

enum class MatmulPrecision { BF16, FP16, TF32, FP8 };
const char* PrecisionKey(MatmulPrecision precision);  // "bf16", "fp16", "tf32", "fp8"

// How far a result may be from the exact dot product of the rounded inputs:
// output rounding, input rounding inside the tensor core (TF32 keeps 10 mantissa bits), and
// FP32 accumulation (Hopper's FP8 path accumulates with fewer bits, hence its looser term).
struct ErrorModel {
  double output_eps;
  double input_eps;
  double accumulate_eps;
};
ErrorModel ErrorModelFor(MatmulPrecision precision);

struct SpotCheck {
  int samples = 0;
  int failures = 0;
  double worst_error_over_tolerance = 0;  // < 1 passes
  bool ok() const { return samples > 0 && failures == 0; }
};

// How far one GPU result is from the exact dot product of `row` and `column` (k values each, the
// rounded inputs as floats), over the model's tolerance: below 1 passes; NaN reads as infinity.
double SampleErrorRatio(const float* row, const float* column, int k, double gpu_value, const ErrorModel& model);
void CountSample(double ratio, SpotCheck* check);

// The TN product D[m + n*M] = Σ_k A[k + m*K] · B[k + n*K] (A is K×M column-major, transposed by
// the GEMM; B is K×N): `a` and `b` are the inputs as floats (already rounded to the GPU format),
// `positions` the (m, n) sampled, `gpu_values` what the GPU produced there.
SpotCheck CheckSamples(const std::vector<float>& a, const std::vector<float>& b, int m_size, int k_size,
                       const std::vector<std::pair<int, int>>& positions, const std::vector<double>& gpu_values,
                       const ErrorModel& model);

}  // namespace labcheck::gpu

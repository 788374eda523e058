// Host-side numbers for the matmul: random inputs in the GPU's formats (never zero, so a kernel
// that writes zeros cannot pass) and the spot check of a few results against a double-precision
// reference computed from exactly the rounded inputs the GPU saw.
#pragma once
#include <cstdint>
#include <vector>

namespace labcheck::gpu {

// xorshift64*: fast, reproducible, good enough for test data (not for statistics).
class FastRandom {
 public:
  explicit FastRandom(uint64_t seed) : state_(seed != 0 ? seed : 0x9E3779B97F4A7C15ull) {}
  // Inline: the matmul inputs draw 134 M of these per precision.
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
    float magnitude = 0.0625f + 0.9375f * static_cast<float>(bits >> 40) * (1.0f / static_cast<float>(1 << 24));
    return (bits & 1) != 0 ? -magnitude : magnitude;
  }

 private:
  uint64_t state_;
};

uint16_t FloatToBf16(float value);  // round to nearest even
float Bf16ToFloat(uint16_t bits);
uint16_t FloatToHalf(float value);  // round to nearest even; our inputs are normal numbers
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

#include "gpu/bench/host_numbers.h"

#include <cmath>
#include <cstring>

namespace labcheck::gpu {

float Bf16ToFloat(uint16_t half_bits) {
  uint32_t bits = static_cast<uint32_t>(half_bits) << 16;
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

float HalfToFloat(uint16_t h) {
  int exponent = (h >> 10) & 0x1F;
  int mantissa = h & 0x3FF;
  float magnitude;
  if (exponent == 0) magnitude = std::ldexp(static_cast<float>(mantissa), -24);
  else if (exponent == 31) magnitude = mantissa == 0 ? INFINITY : NAN;
  else magnitude = std::ldexp(static_cast<float>(mantissa | 0x400), exponent - 25);
  return (h & 0x8000) != 0 ? -magnitude : magnitude;
}

float E4m3ToFloat(uint8_t bits) {
  int exponent = (bits >> 3) & 0xF;
  int mantissa = bits & 0x7;
  if (exponent == 0xF && mantissa == 0x7) return NAN;
  float magnitude = exponent == 0 ? std::ldexp(static_cast<float>(mantissa), -9)
                                  : std::ldexp(static_cast<float>(mantissa | 0x8), exponent - 10);
  return (bits & 0x80) != 0 ? -magnitude : magnitude;
}

uint8_t RandomE4m3(FastRandom& random) {
  uint64_t bits = random.Next();
  uint8_t exponent = static_cast<uint8_t>(4 + (bits >> 8) % 4);  // 2^-3 … 2^0 (bias 7)
  uint8_t mantissa = static_cast<uint8_t>((bits >> 16) & 0x7);
  uint8_t sign = static_cast<uint8_t>((bits & 1) << 7);
  return static_cast<uint8_t>(sign | (exponent << 3) | mantissa);
}

const char* PrecisionKey(MatmulPrecision precision) {
  switch (precision) {
    case MatmulPrecision::BF16: return "bf16";
    case MatmulPrecision::FP16: return "fp16";
    case MatmulPrecision::TF32: return "tf32";
    case MatmulPrecision::FP8: return "fp8";
  }
  return "?";
}

ErrorModel ErrorModelFor(MatmulPrecision precision) {
  // output_eps is one unit in the last place of the output format (twice the rounding error).
  switch (precision) {
    case MatmulPrecision::BF16: return {std::ldexp(1.0, -8), 0, std::ldexp(1.0, -16)};
    case MatmulPrecision::FP16: return {std::ldexp(1.0, -11), 0, std::ldexp(1.0, -16)};
    case MatmulPrecision::TF32: return {std::ldexp(1.0, -23), std::ldexp(1.0, -10), std::ldexp(1.0, -16)};
    case MatmulPrecision::FP8: return {std::ldexp(1.0, -8), 0, std::ldexp(1.0, -11)};  // BF16 output
  }
  return {0, 0, 0};
}

double SampleErrorRatio(const float* row, const float* column, int k_size, double gpu_value, const ErrorModel& model) {
  double exact = 0, sum_abs = 0, sum_squares = 0;
  for (int k = 0; k < k_size; ++k) {
    double product = static_cast<double>(row[k]) * column[k];
    exact += product;
    sum_abs += std::fabs(product);
    sum_squares += product * product;
  }
  // Input rounding errors are independent, so they add like a random walk (6 sigma of it);
  // accumulation is bounded by the sum of magnitudes.
  double tolerance = model.output_eps * std::fabs(exact) + 6 * model.input_eps * std::sqrt(sum_squares) +
                     model.accumulate_eps * sum_abs + 1e-30;
  double error = std::fabs(gpu_value - exact);
  if (std::isnan(gpu_value)) error = INFINITY;
  return error / tolerance;
}

void CountSample(double ratio, SpotCheck* check) {
  ++check->samples;
  if (!(ratio < 1)) ++check->failures;
  if (ratio > check->worst_error_over_tolerance || std::isinf(ratio)) check->worst_error_over_tolerance = ratio;
}

SpotCheck CheckSamples(const std::vector<float>& a, const std::vector<float>& b, int m_size, int k_size,
                       const std::vector<std::pair<int, int>>& positions, const std::vector<double>& gpu_values,
                       const ErrorModel& model) {
  (void)m_size;
  SpotCheck check;
  for (size_t i = 0; i < positions.size() && i < gpu_values.size(); ++i) {
    auto [m, n] = positions[i];
    CountSample(SampleErrorRatio(&a[static_cast<size_t>(m) * k_size], &b[static_cast<size_t>(n) * k_size], k_size,
                                 gpu_values[i], model),
                &check);
  }
  return check;
}

}  // namespace labcheck::gpu

// The number formats the cuBLASLt sim reads and writes: BF16, FP16, FP8 E4M3 (OCP 8-bit floating
// point spec: bias 7, no infinities, S.1111.111 is NaN). Round to nearest even, as tensor cores do
// when they store results.
#pragma once
#include <cmath>
#include <cstdint>
#include <cstring>

namespace nvsim {

inline uint32_t FloatBits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

inline float BitsFloat(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

inline float Bf16ToFloat(uint16_t h) { return BitsFloat(static_cast<uint32_t>(h) << 16); }

inline uint16_t FloatToBf16(float f) {
  uint32_t u = FloatBits(f);
  if (std::isnan(f)) return 0x7FC0;
  u += 0x7FFF + ((u >> 16) & 1);
  return static_cast<uint16_t>(u >> 16);
}

inline float HalfToFloat(uint16_t h) {
  const int sign = (h >> 15) & 1, exponent = (h >> 10) & 0x1F, mantissa = h & 0x3FF;
  float v;
  if (exponent == 0) v = std::ldexp(static_cast<float>(mantissa), -24);
  else if (exponent == 31) v = mantissa ? NAN : INFINITY;
  else v = std::ldexp(static_cast<float>(mantissa | 0x400), exponent - 25);
  return sign ? -v : v;
}

inline uint16_t FloatToHalf(float f) {
  const uint16_t sign = std::signbit(f) ? 0x8000 : 0;
  float a = std::fabs(f);
  if (std::isnan(f)) return 0x7E00;
  if (a >= 65520.0f) return sign | 0x7C00;  // rounds to infinity
  if (a < std::ldexp(1.0f, -14)) {           // subnormal: a multiple of 2^-24
    const float q = std::nearbyint(a * std::ldexp(1.0f, 24));
    return sign | static_cast<uint16_t>(q);
  }
  int e;
  const float m = std::frexp(a, &e);  // a = m · 2^e, m in [0.5, 1)
  float q = std::nearbyint(m * 2048.0f);  // 11 significant bits
  if (q >= 2048.0f) {
    q /= 2;
    ++e;
  }
  const int exponent = e - 1 + 15;
  return sign | static_cast<uint16_t>(exponent << 10) | (static_cast<uint16_t>(q) & 0x3FF);
}

inline float E4m3ToFloat(uint8_t q) {
  const int sign = (q >> 7) & 1, exponent = (q >> 3) & 0xF, mantissa = q & 7;
  if (exponent == 15 && mantissa == 7) return NAN;
  const float v = exponent == 0 ? std::ldexp(static_cast<float>(mantissa), -9)
                                : std::ldexp(static_cast<float>(mantissa | 8), exponent - 10);
  return sign ? -v : v;
}

}  // namespace nvsim

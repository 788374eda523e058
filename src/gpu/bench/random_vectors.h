// The matmul inputs' random numbers four at a time, in GCC's portable vector types: 16 bytes, so
// each operation is one SSE2 instruction (the baseline every x46-64 CPU has; NEON on ARM), with
// no intrinsics and no wider vectors whose passing would depend on -mavx. 134 M values a
// precision at 8192²: a scalar xorshift64* draw and conversion per two values took about 13 cycles
// a value, these about 3 (docs/benchmarks.md).
//
// The generator is Marsaglia's xorshift128 ("Xorshift RNGs", J. Stat. Softw. 8(14), 2003) in each
// of four lanes: shifts and xors only, which SSE2 has for 32-bit lanes (it has no 32- or 64-bit
// vector multiply). Its weaknesses in statistical batteries do not matter for matrix entries; what
// matters is that values are spread, never zero, and the same on every machine.
#pragma once
#include <cstdint>
#include <cstring>

namespace labcheck::gpu {

using U32x4 = uint32_t __attribute__((vector_size(16)));
using I32x4 = int32_t __attribute__((vector_size(16)));
using F32x4 = float __attribute__((vector_size(16)));
using U16x4 = uint16_t __attribute__((vector_size(8)));

class RandomLanes {
 public:
  // Each lane's 128 bits of state from two SplitMix64 outputs of the seed and the lane's index.
  explicit RandomLanes(uint64_t seed) {
    uint32_t words[4][4];
    for (int lane = 0; lane < 4; ++lane) {
      const uint64_t low = SplitMix(seed + 2 * static_cast<uint64_t>(lane));
      const uint64_t high = SplitMix(seed + 2 * static_cast<uint64_t>(lane) + 1);
      words[0][lane] = static_cast<uint32_t>(low);
      words[1][lane] = static_cast<uint32_t>(low >> 32);
      words[2][lane] = static_cast<uint32_t>(high);
      words[3][lane] = static_cast<uint32_t>(high >> 32) | 1u;  // never an all-zero state
    }
    std::memcpy(&x_, words[0], sizeof x_);
    std::memcpy(&y_, words[1], sizeof y_);
    std::memcpy(&z_, words[2], sizeof z_);
    std::memcpy(&w_, words[3], sizeof w_);
  }

  U32x4 Next() {
    const U32x4 t = x_ ^ (x_ << 11);
    x_ = y_;
    y_ = z_;
    z_ = w_;
    w_ = w_ ^ (w_ >> 19) ^ t ^ (t >> 8);
    return w_;
  }

  static uint64_t SplitMix(uint64_t x) {
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
  }

 private:
  U32x4 x_, y_, z_, w_;
};

// The same bits seen as another vector type of the same size (no conversion).
template <typename To, typename From>
To SameBits(From from) {
  static_assert(sizeof(To) == sizeof(From));
  To to;
  std::memcpy(&to, &from, sizeof to);
  return to;
}

// Four values uniform in [-1, -1/16] ∪ [1/16, 1], as FastRandom::NonZeroUnit (host_numbers.h):
// the draw's top 24 bits give 1/16 + 15/16 · bits/2²⁴, its lowest bit the sign.
inline F32x4 NonZeroUnits(U32x4 bits) {
  constexpr float kScale = 0.9375f / static_cast<float>(1 << 24);
  // Below 2²⁴, so the signed conversion (one SSE2 instruction) is exact.
  const F32x4 magnitude = __builtin_convertvector(SameBits<I32x4>(bits >> 8), F32x4) * kScale + 0.0625f;
  return SameBits<F32x4>(SameBits<U32x4>(magnitude) | bits << 31);
}

// FloatToBf16 (host_numbers.h), four at a time: round to nearest even.
inline U16x4 ToBf16(F32x4 values) {
  const U32x4 bits = SameBits<U32x4>(values);
  return __builtin_convertvector((bits + 0x7FFF + (bits >> 16 & 1)) >> 16, U16x4);
}

// FloatToHalf (host_numbers.h), four at a time, for normal results only: NonZeroUnits' values
// (|v| in [1/16, 1]) are half exponents 11 to 15, so the scalar's underflow and overflow branches
// never apply. A rounding carry into the exponent is right, as in the scalar.
inline U16x4 ToHalf(F32x4 values) {
  const U32x4 bits = SameBits<U32x4>(values);
  const U32x4 mantissa = bits & 0x7FFFFF;
  U32x4 half = (bits >> 16 & 0x8000) | ((bits >> 23 & 0xFF) - (127 - 15)) << 10 | mantissa >> 13;
  const U32x4 rest = mantissa & 0x1FFF;
  // Comparisons give -1 where true: subtracting the mask adds one.
  half -= SameBits<U32x4>((rest > 0x1000) | ((rest == 0x1000) & ((half & 1) != 0)));
  return __builtin_convertvector(half, U16x4);
}

}  // namespace labcheck::gpu

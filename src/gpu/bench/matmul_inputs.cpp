#include "gpu/bench/matmul_inputs.h"

#include <algorithm>
#include <cstring>
#include <thread>

#include "gpu/bench/random_vectors.h"

namespace labcheck::gpu {

namespace {

// A chunk is the unit of work and of seeding: its seed depends only on the job seed, the matrix
// and the chunk's index, never on which thread made it.
constexpr size_t kChunkElements = size_t{1} << 20;

// Writes `count` values of the format `encode` makes (F32x4 → four encoded values) to `out`.
template <typename Encode>
void FillEncoded(uint8_t* out, size_t count, uint64_t seed, Encode encode) {
  constexpr size_t kWidth = sizeof(decltype(encode(F32x4{}))) / 4;
  RandomLanes lanes(seed);
  size_t i = 0;
  for (; i + 4 <= count; i += 4) {
    const auto encoded = encode(NonZeroUnits(lanes.Next()));
    std::memcpy(out + i * kWidth, &encoded, sizeof encoded);
  }
  if (i < count) {
    const auto encoded = encode(NonZeroUnits(lanes.Next()));
    std::memcpy(out + i * kWidth, &encoded, (count - i) * kWidth);
  }
}

void FillChunk(MatmulPrecision precision, uint8_t* out, size_t count, uint64_t seed) {
  switch (precision) {
    case MatmulPrecision::BF16: FillEncoded(out, count, seed, ToBf16); break;
    case MatmulPrecision::FP16: FillEncoded(out, count, seed, ToHalf); break;
    case MatmulPrecision::TF32: FillEncoded(out, count, seed, [](F32x4 v) { return v; }); break;
    case MatmulPrecision::FP8: {
      FastRandom random(RandomLanes::SplitMix(seed));
      for (size_t i = 0; i < count; ++i) out[i] = RandomE4m3(random);
      break;
    }
  }
}

}  // namespace

size_t InputBytes(MatmulPrecision precision) {
  switch (precision) {
    case MatmulPrecision::BF16:
    case MatmulPrecision::FP16: return 2;
    case MatmulPrecision::TF32: return 4;
    case MatmulPrecision::FP8: return 1;
  }
  return 4;
}

float DecodeInput(MatmulPrecision precision, const uint8_t* raw) {
  uint16_t h;
  float f;
  switch (precision) {
    case MatmulPrecision::BF16: std::memcpy(&h, raw, 2); return Bf16ToFloat(h);
    case MatmulPrecision::FP16: std::memcpy(&h, raw, 2); return HalfToFloat(h);
    case MatmulPrecision::TF32: std::memcpy(&f, raw, 4); return f;
    case MatmulPrecision::FP8: return E4m3ToFloat(*raw);
  }
  return 0;
}

MatmulInputs::MatmulInputs(MatmulPrecision precision, int n)
    : precision_(precision), n_(n), a_(AllocateArrayOnHugePages<uint8_t>(matrix_bytes())),
      b_(AllocateArrayOnHugePages<uint8_t>(matrix_bytes())) {}

std::shared_ptr<const MatmulInputs> MatmulInputs::Generate(MatmulPrecision precision, int n, uint64_t seed) {
  std::shared_ptr<MatmulInputs> inputs(new MatmulInputs(precision, n));
  const size_t elements = static_cast<size_t>(n) * n;
  const size_t chunks = (elements + kChunkElements - 1) / kChunkElements;
  const size_t width = InputBytes(precision);
  // Chunk c < chunks is of A, chunks ≤ c < 2·chunks of B.
  auto fill = [&](size_t c) {
    const bool of_b = c >= chunks;
    const size_t index = of_b ? c - chunks : c;
    const size_t first = index * kChunkElements;
    const size_t count = std::min(kChunkElements, elements - first);
    uint8_t* matrix = of_b ? inputs->b_.get() : inputs->a_.get();
    FillChunk(precision, matrix + first * width, count, seed ^ (of_b ? 0xB5297A4D3F84D5B5ull : 0) ^ (index << 1));
  };
  const size_t threads = std::clamp<size_t>(std::thread::hardware_concurrency(), 1, std::min<size_t>(16, 2 * chunks));
  std::vector<std::thread> workers;
  for (size_t t = 1; t < threads; ++t)
    workers.emplace_back([&, t] {
      for (size_t c = t; c < 2 * chunks; c += threads) fill(c);
    });
  for (size_t c = 0; c < 2 * chunks; c += threads) fill(c);
  for (std::thread& worker : workers) worker.join();
  return inputs;
}

std::vector<float> MatmulInputs::Column(const uint8_t* matrix, int index) const {
  const size_t width = InputBytes(precision_);
  const uint8_t* column = matrix + static_cast<size_t>(index) * n_ * width;
  std::vector<float> values(n_);
  for (int k = 0; k < n_; ++k) values[k] = DecodeInput(precision_, column + k * width);
  return values;
}

std::shared_ptr<const MatmulInputs> MatmulInputCache::Get(MatmulPrecision precision, int n) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto found = entries_.find({precision, n});
  if (found != entries_.end()) return found->second;
  for (auto it = entries_.begin(); it != entries_.end();)
    it = it->first.first != precision ? entries_.erase(it) : std::next(it);
  std::shared_ptr<const MatmulInputs> made = MatmulInputs::Generate(precision, n, seed_);
  entries_.emplace(std::pair{precision, n}, made);
  return made;
}

}  // namespace labcheck::gpu

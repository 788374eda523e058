#include "gpu/bench/matmul_inputs.h"

#include <algorithm>
#include <cstring>
#include <thread>

namespace labcheck::gpu {

namespace {

// A chunk is the unit of work and of seeding: its seed depends only on the job seed, the matrix
// and the chunk's index, never on which thread made it.
constexpr size_t kChunkElements = size_t{1} << 20;

uint64_t SplitMix(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// Independent streams drawn in turn. One xorshift stream is a chain of six dependent shift-xors
// per draw, so a single stream left the core waiting on it; with four in flight the loop runs at
// the core's throughput (bf16 8192², two threads: 0.6-0.8 s before, docs/benchmarks.md).
constexpr size_t kLanes = 4;

// Calls store(i, value) for i in [0, count): two values per draw, lanes taking turns.
template <typename Store>
void FillValues(size_t count, uint64_t seed, Store store) {
  static_assert(kLanes == 4, "one seed per lane below");
  FastRandom lanes[kLanes] = {FastRandom(SplitMix(seed)), FastRandom(SplitMix(seed + 1)),
                              FastRandom(SplitMix(seed + 2)), FastRandom(SplitMix(seed + 3))};
  constexpr size_t kStep = 2 * kLanes;
  size_t i = 0;
  for (; i + kStep <= count; i += kStep) {
    float values[kStep];
    for (size_t lane = 0; lane < kLanes; ++lane) lanes[lane].TwoNonZeroUnits(values[2 * lane], values[2 * lane + 1]);
    for (size_t k = 0; k < kStep; ++k) store(i + k, values[k]);
  }
  for (; i < count; ++i) store(i, lanes[0].NonZeroUnit());
}

void FillChunk(MatmulPrecision precision, uint8_t* out, size_t count, uint64_t seed) {
  switch (precision) {
    case MatmulPrecision::BF16:
      FillValues(count, seed, [out](size_t i, float v) {
        const uint16_t h = FloatToBf16(v);
        std::memcpy(out + 2 * i, &h, 2);
      });
      break;
    case MatmulPrecision::FP16:
      FillValues(count, seed, [out](size_t i, float v) {
        const uint16_t h = FloatToHalf(v);
        std::memcpy(out + 2 * i, &h, 2);
      });
      break;
    case MatmulPrecision::TF32:
      FillValues(count, seed, [out](size_t i, float v) { std::memcpy(out + 4 * i, &v, 4); });
      break;
    case MatmulPrecision::FP8: {
      FastRandom random(SplitMix(seed));
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

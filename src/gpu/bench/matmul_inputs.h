// The random inputs of the matmul benchmark, made once per precision and size and shared by every
// GPU of a job (and by the threads of an "all GPUs at once" run). At 8192² the two matrices hold
// 134 M values; when each GPU and precision made its own, that host-side work took most of the
// check's wall time on a 4-GPU machine, longer than the GEMMs it fed.
//
// Values are kept only in the GPU's format; the spot check decodes the few rows and columns it
// samples. Generation is split into fixed chunks, each with its own seed, and runs on every core:
// the matrices are the same whatever the number of threads.
#pragma once
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "gpu/bench/host_numbers.h"
#include "platform/huge_pages.h"

namespace labcheck::gpu {

size_t InputBytes(MatmulPrecision precision);  // bytes per input element in the GPU's format
float DecodeInput(MatmulPrecision precision, const uint8_t* raw);

class MatmulInputs {
 public:
  // Two n×n matrices of never-zero values (host_numbers.h), as the GPU reads them.
  static std::shared_ptr<const MatmulInputs> Generate(MatmulPrecision precision, int n, uint64_t seed);

  MatmulPrecision precision() const { return precision_; }
  int n() const { return n_; }
  size_t matrix_bytes() const { return static_cast<size_t>(n_) * n_ * InputBytes(precision_); }
  const uint8_t* a() const { return a_.get(); }
  const uint8_t* b() const { return b_.get(); }
  // The n values of column `index` (column-major, ld = n) as floats: for the TN product, column m
  // of A is row m of Aᵀ, column n of B is the column it meets.
  std::vector<float> ColumnOfA(int index) const { return Column(a_.get(), index); }
  std::vector<float> ColumnOfB(int index) const { return Column(b_.get(), index); }

 private:
  MatmulInputs(MatmulPrecision precision, int n);
  std::vector<float> Column(const uint8_t* matrix, int index) const;

  MatmulPrecision precision_;
  int n_;
  // On huge pages (platform/huge_pages.h), not initialised: every byte is written by Generate.
  HugePageArray<uint8_t> a_, b_;
};

// Hands out the inputs for (precision, size), generating each once. Thread-safe: the first caller
// generates, the others wait for it. Keeps one precision at a time, so a job that goes precision
// by precision holds two matrices, not eight.
class MatmulInputCache {
 public:
  explicit MatmulInputCache(uint64_t seed) : seed_(seed) {}
  std::shared_ptr<const MatmulInputs> Get(MatmulPrecision precision, int n);

 private:
  uint64_t seed_;
  std::mutex mutex_;
  std::map<std::pair<MatmulPrecision, int>, std::shared_ptr<const MatmulInputs>> entries_;
};

}  // namespace labcheck::gpu

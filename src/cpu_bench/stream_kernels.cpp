#include "cpu_bench/stream_kernels.h"

namespace labcheck::cpu_bench {

void StreamCopy(const double* __restrict a, double* __restrict c, size_t count) {
  for (size_t i = 0; i < count; ++i) c[i] = a[i];
}

void StreamTriad(const double* __restrict a, const double* __restrict b, double* __restrict c,
                 double scalar, size_t count) {
  for (size_t i = 0; i < count; ++i) c[i] = a[i] + scalar * b[i];
}

}  // namespace labcheck::cpu_bench

// The two STREAM kernels on one thread's slice of the arrays. Kept in their own file so that file
// can be compiled with -fno-tree-loop-distribute-patterns: otherwise GCC turns Copy into a memcpy
// call, and glibc's memcpy switches to non-temporal stores on large buffers, which is a different
// experiment from STREAM's plain loads and stores.
#pragma once
#include <cstddef>

namespace labcheck::cpu_bench {

// c[i] = a[i]: 8 bytes read + 8 bytes written per element.
void StreamCopy(const double* __restrict a, double* __restrict c, size_t count);
// c[i] = a[i] + scalar·b[i]: 16 bytes read + 8 bytes written per element.
void StreamTriad(const double* __restrict a, const double* __restrict b, double* __restrict c,
                 double scalar, size_t count);

}  // namespace labcheck::cpu_bench

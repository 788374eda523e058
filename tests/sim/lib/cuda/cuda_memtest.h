// libcuda.so.1 sim: lab_check's memory-test kernels (src/gpu/memtest/memtest_kernels_ptx.h), known
// by entry name and parameter list as the copy kernels are (cuda/cuda_module.cpp). Their writes go
// to the card's cells as patterns (core/pattern_memory.h), their checks read the cells through the
// profile's faults (core/memory_faults.h) and fill the error buffer as the PTX does. A launch whose
// grid does not cover the range it was given is refused (CUDA_ERROR_INVALID_VALUE, and a line on
// stderr): a real GPU would run it and leave memory untested without a word, which is exactly the
// bug a memory test must not have, so the test equipment says it loudly.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "cuda/cuda_internal.h"

namespace cusim {

// The result of launching `name` if it is one of the memory-test kernels, else nullopt.
std::optional<CUresult> RunMemtestKernel(const std::string& name, const std::vector<std::string>& param_types,
                                         nvsim::Stream& stream, void** params, unsigned blocks, unsigned threads);

}  // namespace cusim

// A card that heats up under sustained load (for the burn test's scenarios): after "heat/after_s"
// seconds of modelled matmul time (and memory-test kernel time, cuda/cuda_memtest.cpp, which is
// also when a memory cell with "after_s" starts failing: core/memory_faults.h) on a GPU, its
// matmul rate is multiplied by
// "heat/tflops_factor" and NVML reads its "…/hot" values (temperature, clocks, power, fan, clock
// event reasons) instead of "…/load". A GPU without "heat" in its profile never gets hot.
#pragma once

#include "core/profile.h"

namespace nvsim {

// Adds modelled work time on the GPU of profile index `device`.
void AddWork(int device, double seconds);
double WorkSeconds(int device);
bool Hot(const Gpu& g);
// 1 until the card is hot, then "heat/tflops_factor".
double HeatFactor(const Gpu& g);

}  // namespace nvsim

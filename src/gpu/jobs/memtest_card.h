// One card's memory test inside a child job, start to end: the ECC counters, lab_check's SM copy
// on that card (the speed the patterns are compared with), the memory allocated, the patterns
// until the limits or stop(), the ECC counters again. Every line goes to the log as it happens,
// tagged with the card's CUDA ordinal (memtest/memtest_log.h has the format). Used by the
// "gpu-memtest" job (memtest_job.cpp) and by the burn job's --memtest-log (burn_job.cpp).
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "core/status.h"
#include "gpu/burn/burn_timeline.h"
#include "gpu/health/health_facts.h"
#include "gpu/jobs/gpu_runtime.h"
#include "gpu/memtest/memtest_runner.h"

namespace labcheck::gpu {

struct MemtestCardSetup {
  GpuRuntime& runtime;
  health::NvmlTables tables;  // for the ECC counters; null tables: none read
  burn::TimelineWriter& out;
  memtest::MemoryRequest request;
  memtest::RunLimits limits;
  size_t sm_copy_mib = 256;   // 0: no SM copy figure (under the burn's matmul it would say nothing)
};

// `ready` is called once the memory is allocated, right before the patterns (the barrier of an
// all-cards run); `stop` is asked before each step.
Status TestCardMemory(const MemtestCardSetup& setup, int ordinal, const std::function<void()>& ready,
                      const memtest::StopFn& stop = {});

// The {"gpu", "name", "pci_bus_id"} line of each card, first in the log.
void WriteCardNames(GpuRuntime& runtime, burn::TimelineWriter& out, const std::vector<int>& ordinals);

// The memory and the limits a job's arguments ask for: --size, --fraction, --reserve-mib,
// --chunks; --seconds, --passes, --fade-s, --self-test 1, --seed.
memtest::MemoryRequest MemoryRequestOf(const JobArgs& args);
memtest::RunLimits RunLimitsOf(const JobArgs& args);

}  // namespace labcheck::gpu

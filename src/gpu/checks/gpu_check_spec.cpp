#include "gpu/checks/gpu_check_spec.h"

namespace labcheck::gpu {

Check ToCheck(const GpuCheckSpec& spec) {
  std::vector<std::string> reads;
  for (const GpuCheckSpec* read : spec.reads) reads.emplace_back(read->id);
  return {.id = spec.id,
          .section = spec.section,
          .title = spec.title,
          .quick = spec.quick,
          .distributed = spec.distributed,
          .budget_s = spec.budget_s,
          .run = spec.run,
          .reads = std::move(reads)};
}

}  // namespace labcheck::gpu

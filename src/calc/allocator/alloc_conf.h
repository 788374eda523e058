// The caching allocator's settings, written as PYTORCH_CUDA_ALLOC_CONF (or PYTORCH_ALLOC_CONF)
// writes them: "max_split_size_mb:128,roundup_power2_divisions:[256:1,512:2,>:4],
// expandable_segments:True". Parsed by the rules of PyTorch's own parser
// (c10/core/AllocatorConfig.cpp, AllocatorConfig::parseArgs at pytorch/pytorch 065861fb): the same
// tokens, the same limits, the same defaults, and the same refusals, with a message that says what
// to write instead.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "calc/allocator/allocator_constants.h"
#include "core/status.h"
#include "core/text.h"

namespace labcheck::calc::allocator {

struct AllocatorConfig {
  uint64_t max_split_size = UINT64_MAX;  // blocks this large or larger are never split
  // An oversize request may take a cached block at most this much larger (defaults to kLargeBuffer).
  uint64_t max_non_split_rounding_size = 0;
  // Divisions per power-of-two interval from 1 MiB (see AllocatorConstants); 0 = plain rounding.
  std::vector<uint64_t> roundup_power2_divisions;
  // Parsed and kept, but it acts only under torch.cuda.set_per_process_memory_fraction, which the
  // replay does not model (CUDACachingAllocator.cpp: garbage_collect_cached_blocks runs only when
  // set_fraction); so it never changes a replay.
  double garbage_collection_threshold = 0;
  bool expandable_segments = false;
  std::string text;  // as given, for the output

  // PyTorch's defaults.
  static AllocatorConfig Defaults(const AllocatorConstants& constants);
  // Divisions for a request of `size` bytes (AllocatorConfig::roundup_power2_divisions(size)).
  uint64_t DivisionsFor(uint64_t size) const;
};

// Parses `text`; an empty text gives the defaults. Errors name the option and the rule it broke,
// in `lang`.
Result<AllocatorConfig> ParseAllocConf(std::string_view text, const AllocatorConstants& constants, Lang lang = Lang::En);

}  // namespace labcheck::calc::allocator

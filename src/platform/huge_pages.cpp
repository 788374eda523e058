#include "platform/huge_pages.h"

#include <sys/mman.h>

#include <algorithm>

namespace labcheck {

void* AllocateOnHugePages(size_t bytes) {
  constexpr size_t kHugePage = size_t{2} << 20;
  const size_t rounded = std::max(kHugePage, (bytes + kHugePage - 1) / kHugePage * kHugePage);
  void* memory = std::aligned_alloc(kHugePage, rounded);
  if (memory != nullptr) (void)madvise(memory, rounded, MADV_HUGEPAGE);
  return memory;
}

}  // namespace labcheck

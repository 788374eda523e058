// Large host buffers on transparent huge pages.
//
// A 256 MiB buffer written once is 65536 page faults with 4 KiB pages; in a VM with a
// paravirtualised MMU each costs microseconds, so the faults, not the writing, were most of the
// time it took to fill the matmul inputs (issue 24). With 2 MiB pages it is 128 faults, and the
// STREAM benchmark times fewer TLB misses. The advice is only advice: a kernel without THP (or
// with it set to "never") gives ordinary pages and nothing else changes.
#pragma once
#include <cstddef>
#include <cstdlib>
#include <memory>
#include <new>

namespace labcheck {

struct FreeDeleter {
  void operator()(void* p) const { std::free(p); }
};
template <typename T>
using HugePageArray = std::unique_ptr<T[], FreeDeleter>;

// `bytes` rounded up to whole 2 MiB pages, 2 MiB-aligned, advised MADV_HUGEPAGE; nullptr when the
// allocation fails.
void* AllocateOnHugePages(size_t bytes);

// `count` elements, not initialised; throws std::bad_alloc when the allocation fails.
template <typename T>
HugePageArray<T> AllocateArrayOnHugePages(size_t count) {
  void* memory = AllocateOnHugePages(count * sizeof(T));
  if (memory == nullptr) throw std::bad_alloc();
  return HugePageArray<T>(static_cast<T*>(memory));
}

}  // namespace labcheck

#include "core/host_pages.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstring>
#include <new>

namespace nvsim {

void* MapHostPages(size_t bytes) {
  const size_t length = std::max<size_t>(bytes, 1);
  void* pages = mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (pages == MAP_FAILED) return nullptr;
  (void)madvise(pages, length, MADV_HUGEPAGE);  // advice only: EINVAL without THP changes nothing
  return pages;
}

void UnmapHostPages(void* pages, size_t bytes) {
  if (pages != nullptr) munmap(pages, std::max<size_t>(bytes, 1));
}

StagedBytes::StagedBytes(const void* from, size_t bytes) : size_(bytes) {
  data_ = static_cast<char*>(MapHostPages(bytes));
  if (data_ == nullptr) throw std::bad_alloc();
  std::memcpy(data_, from, bytes);
}

StagedBytes::~StagedBytes() { UnmapHostPages(data_, size_); }

}  // namespace nvsim

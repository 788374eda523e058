#include "core/host_pages.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <new>
#include <utility>

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

StagedBytes::StagedBytes(StagedBytes&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}

StagedBytes& StagedBytes::operator=(StagedBytes&& other) noexcept {
  if (this != &other) {
    UnmapHostPages(data_, size_);
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
  }
  return *this;
}

void StagedBytes::MoveTo(char* to) {
  static const size_t kPage = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  size_t moved = 0;
  if (reinterpret_cast<uintptr_t>(to) % kPage == 0) {
    const size_t whole = size_ / kPage * kPage;
    if (whole > 0 && mremap(data_, whole, whole, MREMAP_MAYMOVE | MREMAP_FIXED, to) != MAP_FAILED) moved = whole;
  }
  std::memcpy(to + moved, data_ + moved, size_ - moved);
  // The moved pages are no longer mapped here: unmap only what is left of the mapping.
  if (moved == 0) UnmapHostPages(data_, size_);
  else if (moved < size_) UnmapHostPages(data_ + moved, size_ - moved);
  data_ = nullptr;
  size_ = 0;
}

StagedBytes::~StagedBytes() { UnmapHostPages(data_, size_); }

}  // namespace nvsim

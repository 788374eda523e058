#include "core/host_pages.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstring>
#include <mutex>
#include <new>
#include <vector>

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

namespace {

constexpr size_t kKeepFrom = size_t{1} << 20;
constexpr size_t kKeepAtMost = size_t{1} << 30;

struct Kept {
  char* data;
  size_t capacity;
};

std::mutex& KeptLock() {
  static std::mutex mutex;
  return mutex;
}

std::vector<Kept>& KeptMappings() {  // oldest first
  static auto* kept = new std::vector<Kept>();  // never destroyed: staged copies may outlive statics
  return *kept;
}

// The smallest kept mapping that holds `bytes` and is at most twice as large, or none.
Kept TakeKept(size_t bytes) {
  std::lock_guard<std::mutex> lock(KeptLock());
  auto& kept = KeptMappings();
  auto best = kept.end();
  for (auto it = kept.begin(); it != kept.end(); ++it)
    if (it->capacity >= bytes && it->capacity / 2 <= bytes && (best == kept.end() || it->capacity < best->capacity)) best = it;
  if (best == kept.end()) return {nullptr, 0};
  const Kept taken = *best;
  kept.erase(best);
  return taken;
}

// Keeps `mapping`, unmapping the oldest kept ones while more than kKeepAtMost would be kept.
void Keep(Kept mapping) {
  std::vector<Kept> drop;
  {
    std::lock_guard<std::mutex> lock(KeptLock());
    auto& kept = KeptMappings();
    kept.push_back(mapping);
    size_t total = 0;
    for (const Kept& k : kept) total += k.capacity;
    while (total > kKeepAtMost) {
      total -= kept.front().capacity;
      drop.push_back(kept.front());
      kept.erase(kept.begin());
    }
  }
  for (const Kept& k : drop) UnmapHostPages(k.data, k.capacity);
}

}  // namespace

StagedBytes::StagedBytes(const void* from, size_t bytes) : size_(bytes), capacity_(bytes) {
  if (bytes >= kKeepFrom) {
    const Kept kept = TakeKept(bytes);
    data_ = kept.data;
    if (data_ != nullptr) capacity_ = kept.capacity;
  }
  if (data_ == nullptr) data_ = static_cast<char*>(MapHostPages(bytes));
  if (data_ == nullptr) throw std::bad_alloc();
  std::memcpy(data_, from, bytes);
}

StagedBytes::~StagedBytes() {
  if (capacity_ >= kKeepFrom && capacity_ <= kKeepAtMost) Keep({data_, capacity_});
  else UnmapHostPages(data_, capacity_);
}

}  // namespace nvsim

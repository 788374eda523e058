#include "gpu/bench/host_buffers.h"

#include <cstring>

namespace labcheck::gpu {

HostBufferPool::Lease::~Lease() {
  if (pool_ == nullptr) return;
  std::lock_guard<std::mutex> lock(pool_->mutex_);
  pool_->slots_[slot_]->leased = false;
}

void* HostBufferPool::Lease::get() const {
  std::lock_guard<std::mutex> lock(pool_->mutex_);
  const Slot& slot = *pool_->slots_[slot_];
  return slot.memory == HostMemory::Pinned ? slot.pinned.get() : static_cast<void*>(slot.pageable.get());
}

Result<HostBufferPool::Lease> HostBufferPool::Take(HostMemory memory, size_t bytes, const std::string& place) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (size_t i = 0; i < slots_.size(); ++i) {
      Slot& slot = *slots_[i];
      if (!slot.leased && slot.memory == memory && slot.bytes == bytes && slot.place == place) {
        slot.leased = true;
        return Lease(this, i);
      }
    }
  }
  // Made outside the lock: pinning is the slow part, and other threads may be making theirs.
  auto slot = std::make_unique<Slot>(Slot{memory, bytes, place, {}, nullptr, true});
  void* host = nullptr;
  if (memory == HostMemory::Pinned) {
    Result<PinnedBuffer> allocated = PinnedBuffer::Allocate(driver_, bytes);
    if (!allocated.ok()) return allocated.status();
    slot->pinned = std::move(allocated).value();
    host = slot->pinned.get();
  } else {
    slot->pageable.reset(new (std::nothrow) char[bytes]);
    if (slot->pageable == nullptr) return Status::Error("out of host memory for a " + std::to_string(bytes >> 20) + " MiB buffer");
    host = slot->pageable.get();
  }
  std::memset(host, 0x5A, bytes);  // touch every page before any timing
  std::lock_guard<std::mutex> lock(mutex_);
  slots_.push_back(std::move(slot));
  return Lease(this, slots_.size() - 1);
}

size_t HostBufferPool::allocations() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return slots_.size();
}

}  // namespace labcheck::gpu

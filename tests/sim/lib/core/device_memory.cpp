#include "core/device_memory.h"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstring>
#include <map>
#include <mutex>

namespace nvsim {

namespace {

std::recursive_mutex& Lock() {
  static std::recursive_mutex mutex;
  return mutex;
}

std::map<uintptr_t, AllocationRef>& Registry() {
  static auto* registry = new std::map<uintptr_t, AllocationRef>();  // never destroyed: used at exit
  return *registry;
}

char* Bytes(const Allocation& a) { return reinterpret_cast<char*>(a.base); }

void MaterialiseLazy(Allocation& a, size_t index) {
  Allocation::Lazy lazy = a.lazy[index];
  a.lazy.erase(a.lazy.begin() + static_cast<long>(index));
  lazy.producer->Produce(lazy.from, Bytes(a) + lazy.offset, lazy.bytes);
}

WriteObserver& Observer() {
  static WriteObserver observer = nullptr;
  return observer;
}

void PrepareWrite(Allocation& a, size_t offset, size_t bytes);

// What landed staged bytes leave in device memory: the bytes themselves, shared, never copied
// into the allocation's pages unless part of the range is overwritten later.
class StagedProducer : public Producer {
 public:
  explicit StagedProducer(std::shared_ptr<const StagedBytes> bytes) : bytes_(std::move(bytes)) {}
  void Produce(size_t offset, void* out, size_t bytes) const override {
    std::memcpy(out, bytes_->data() + offset, bytes);
  }
  bool ReadsFrom(const Allocation*) const override { return false; }

 private:
  std::shared_ptr<const StagedBytes> bytes_;
};

// Host copies below this size are written into device memory: sharing pays for big uploads
// only, and many small ranges kept as producers would make every later write scan them all.
constexpr size_t kShareFrom = size_t{1} << 20;

// Puts staged bytes at [offset, offset + size) of `a`: big ones stay shared, small ones are copied.
void PutStaged(Allocation& a, size_t offset, std::shared_ptr<const StagedBytes> staged) {
  PrepareWrite(a, offset, staged->size());
  if (staged->size() >= kShareFrom) a.lazy.push_back({offset, staged->size(), std::make_shared<StagedProducer>(std::move(staged))});
  else std::memcpy(Bytes(a) + offset, staged->data(), staged->size());
}

// Puts `a`'s staged bytes in place, oldest first.
void LandAll(Allocation& a) {
  std::vector<Allocation::InFlight> landing;
  landing.swap(a.in_flight);
  for (Allocation::InFlight& w : landing) PutStaged(a, w.offset, std::move(w.bytes));
}

// Staged copies still referred to by a copy in flight or by device memory, to be shared by the
// next copy of equal bytes. Not owning: the last range that refers to one frees it.
std::vector<std::weak_ptr<const StagedBytes>>& StagedCopies() {
  static auto* copies = new std::vector<std::weak_ptr<const StagedBytes>>();
  return *copies;
}

bool SameBytes(const StagedBytes& staged, const char* data, size_t bytes) {
  return staged.size() == bytes && std::memcmp(staged.data(), data, bytes) == 0;  // stops at the first difference
}

// The staged copy of `data`: one already made of equal bytes, or a new one.
std::shared_ptr<const StagedBytes> Stage(const char* data, size_t bytes) {
  if (bytes < kShareFrom) return std::make_shared<const StagedBytes>(data, bytes);
  auto& copies = StagedCopies();
  copies.erase(std::remove_if(copies.begin(), copies.end(), [](const auto& c) { return c.expired(); }), copies.end());
  for (const auto& copy : copies) {
    std::shared_ptr<const StagedBytes> staged = copy.lock();
    if (staged && SameBytes(*staged, data, bytes)) return staged;
  }
  auto staged = std::make_shared<const StagedBytes>(data, bytes);
  copies.push_back(staged);
  return staged;
}

// Before [offset, offset + bytes) of `a` is overwritten: what was recorded there goes, and
// whatever elsewhere still reads `a` is computed now. Staged bytes in flight to the range land
// first, so that this later write is the one that stays.
void PrepareWrite(Allocation& a, size_t offset, size_t bytes) {
  if (WriteObserver observer = Observer(); observer != nullptr) observer(a, offset, bytes);
  for (const Allocation::InFlight& w : a.in_flight) {
    if (w.offset < offset + bytes && offset < w.offset + w.bytes->size()) {
      LandAll(a);
      break;
    }
  }
  for (auto& [base, other] : Registry()) {
    for (size_t i = 0; i < other->lazy.size();) {
      if (other.get() != &a && other->lazy[i].producer->ReadsFrom(&a)) MaterialiseLazy(*other, i);
      else ++i;
    }
  }
  // A range the write covers goes; one it covers in part keeps its parts outside the write, each
  // still computing its own bytes (a word written into the middle of a 30 GiB pattern costs the
  // word, not the pattern).
  std::vector<Allocation::Lazy> kept;
  for (size_t i = 0; i < a.lazy.size();) {
    const Allocation::Lazy l = a.lazy[i];
    const bool overlaps = l.offset < offset + bytes && offset < l.offset + l.bytes;
    if (!overlaps) {
      ++i;
      continue;
    }
    a.lazy.erase(a.lazy.begin() + static_cast<long>(i));
    if (l.offset < offset) kept.push_back({l.offset, offset - l.offset, l.producer, l.from});
    if (l.offset + l.bytes > offset + bytes) {
      const size_t cut = offset + bytes - l.offset;
      kept.push_back({offset + bytes, l.bytes - cut, l.producer, l.from + cut});
    }
  }
  a.lazy.insert(a.lazy.end(), kept.begin(), kept.end());
}

class CopyProducer : public Producer {
 public:
  explicit CopyProducer(DevicePlace source) : source_(std::move(source)) {}
  void Produce(size_t offset, void* out, size_t bytes) const override {
    ReadBytes({source_.allocation, source_.offset + offset}, out, bytes);
  }
  bool ReadsFrom(const Allocation* a) const override { return source_.allocation.get() == a; }

 private:
  DevicePlace source_;
};

class FillProducer : public Producer {
 public:
  explicit FillProducer(uint32_t value) : value_(value) {}
  // Byte k of the value at every offset ≡ k (mod 4), as the device's little-endian words; whole
  // words at a time once aligned (a byte at a time took 0.3 s per 256 MiB).
  void Produce(size_t offset, void* out, size_t bytes) const override {
    auto* p = static_cast<unsigned char*>(out);
    size_t i = 0;
    for (; i < bytes && (offset + i) % 4 != 0; ++i) p[i] = Byte(offset + i);
    static_assert(std::endian::native == std::endian::little, "whole words are the value's bytes in memory order");
    for (; i + 4 <= bytes; i += 4) std::memcpy(p + i, &value_, 4);
    for (; i < bytes; ++i) p[i] = Byte(offset + i);
  }
  bool ReadsFrom(const Allocation*) const override { return false; }

 private:
  unsigned char Byte(size_t offset) const { return static_cast<unsigned char>(value_ >> (8 * (offset % 4))); }
  uint32_t value_;
};

// Pinned async copies not yet landed (QueueDmaToDevice). No two conflict (Queue lands the queue
// before adding one that would), so their order only matters against what comes after them.
struct QueuedDma {
  bool to_device;
  DevicePlace device;
  char* host;
  size_t bytes;
};

std::vector<QueuedDma>& DmaQueue() {
  static auto* queue = new std::vector<QueuedDma>();
  return *queue;
}

std::atomic<bool>& DmaQueued() {  // read without the lock: streams are polled, and mostly nothing is queued
  static std::atomic<bool> queued{false};
  return queued;
}

bool Overlap(uintptr_t a, size_t a_bytes, uintptr_t b, size_t b_bytes) { return a < b + b_bytes && b < a + a_bytes; }

bool SameShape(const QueuedDma& a, const QueuedDma& b) {
  return a.to_device == b.to_device && a.device.allocation == b.device.allocation &&
         a.device.offset == b.device.offset && a.host == b.host && a.bytes == b.bytes;
}

// Whether the two copies' order matters: one writes bytes the other reads or writes.
bool Conflict(const QueuedDma& a, const QueuedDma& b) {
  const bool device = (a.to_device || b.to_device) && a.device.allocation == b.device.allocation &&
                      Overlap(a.device.offset, a.bytes, b.device.offset, b.bytes);
  const bool host = (!a.to_device || !b.to_device) &&
                    Overlap(reinterpret_cast<uintptr_t>(a.host), a.bytes, reinterpret_cast<uintptr_t>(b.host), b.bytes);
  return device || host;
}

void ReadLocked(const DevicePlace& from, void* out, size_t bytes);

// Lock() held. The queue is taken first, so the reads and writes landing it find it empty.
void LandQueuedLocked() {
  if (!DmaQueued().load()) return;
  std::vector<QueuedDma> landing;
  landing.swap(DmaQueue());
  DmaQueued().store(false);
  for (const QueuedDma& d : landing) {
    if (d.to_device) PutStaged(*d.device.allocation, d.device.offset, Stage(d.host, d.bytes));
    else ReadLocked(d.device, d.host, d.bytes);
  }
}

void Queue(const QueuedDma& copy) {
  std::lock_guard<std::recursive_mutex> lock(Lock());
  for (const QueuedDma& queued : DmaQueue())
    if (SameShape(queued, copy)) return;  // the later copy moves the same bytes to the same place
  for (const QueuedDma& queued : DmaQueue()) {
    if (Conflict(queued, copy)) {
      LandQueuedLocked();
      break;
    }
  }
  DmaQueue().push_back(copy);
  DmaQueued().store(true);
}

void ReadLocked(const DevicePlace& from, void* out, size_t bytes) {
  const Allocation& a = *from.allocation;
  // Recorded ranges never overlap (PrepareWrite), so one that covers the read gives every byte.
  bool covered = false;
  for (const Allocation::Lazy& l : a.lazy) covered = covered || (l.offset <= from.offset && from.offset + bytes <= l.offset + l.bytes);
  if (!covered) std::memcpy(out, Bytes(a) + from.offset, bytes);
  for (const Allocation::Lazy& l : a.lazy) {
    const size_t begin = std::max(l.offset, from.offset), end = std::min(l.offset + l.bytes, from.offset + bytes);
    if (begin < end) l.producer->Produce(l.from + (begin - l.offset), static_cast<char*>(out) + (begin - from.offset), end - begin);
  }
}

}  // namespace

Allocation::~Allocation() {
  if (base != 0) UnmapHostPages(reinterpret_cast<void*>(base), size);
}

AllocationRef MapMemory(int device, size_t bytes) {
  void* p = MapHostPages(bytes);
  if (p == nullptr) return nullptr;
  auto a = std::make_shared<Allocation>();
  a->base = reinterpret_cast<uintptr_t>(p);
  a->size = bytes;
  a->device = device;
  return a;
}

void Register(const AllocationRef& allocation) {
  std::lock_guard<std::recursive_mutex> lock(Lock());
  Registry()[allocation->base] = allocation;
}

bool Unregister(uintptr_t base) {
  std::lock_guard<std::recursive_mutex> lock(Lock());
  return Registry().erase(base) == 1;
}

DevicePlace Find(uintptr_t address, size_t bytes) {
  std::lock_guard<std::recursive_mutex> lock(Lock());
  auto& registry = Registry();
  auto it = registry.upper_bound(address);
  if (it == registry.begin()) return {};
  --it;
  const AllocationRef& a = it->second;
  const size_t offset = address - a->base;
  if (offset > a->size || bytes > a->size - offset) return {};
  return {a, offset};
}

void ReadBytes(const DevicePlace& from, void* out, size_t bytes) {
  std::lock_guard<std::recursive_mutex> lock(Lock());
  LandQueuedLocked();
  ReadLocked(from, out, bytes);
}

void WriteBytes(const DevicePlace& to, const void* data, size_t bytes) {
  std::lock_guard<std::recursive_mutex> lock(Lock());
  LandQueuedLocked();
  PrepareWrite(*to.allocation, to.offset, bytes);
  std::memmove(Bytes(*to.allocation) + to.offset, data, bytes);
}

void WriteFromHost(const DevicePlace& to, const void* data, size_t bytes) {
  std::lock_guard<std::recursive_mutex> lock(Lock());
  LandQueuedLocked();
  PutStaged(*to.allocation, to.offset, Stage(static_cast<const char*>(data), bytes));
}

void WriteLazy(const DevicePlace& to, size_t bytes, std::shared_ptr<const Producer> producer) {
  std::lock_guard<std::recursive_mutex> lock(Lock());
  LandQueuedLocked();
  if (producer->ReadsFrom(to.allocation.get())) {  // in-place work: compute it now
    std::vector<char> staged(bytes);
    producer->Produce(0, staged.data(), bytes);
    WriteBytes(to, staged.data(), bytes);
    return;
  }
  PrepareWrite(*to.allocation, to.offset, bytes);
  to.allocation->lazy.push_back({to.offset, bytes, std::move(producer)});
}

void WriteAfterLegacyDma(const DevicePlace& to, const void* data, size_t bytes, int legacy_device) {
  std::lock_guard<std::recursive_mutex> lock(Lock());
  LandQueuedLocked();
  to.allocation->in_flight.push_back({to.offset, Stage(static_cast<const char*>(data), bytes), legacy_device});
}

void LandPendingWrites(int device) {
  std::lock_guard<std::recursive_mutex> lock(Lock());
  LandQueuedLocked();
  for (auto& [base, a] : Registry()) {
    bool mine = false;
    for (const Allocation::InFlight& w : a->in_flight) mine = mine || w.legacy_device == device;
    // One legacy stream per device in this sim, and every copy of an allocation comes from the
    // context of its device, so landing them all keeps their order.
    if (mine) LandAll(*a);
  }
}

void QueueDmaToDevice(const DevicePlace& to, const void* host, size_t bytes) {
  Queue({true, to, static_cast<char*>(const_cast<void*>(host)), bytes});
}

void QueueDmaToHost(const DevicePlace& from, void* host, size_t bytes) { Queue({false, from, static_cast<char*>(host), bytes}); }

void LandQueuedDma() {
  if (!DmaQueued().load()) return;
  std::lock_guard<std::recursive_mutex> lock(Lock());
  LandQueuedLocked();
}

std::shared_ptr<const Producer> CopyOf(const DevicePlace& source) { return std::make_shared<CopyProducer>(source); }

std::shared_ptr<const Producer> Fill32(uint32_t value) { return std::make_shared<FillProducer>(value); }

void SetWriteObserver(WriteObserver observer) {
  std::lock_guard<std::recursive_mutex> lock(Lock());
  Observer() = observer;
}

std::recursive_mutex& MemoryLock() { return Lock(); }

}  // namespace nvsim

#include "core/pattern_memory.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <numeric>
#include <vector>

#include "core/heat.h"
#include "core/memory_faults.h"
#include "core/physical_memory.h"
#include "core/timeline.h"

namespace nvsim {

namespace {

// What a run of cells holds since its last write: a pattern written through `writer` (the device
// address of the run's first cell), or the bytes at the writer's addresses.
struct CellRun {
  uint64_t end = 0;
  bool bytes = false;
  Pattern pattern;
  uint64_t writer = 0;
  RealClock::time_point written{};
};

using CellMap = std::map<uint64_t, CellRun>;  // first cell → run

std::map<int, CellMap>& CellMaps() {
  static auto* cells = new std::map<int, CellMap>();
  return *cells;
}

uint32_t MixHalf(uint32_t x) {
  x ^= x >> 16;
  x *= 0x85EBCA6Bu;
  x ^= x >> 13;
  x *= 0xC2B2AE35u;
  x ^= x >> 16;
  return x;
}

// src/gpu/memtest/memtest_kernels_ptx.h's MixWord, as its PTX computes it.
uint64_t PatternMixWord(uint64_t i, uint32_t seed) {
  const uint32_t x = static_cast<uint32_t>(i) ^ (static_cast<uint32_t>(i >> 32) * 0x9E3779B9u) ^ seed;
  return uint64_t{MixHalf(x)} | (uint64_t{MixHalf(x ^ 0x5BD1E995u)} << 32);
}

void PutCells(CellMap& map, uint64_t begin, uint64_t end, CellRun run) {
  auto it = map.lower_bound(begin);
  if (it != map.begin() && std::prev(it)->second.end > begin) --it;
  std::vector<std::pair<uint64_t, CellRun>> kept;
  while (it != map.end() && it->first < end) {
    const uint64_t first = it->first;
    const CellRun old = it->second;
    it = map.erase(it);
    if (first < begin) {
      CellRun left = old;
      left.end = begin;
      kept.push_back({first, left});
    }
    if (old.end > end) {
      CellRun right = old;
      right.writer = old.writer + (end - first);
      kept.push_back({end, right});
    }
  }
  for (auto& [first, r] : kept) map[first] = r;
  run.end = end;
  map[begin] = run;
}

// Any write into a tracked card that is not a memory-test pattern (core/device_memory.h calls it
// before every write): its cells now hold the bytes written through these addresses.
void ObserveWrite(const Allocation& a, size_t offset, size_t bytes) {
  if (a.device < 0) return;
  auto it = CellMaps().find(a.device);
  if (it == CellMaps().end()) return;
  for (const CellPiece& piece : CellsOf(a, offset, bytes)) {
    CellRun run;
    run.bytes = true;
    run.writer = piece.address;
    run.written = RealClock::now();
    PutCells(it->second, piece.begin, piece.end, run);
  }
}

class PatternProducer : public Producer {
 public:
  PatternProducer(Pattern pattern, uint64_t start) : pattern_(pattern), start_(start) {}
  void Produce(size_t offset, void* out, size_t bytes) const override {
    auto* to = static_cast<unsigned char*>(out);
    for (size_t done = 0; done < bytes;) {
      const uint64_t at = start_ + offset + done, word_at = at / 8 * 8;
      const uint64_t word = pattern_.Word(word_at);
      const size_t skip = at - word_at, n = std::min<size_t>(8 - skip, bytes - done);
      std::memcpy(to + done, reinterpret_cast<const unsigned char*>(&word) + skip, n);
      done += n;
    }
  }
  bool ReadsFrom(const Allocation*) const override { return false; }

 private:
  Pattern pattern_;
  uint64_t start_;
};

// Counts what differs and tells the visitor about the first ones.
struct Tally {
  CheckOutcome& outcome;
  const MismatchVisitor& visit;
  bool detailed = true;
  void One(uint64_t address, uint64_t expected, uint64_t read) {
    ++outcome.count;
    if (detailed) detailed = visit(address, expected, read);
  }
};

uint64_t Period(uint32_t kind) { return kind == 0 ? 1 : kind == 2 ? 16 : kind == 3 ? 10 : 0; }

uint64_t Position(const Pattern& p, uint64_t at) { return p.logical + (at - p.address); }

bool Same(const Pattern& w, uint64_t w0, const Pattern& e, uint64_t r0) {
  if (w.kind == 0 && e.kind == 0) return (w.param ^ w.xor_mask) == (e.param ^ e.xor_mask);
  if (w.kind != e.kind || w.param != e.param || w.xor_mask != e.xor_mask) return false;
  if (w.kind == 1) return w0 == r0;
  return Position(w, w0) == Position(e, r0);
}

// `n` words the cells hold as `w` (written through w0…) read through r0… against `e`.
void ComparePatterns(const Pattern& w, uint64_t w0, const Pattern& e, uint64_t r0, uint64_t n, Tally& tally) {
  if (Same(w, w0, e, r0)) return;
  const uint64_t pw = Period(w.kind), pe = Period(e.kind);
  if (pw > 0 && pe > 0) {
    // Periodic: the words that differ are whole classes of the position; count them exactly.
    const uint64_t period = std::lcm(pw, pe);
    std::vector<uint64_t> classes;
    for (uint64_t j = 0; j < period; ++j)
      if (w.Word(w0 + 8 * j) != e.Word(r0 + 8 * j)) classes.push_back(j);
    if (classes.empty()) return;  // another place, the same words (an alias a multiple of the period away)
    uint64_t total = 0;
    for (uint64_t j : classes) total += j < n ? (n - j + period - 1) / period : 0;
    uint64_t told = 0;
    for (uint64_t base = 0; base < n && tally.detailed; base += period)
      for (uint64_t j : classes) {
        if (base + j >= n || !tally.detailed) break;
        tally.One(r0 + 8 * (base + j), e.Word(r0 + 8 * (base + j)), w.Word(w0 + 8 * (base + j)));
        ++told;
      }
    tally.outcome.count += total - told;
    return;
  }
  uint64_t i = 0;
  for (; i < n && tally.detailed; ++i) {
    const uint64_t held = w.Word(w0 + 8 * i), want = e.Word(r0 + 8 * i);
    if (held == want) continue;  // an address or hash pattern equal by chance: not counted
    tally.One(r0 + 8 * i, want, held);
  }
  tally.outcome.count += n - i;  // the rest counted as all, not looked at
}

// Words whose cells hold plain bytes, at `writer` (the allocation that wrote them; a freed one
// reads as zeros), read through r0….
void CompareBytes(uint64_t writer, const Pattern& e, uint64_t r0, uint64_t n, Tally& tally) {
  const DevicePlace place = Find(writer, n * 8);
  std::vector<uint64_t> words(std::min<uint64_t>(n, 1 << 17));
  for (uint64_t i = 0; i < n;) {
    const uint64_t m = std::min<uint64_t>(words.size(), n - i);
    if (place.allocation) ReadBytes({place.allocation, place.offset + 8 * i}, words.data(), m * 8);
    else std::fill(words.begin(), words.end(), 0);
    for (uint64_t k = 0; k < m; ++k) {
      const uint64_t want = e.Word(r0 + 8 * (i + k));
      if (words[k] != want) tally.One(r0 + 8 * (i + k), want, words[k]);
    }
    i += m;
  }
}

void CompareCells(int device, const CellPiece& piece, const Pattern& e, Tally& tally) {
  CellMap& map = CellMaps()[device];
  auto it = map.upper_bound(piece.begin);
  if (it != map.begin() && std::prev(it)->second.end > piece.begin) --it;
  uint64_t cursor = piece.begin;
  while (cursor < piece.end) {
    const uint64_t next = it == map.end() ? piece.end : std::min(piece.end, std::max(cursor, it->first));
    if (next > cursor) {  // never written while tracked: whatever the reader's own bytes are
      CompareBytes(piece.address + (cursor - piece.begin), e, piece.address + (cursor - piece.begin), (next - cursor) / 8, tally);
      cursor = next;
      continue;
    }
    const CellRun& run = it->second;
    const uint64_t end = std::min(run.end, piece.end), w0 = run.writer + (cursor - it->first);
    const uint64_t r0 = piece.address + (cursor - piece.begin);
    if (run.bytes) CompareBytes(w0, e, r0, (end - cursor) / 8, tally);
    else ComparePatterns(run.pattern, w0, e, r0, (end - cursor) / 8, tally);
    cursor = end;
    ++it;
  }
}

// The word a cell holds, the address that wrote it, and when; false for a cell never written.
bool Held(int device, uint64_t cell, uint64_t* word, uint64_t* writer, RealClock::time_point* written) {
  CellMap& map = CellMaps()[device];
  auto it = map.upper_bound(cell);
  if (it == map.begin()) return false;
  --it;
  if (it->second.end <= cell) return false;
  *writer = it->second.writer + (cell - it->first);
  *written = it->second.written;
  if (!it->second.bytes) {
    *word = it->second.pattern.Word(*writer);
    return true;
  }
  const DevicePlace place = Find(*writer, 8);
  *word = 0;
  if (place.allocation) ReadBytes(place, word, 8);
  return true;
}

// The cells of `fault` inside the piece, each passed to `at`.
template <typename Fn>
void EachCell(const FaultCell& fault, const CellPiece& piece, Fn at) {
  const uint64_t offset = fault.offset / 8 * 8;
  if (fault.stride == 0) {
    if (offset >= piece.begin && offset < piece.end) at(offset);
    return;
  }
  const uint64_t stride = std::max<uint64_t>(8, fault.stride / 8 * 8);
  uint64_t cell = offset >= piece.begin ? offset : offset + (piece.begin - offset + stride - 1) / stride * stride;
  for (; cell < piece.end; cell += stride) at(cell);
}

void ApplyFaults(int device, const CellPiece& piece, const Pattern& e, Tally& tally) {
  const std::vector<FaultCell>& faults = FaultCells(device);
  if (faults.empty()) return;
  const double work = WorkSeconds(device);
  const auto now = RealClock::now();
  for (const FaultCell& fault : faults) {
    if (fault.after_s && work < *fault.after_s) continue;
    EachCell(fault, piece, [&](uint64_t cell) {
      uint64_t held = 0, writer = 0;
      RealClock::time_point written;
      if (!Held(device, cell, &held, &writer, &written)) return;
      if (fault.ecc == FaultCell::Ecc::Corrected) ++tally.outcome.ecc_corrected;
      if (fault.ecc == FaultCell::Ecc::Uncorrected) tally.outcome.ecc_uncorrected = true;
      if (fault.ecc != FaultCell::Ecc::None) return;
      if (fault.fade_s && std::chrono::duration<double>(now - written).count() < *fault.fade_s) return;
      if (fault.when_word && held != *fault.when_word) return;
      if (fault.when_own_address && held != writer) return;
      const uint64_t address = piece.address + (cell - piece.begin), want = e.Word(address);
      const uint64_t bit = uint64_t{1} << (fault.bit & 63);
      const uint64_t read = fault.stuck ? held | bit : held & ~bit;
      if (held == want && read != want) tally.One(address, want, read);  // a word already wrong counts once
    });
  }
}

}  // namespace

uint64_t Pattern::Word(uint64_t at) const {
  const uint64_t position = logical + (at - address);
  uint64_t word = 0;
  switch (kind) {
    case 0: word = param; break;
    case 1: word = at; break;
    case 2: {
      const uint64_t j = position / 4;
      word = uint64_t{1u << ((param + j) & 31)} | (uint64_t{1u << ((param + j + 1) & 31)} << 32);
      break;
    }
    case 3: {
      const uint64_t j = position / 4, offset = param >> 32;
      const auto p1 = static_cast<uint32_t>(param);
      word = uint64_t{j % 20 == offset ? p1 : ~p1} | (uint64_t{(j + 1) % 20 == offset ? p1 : ~p1} << 32);
      break;
    }
    default: word = PatternMixWord(position / 8, static_cast<uint32_t>(param)); break;
  }
  return word ^ xor_mask;
}

void TrackCells(int device) {
  std::lock_guard<std::recursive_mutex> lock(MemoryLock());
  static bool observing = false;
  if (!observing) {
    SetWriteObserver(ObserveWrite);
    observing = true;
  }
  CellMaps()[device];
}

void WritePattern(const DevicePlace& place, uint64_t bytes, const Pattern& pattern) {
  std::lock_guard<std::recursive_mutex> lock(MemoryLock());
  TrackCells(place.allocation->device);
  WriteLazy(place, bytes, std::make_shared<PatternProducer>(pattern, place.allocation->base + place.offset));
  CellMap& map = CellMaps()[place.allocation->device];
  for (const CellPiece& piece : CellsOf(*place.allocation, place.offset, bytes)) {
    CellRun run;
    run.pattern = pattern;
    run.writer = piece.address;
    run.written = RealClock::now();
    PutCells(map, piece.begin, piece.end, run);
  }
}

CheckOutcome CheckPattern(const DevicePlace& place, uint64_t bytes, const Pattern& expected, const MismatchVisitor& visit) {
  std::lock_guard<std::recursive_mutex> lock(MemoryLock());
  TrackCells(place.allocation->device);
  CheckOutcome outcome;
  Tally tally{outcome, visit};
  for (const CellPiece& piece : CellsOf(*place.allocation, place.offset, bytes)) {
    CompareCells(place.allocation->device, piece, expected, tally);
    ApplyFaults(place.allocation->device, piece, expected, tally);
  }
  return outcome;
}

}  // namespace nvsim

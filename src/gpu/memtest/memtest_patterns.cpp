#include "gpu/memtest/memtest_patterns.h"

#include <algorithm>

namespace labcheck::gpu::memtest {

namespace {

constexpr uint64_t kAllOnes = ~uint64_t{0};

const PatternInfo kPatternInfos[] = {
    {PatternId::WalkingOnes, "walking_ones", T("бегущая единица по адресу", "walking ones (address lines)"),
     Text("cuda_memtest Test0"),
     T("линия адреса: запись по одному адресу попадает в другой (ячейки с чужими адресами, поддельный объём)",
       "an address line: a write to one address lands at another (aliased cells, fake capacity)")},
    {PatternId::OwnAddress, "own_address", T("собственный адрес", "own address"), Text("cuda_memtest Test1"),
     T("адреса, которые ведут в одни и те же ячейки (поддельный объём), и залипшие биты",
       "addresses that reach the same cells (fake capacity), and stuck bits")},
    {PatternId::OnesZeros, "ones_zeros", T("инверсии: нули и единицы", "moving inversions, ones and zeros"),
     Text("cuda_memtest Test2"), T("биты, залипшие в 0 или 1", "bits stuck at 0 or 1")},
    {PatternId::EightBit, "eight_bit", T("инверсии: 8-битный шаблон", "moving inversions, 8-bit pattern"),
     Text("cuda_memtest Test3"), T("связь соседних битов в байте", "coupling between neighbouring bits of a byte")},
    {PatternId::RandomPattern, "random_pattern", T("инверсии: случайное слово", "moving inversions, random word"),
     Text("cuda_memtest Test4"), T("ошибки, зависящие от данных", "data-dependent errors")},
    {PatternId::WalkingBit32, "walking_bit_32", T("инверсии: 32-битный бегущий бит", "moving inversions, 32-bit walking bit"),
     Text("cuda_memtest Test6"),
     T("ошибки, зависящие от данных и соседних битов линии", "errors that depend on the data and the neighbouring bits of a line")},
    {PatternId::Modulo20, "modulo_20", T("модуль 20", "modulo 20"), Text("cuda_memtest Test8"),
     T("ячейки, которые портит запись в соседние (не видно при последовательном обходе)",
       "cells disturbed by writes to others (invisible to a sequential sweep)")},
    {PatternId::RandomSequence, "random_sequence", T("случайная последовательность", "random sequence"),
     T("cuda_memtest Test7 (у нас — слово по его месту)", "cuda_memtest Test7 (ours: the word from its position)"),
     T("ошибки, зависящие от данных, и ячейки с чужими адресами", "data-dependent errors and aliased cells")},
    {PatternId::BitFade, "bit_fade", T("утечка заряда (bit fade)", "bit fade"), Text("cuda_memtest Test9"),
     T("ячейки, которые теряют заряд без обращения к ним", "cells that lose their charge when left alone")},
};

Step PatternFill(PatternKind kind, uint64_t param, uint64_t xor_mask) { return {Step::Op::Fill, kind, param, xor_mask}; }

// cuda_memtest's move_inv_test: write P; check P and write ~P; check ~P.
void MovingInversion(std::vector<Step>& steps, PatternKind kind, uint64_t param, uint64_t xor_mask) {
  steps.push_back(PatternFill(kind, param, xor_mask));
  steps.push_back({Step::Op::CheckInvert, kind, param, xor_mask});
  steps.push_back({Step::Op::Check, kind, param, xor_mask ^ kAllOnes});
}

uint64_t TwiceWord(uint32_t word) { return uint64_t{word} | (uint64_t{word} << 32); }

// The highest power of two below `total` (the last walked offset), 0 when total ≤ 8.
uint64_t HighestWalked(uint64_t total) {
  uint64_t h = 0;
  for (uint64_t o = 8; o < total && o != 0; o <<= 1) h = o;
  return h;
}

void WalkSteps(std::vector<Step>& steps, const PatternPlan& plan) {
  steps.push_back({Step::Op::WalkWrite});
  // Between h/2 and h no offset is walked: 4× L2 of writes there push the walked words out of L2.
  const uint64_t h = HighestWalked(plan.tested_bytes);
  const uint64_t evict = 4 * std::max<uint64_t>(plan.l2_bytes, 1 << 20);
  const uint64_t begin = (h / 2 + 16 + 15) / 16 * 16;
  if (h >= 64 && begin + evict <= h) {
    Step step{Step::Op::Evict};
    step.range_begin = begin;
    step.range_end = begin + evict;
    steps.push_back(step);
  }
  steps.push_back({Step::Op::WalkCheck});
}

}  // namespace

const PatternInfo& Info(PatternId id) {
  for (const PatternInfo& info : kPatternInfos)
    if (info.id == id) return info;
  return kPatternInfos[0];
}

const PatternInfo* InfoByKey(const std::string& key) {
  for (const PatternInfo& info : kPatternInfos)
    if (key == info.key) return &info;
  return nullptr;
}

double Step::Traversals() const {
  switch (op) {
    case Op::Fill:
    case Op::Check: return 1;
    case Op::CheckInvert: return 2;
    default: return 0;
  }
}

uint32_t RandomWord(uint64_t seed, int pass, PatternId id) {
  // splitmix64 of (seed, pass, pattern): a fixed sequence, so a run can be repeated word for word.
  uint64_t z = seed + 0x9E3779B97F4A7C15ull * (static_cast<uint64_t>(pass) * 16 + static_cast<uint64_t>(id) + 1);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return static_cast<uint32_t>(z ^ (z >> 31));
}

std::vector<Step> StepsOf(PatternId id, const PatternPlan& plan) {
  std::vector<Step> steps;
  switch (id) {
    case PatternId::WalkingOnes: WalkSteps(steps, plan); break;
    case PatternId::OwnAddress: MovingInversion(steps, PatternKind::OwnAddress, 0, 0); break;
    case PatternId::OnesZeros:
      MovingInversion(steps, PatternKind::Constant, 0, 0);
      MovingInversion(steps, PatternKind::Constant, kAllOnes, 0);
      break;
    case PatternId::EightBit:
      MovingInversion(steps, PatternKind::Constant, 0x8080808080808080ull, 0);
      MovingInversion(steps, PatternKind::Constant, ~0x8080808080808080ull, 0);
      break;
    case PatternId::RandomPattern:
      MovingInversion(steps, PatternKind::Constant, TwiceWord(RandomWord(plan.seed, plan.pass, id)), 0);
      break;
    case PatternId::WalkingBit32:
      // Test6: for each of 32 phases, the walking one, then its complement (the walking zero).
      for (uint64_t phase = 0; phase < 32; ++phase) {
        MovingInversion(steps, PatternKind::WalkingBit32, phase, 0);
        MovingInversion(steps, PatternKind::WalkingBit32, phase, kAllOnes);
      }
      break;
    case PatternId::Modulo20: {
      const uint32_t p1 = RandomWord(plan.seed, plan.pass, id);
      for (uint64_t offset = 0; offset < 20; ++offset) {
        const uint64_t param = (offset << 32) | p1;
        steps.push_back(PatternFill(PatternKind::Modulo20, param, 0));
        steps.push_back({Step::Op::Check, PatternKind::Modulo20, param, 0});
      }
      break;
    }
    case PatternId::RandomSequence:
      MovingInversion(steps, PatternKind::RandomSequence, RandomWord(plan.seed, plan.pass, id), 0);
      break;
    case PatternId::BitFade: {
      // Test9: zeros, wait, check and write ones, wait, check.
      Step wait{Step::Op::Wait};
      steps.push_back(PatternFill(PatternKind::Constant, 0, 0));
      steps.push_back(wait);
      steps.push_back({Step::Op::CheckInvert, PatternKind::Constant, 0, 0});
      steps.push_back(wait);
      steps.push_back({Step::Op::Check, PatternKind::Constant, 0, kAllOnes});
      break;
    }
  }
  return steps;
}

uint64_t ExpectedWord(const Step& step, uint64_t address, uint64_t logical) {
  uint64_t word = 0;
  switch (step.kind) {
    case PatternKind::Constant: word = step.param; break;
    case PatternKind::OwnAddress: word = address; break;
    case PatternKind::WalkingBit32: {
      const uint64_t j = logical / 4;
      const auto lo = static_cast<uint32_t>(1u << ((step.param + j) & 31));
      const auto hi = static_cast<uint32_t>(1u << ((step.param + j + 1) & 31));
      word = uint64_t{lo} | (uint64_t{hi} << 32);
      break;
    }
    case PatternKind::Modulo20: {
      const uint64_t j = logical / 4, offset = step.param >> 32;
      const auto p1 = static_cast<uint32_t>(step.param);
      const uint32_t lo = j % 20 == offset ? p1 : ~p1, hi = (j + 1) % 20 == offset ? p1 : ~p1;
      word = uint64_t{lo} | (uint64_t{hi} << 32);
      break;
    }
    case PatternKind::RandomSequence: word = MixWord(logical / 8, static_cast<uint32_t>(step.param)); break;
  }
  return word ^ step.xor_mask;
}

std::vector<uint64_t> WalkOffsets(uint64_t total) {
  std::vector<uint64_t> offsets;
  if (total >= 8) offsets.push_back(0);
  for (uint64_t o = 8; o < total && o != 0; o <<= 1) offsets.push_back(o);
  return offsets;
}

double TraversalsOf(PatternId id, const PatternPlan& plan) {
  double sum = 0;
  for (const Step& step : StepsOf(id, plan)) sum += step.Traversals();
  return sum;
}

}  // namespace labcheck::gpu::memtest

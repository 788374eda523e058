#include "cpu_bench/flops_peak.h"

#include <fmt/format.h>

#include "cpu_bench/rated_clock.h"
#include "core/text_util.h"

namespace labcheck::cpu_bench {
namespace {

constexpr int kAmdZen = 0x17;   // Zen, Zen+ (models < 0x30), Zen 2
constexpr int kAmdZen3 = 0x19;  // Zen 3 and Zen 4

bool IsAmd(const env::CpuInfo& cpu) { return cpu.vendor == "AuthenticAMD"; }

// Which clock the peak was built on, for its label.
Text ClockWords(ClockSource clock) {
  switch (clock) {
    case ClockSource::CpufreqMax: return T("максимальная, cpufreq", "maximum, cpufreq");
    case ClockSource::RatedBoost: return T("паспортная максимальная (турбо)", "rated boost");
    case ClockSource::Nominal: return T("номинальная из названия модели — нижняя граница", "nominal, from the model name: a lower bound");
    case ClockSource::Current: return T("текущая из /proc/cpuinfo — нижняя граница", "current, from /proc/cpuinfo: a lower bound");
  }
  return {};
}

}  // namespace

std::optional<VectorIsa> DetectVectorIsa(const env::CpuInfo& cpu) {
  // Two multiply-add pipes per core is the norm since Haswell and Zen 2; Intel parts with one
  // AVX-512 unit (some Xeon Silver/Bronze, Ice Lake client) reach half. Flags cannot tell.
  VectorIsa isa;
  if (cpu.Has("avx512f")) {
    isa = {"AVX-512", 512, true, 2, {}};
    if (IsAmd(cpu) && cpu.family == kAmdZen3) {
      // Zen 4 (family 19h) splits each 512-bit operation into two 256-bit halves.
      isa.width_bits = 256;
      isa.datapath_note = T("Zen 4 выполняет AVX-512 двумя половинами по 256 бит",
                            "Zen 4 executes AVX-512 as two 256-bit halves");
    }
  } else if (cpu.Has("avx2") && cpu.Has("fma")) {
    isa = {"AVX2+FMA", 256, true, 2, {}};
    if (IsAmd(cpu) && cpu.family == kAmdZen && cpu.model_number >= 0 && cpu.model_number < 0x30) {
      isa.width_bits = 128;  // Zen and Zen+ split 256-bit operations into 128-bit halves
      isa.datapath_note = T("Zen и Zen+ выполняют AVX2 половинами по 128 бит",
                            "Zen and Zen+ execute AVX2 as 128-bit halves");
    }
  } else if (cpu.Has("avx")) {
    isa = {"AVX", 256, false, 2, {}};  // Sandy/Ivy Bridge: one multiply and one add per cycle
  } else if (cpu.Has("sse2")) {
    isa = {"SSE2", 128, false, 2, {}};
  } else {
    return std::nullopt;
  }
  return isa;
}

int OpenBlasKernelWidthBits(const std::string& corename) {
  for (const char* name : {"SkylakeX", "Cooperlake", "SapphireRapids"}) {
    if (corename == name) return 512;
  }
  for (const char* name : {"Haswell", "Zen", "Sandybridge", "Excavator", "Steamroller",
                           "Piledriver", "Bulldozer"}) {
    if (corename == name) return 256;
  }
  for (const char* name : {"Nehalem", "Core2", "Penryn", "Dunnington", "Atom", "Barcelona",
                           "Opteron", "Prescott", "Bobcat"}) {
    if (corename == name) return 128;
  }
  return 0;
}

Result<FlopsPeak> TheoreticalFp32Peak(const env::CpuInfo& cpu) {
  auto isa = DetectVectorIsa(cpu);
  if (!isa) return Status::Error("no x86 vector flags in /proc/cpuinfo: FLOP per cycle unknown");
  FlopsPeak peak;
  const std::optional<double> nominal = BrandStringMhz(cpu.model);
  if (cpu.max_mhz) {
    peak.mhz = *cpu.max_mhz;
    peak.clock = ClockSource::CpufreqMax;
  } else if (auto rated = RatedBoostClock(cpu.model)) {
    peak.mhz = rated->mhz;
    peak.clock = ClockSource::RatedBoost;
    peak.clock_source = rated->source;
  } else if (nominal && (!cpu.current_mhz || *nominal >= *cpu.current_mhz)) {
    peak.mhz = *nominal;
    peak.clock = ClockSource::Nominal;
  } else if (cpu.current_mhz) {
    peak.mhz = *cpu.current_mhz;
    peak.clock = ClockSource::Current;
  } else {
    return Status::Error("no clock in /proc/cpuinfo or cpufreq");
  }
  peak.max_clock = peak.clock == ClockSource::CpufreqMax || peak.clock == ClockSource::RatedBoost;
  peak.cores = cpu.cores;
  peak.isa = *isa;
  const int flop = isa->Fp32FlopPerCycle();
  peak.gflops = peak.cores * peak.mhz * 1e-3 * flop;

  std::string ghz = fmt::format("{:.2f}", peak.mhz / 1000);
  std::string how_en = isa->fma ? fmt::format("{} FMA, {} pipes", isa->name, isa->pipes)
                                : fmt::format("{}, separate multiply and add", isa->name);
  std::string how_ru = isa->fma ? fmt::format("{} FMA, {} блока", isa->name, isa->pipes)
                                : fmt::format("{}, умножение и сложение раздельно", isa->name);
  const Text clock = ClockWords(peak.clock);
  peak.label = T(fmt::format("{} {} × {} ГГц ({}) × {} FLOP/такт ({})", peak.cores,
                             RuPlural(peak.cores, "ядро", "ядра", "ядер"), ghz, clock.ru, flop, how_ru),
                 fmt::format("{} cores × {} GHz ({}) × {} FLOP/cycle ({})", peak.cores, ghz, clock.en, flop, how_en));
  return peak;
}

Text FlopsPeak::LowerBoundWhy() const {
  const std::string ghz = fmt::format("{:.2f}", mhz / 1000);
  switch (clock) {
    case ClockSource::Current:
      return T("теория посчитана по частоте " + ghz + " ГГц из /proc/cpuinfo: это снимок (в виртуальной машине — "
               "обычно номинал), а ядра под нагрузкой разгоняются выше, и модели процессора нет в "
               "data/cpu_clocks.json; поэтому теория — нижняя граница",
               "the theory uses the " + ghz + " GHz that /proc/cpuinfo shows: a snapshot (in a virtual machine "
               "usually the nominal clock) while the cores boost higher under load, and the CPU model is "
               "not in data/cpu_clocks.json; so the theory is a lower bound");
    case ClockSource::Nominal:
      return T("теория посчитана по номинальной частоте " + ghz + " ГГц из названия модели, а ядра "
               "разгоняются выше (турбо); поэтому теория — нижняя граница",
               "the theory uses the nominal " + ghz + " GHz from the model name while the cores boost "
               "higher (turbo); so the theory is a lower bound");
    case ClockSource::CpufreqMax:
    case ClockSource::RatedBoost:
      break;
  }
  return T("замер выше теории, посчитанной по максимальной частоте " + ghz + " ГГц: ядра работали быстрее "
           "паспортной частоты или FLOP за такт больше, чем выводится из флагов; здесь теория — нижняя граница",
           "the measurement exceeds the theory at the maximum " + ghz + " GHz: the cores ran above the rated "
           "clock, or do more FLOP per cycle than the flags tell; here the theory is a lower bound");
}

Text WhyNoFp32Peak(const env::CpuInfo& cpu) {
  if (!DetectVectorIsa(cpu)) {
    return T("FLOP за такт выводится только для x86 (флаги SSE/AVX/FMA), а их в /proc/cpuinfo нет",
             "FLOP per cycle is derived for x86 only (SSE/AVX/FMA flags), and /proc/cpuinfo has none");
  }
  return T("частота процессора не прочитана (ни cpufreq, ни cpu MHz в /proc/cpuinfo)",
           "the CPU clock could not be read (neither cpufreq nor cpu MHz in /proc/cpuinfo)");
}

}  // namespace labcheck::cpu_bench

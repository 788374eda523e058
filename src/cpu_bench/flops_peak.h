// The FP32 multiply-add peak a CPU could reach: physical cores × clock × FLOP per cycle, the
// figure `cpu.sgemm_gflops` is compared with. FLOP per cycle comes from the vector width and FMA
// support in /proc/cpuinfo flags; what flags cannot tell (the number of FMA units) is assumed and
// said so in the label.
#pragma once
#include <optional>
#include <string>

#include "core/status.h"
#include "core/text.h"
#include "env/cpu_info.h"

namespace labcheck::cpu_bench {

struct VectorIsa {
  std::string name;     // "AVX-512", "AVX2+FMA", "AVX", "SSE2"
  int width_bits = 0;   // vector register width the core executes at full rate
  bool fma = false;     // fused multiply-add: 2 FLOP per lane per instruction
  int pipes = 2;        // multiply-add (or multiply and add) pipes per core
  Text datapath_note;   // why width_bits differs from the register width, when it does

  // FP32 lanes × (2 with FMA, else 1 multiply + 1 add in separate pipes) × pipes, per core.
  int Fp32FlopPerCycle() const { return (width_bits / 32) * (fma ? 2 * pipes : 2); }
};

// The widest FP32 multiply-add this CPU runs at full rate; empty for non-x86 (not derivable).
std::optional<VectorIsa> DetectVectorIsa(const env::CpuInfo& cpu);

// The vector width of the OpenBLAS kernel family openblas_get_corename() names ("Haswell" → 256,
// "SkylakeX" → 512); 0 when unknown. An older kernel on a newer CPU caps what SGEMM can reach.
int OpenBlasKernelWidthBits(const std::string& corename);

// Where the clock of the peak comes from, best first. The first two are what the cores can reach;
// the other two are below it, so the peak built on them is a lower bound.
enum class ClockSource {
  CpufreqMax,  // the highest cpuinfo_max_freq in /sys (the boost clock the kernel was told)
  RatedBoost,  // the model's rated boost from data/cpu_clocks.json (VMs hide cpufreq)
  Nominal,     // "@ 3.00GHz" in the brand string: the base clock
  Current,     // /proc/cpuinfo "cpu MHz": a snapshot, in a VM often the nominal or TSC rate
};

struct FlopsPeak {
  double gflops = 0;
  int cores = 0;
  double mhz = 0;
  ClockSource clock = ClockSource::Current;
  bool max_clock = false;    // clock is CpufreqMax or RatedBoost
  Text clock_source;         // for RatedBoost: the vendor page the figure is from
  VectorIsa isa;
  Text label;  // "2 cores × 2.10 GHz (current …) × 64 FLOP/cycle (AVX-512 FMA, 2 pipes)"

  // The cores can run faster than the clock used: measured figures may exceed this peak.
  bool lower_bound() const { return !max_clock; }
  // Why this peak is a lower bound (or, for a max clock, why a measurement could still exceed it).
  Text LowerBoundWhy() const;
};

// Result, with why not: a clock or vector ISA that cannot be read.
Result<FlopsPeak> TheoreticalFp32Peak(const env::CpuInfo& cpu);
// The same reason in words for the report, when TheoreticalFp32Peak fails.
Text WhyNoFp32Peak(const env::CpuInfo& cpu);

}  // namespace labcheck::cpu_bench

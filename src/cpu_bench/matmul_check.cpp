#include "cpu_bench/matmul_check.h"

#include <cstdlib>

#include <fmt/format.h>

#include "cpu_bench/interrupted.h"
#include "cpu_bench/stats.h"
#include "cpu_bench/thread_team.h"
#include "env/cpu_info.h"
#include "env/os_info.h"
#include "core/text_util.h"
#include "core/units.h"

namespace labcheck::cpu_bench {
namespace {

using nlohmann::json;

// Well-fed SGEMM reaches 70–90% of the peak; under half, something holds the cores back.
constexpr double kSgemmWarnRatio = 0.5;

const char* ClockSourceKey(ClockSource clock) {
  switch (clock) {
    case ClockSource::CpufreqMax: return "cpufreq_max";
    case ClockSource::RatedBoost: return "rated_boost";
    case ClockSource::Nominal: return "nominal";
    case ClockSource::Current: return "current";
  }
  return "";
}

Text Ratio(double measured, double reference) {
  return reference > 0 ? Text(Fixed(100 * measured / reference, 0) + "%") : Text("—");
}

// What the median is judged against. OpenBLAS's kernel family may be narrower than the CPU's
// vectors (0.3.21 runs its AVX2 "Haswell" kernels on AVX-512 Zen 5): then the verdict is judged
// against what those kernels can reach, while the reference stays the CPU's own peak.
struct PeakJudgement {
  std::optional<double> judged;      // the peak, or the kernels' cap below it
  std::optional<double> kernel_cap;
  // A share above 100 % is never printed bare: it says the theory was a lower bound, and why.
  bool above_theory = false;
};

PeakJudgement JudgeAgainstPeak(const MatmulInputs& in, double median) {
  PeakJudgement j;
  if (!in.peak) return j;
  j.above_theory = median > in.peak->gflops;
  j.judged = in.peak->gflops;
  const int kernel_bits = OpenBlasKernelWidthBits(in.run.corename);
  if (kernel_bits > 0 && kernel_bits < in.peak->isa.width_bits) {
    j.kernel_cap = in.peak->gflops * kernel_bits / in.peak->isa.width_bits;
    j.judged = j.kernel_cap;
  }
  return j;
}

Measurement SgemmMeasurement(const MatmulInputs& in, const std::vector<double>& gflops, double median, const PeakJudgement& j) {
  const SgemmRun& run = in.run;
  const int calls = static_cast<int>(gflops.size());
  Measurement m{"cpu.sgemm_gflops",
                T("CPU: умножение матриц FP32 (OpenBLAS)", "CPU: FP32 matrix multiply (OpenBLAS)"),
                median, "GFLOPS",
                T(fmt::format("2·N³ FLOP / время, N = {}, OpenBLAS {}, {} {}, медиана по {} {}",
                              run.n, run.corename, run.threads,
                              RuPlural(run.threads, "поток", "потока", "потоков"), calls,
                              RuPlural(calls, "вызову", "вызовам", "вызовам")),
                  fmt::format("2·N³ FLOP / time, N = {}, OpenBLAS {}, {} threads, median of {} calls",
                              run.n, run.corename, run.threads, calls)),
                {}, {}};
  m.spread = SpreadOfValues(gflops, in.load.busy());
  if (in.peak) {
    m.reference = in.peak->gflops;
    m.reference_label = in.peak->label;
    if (j.above_theory) {
      m.reference_label = Text(m.reference_label.ru + "; замер выше: теория — нижняя граница",
                               m.reference_label.en + "; measured above it: the theory is a lower bound");
    }
  }
  return m;
}

// Where the theoretical figure comes from and how far to trust it; or why there is none.
void AddTheoryNotes(Table& table, const MatmulInputs& in, double median, bool above_theory) {
  if (!in.peak) {
    table.notes.push_back(T("Теоретическую цифру вывести не удалось: " + in.peak_unavailable.ru + ".",
                            "The theoretical figure could not be derived: " + in.peak_unavailable.en + "."));
    return;
  }
  table.notes.push_back(T("Теория: " + in.peak->label.ru + ". Частота под нагрузкой AVX обычно ниже, "
                          "а блоков FMA у части процессоров один, а не два.",
                          "Theoretical: " + in.peak->label.en + ". Clocks under AVX load are usually "
                          "lower, and some CPUs have one FMA unit, not two."));
  if (!in.peak->isa.datapath_note.empty()) table.notes.push_back(in.peak->isa.datapath_note);
  if (in.peak->clock == ClockSource::RatedBoost) {
    table.notes.push_back(T("Частота — паспортная максимальная для этой модели (cpufreq не виден): " + in.peak->clock_source.ru + ".",
                            "The clock is the model's rated boost (cpufreq is not visible): " + in.peak->clock_source.en + "."));
  }
  if (above_theory) {
    const Text why = in.peak->LowerBoundWhy();
    table.notes.push_back(T(fmt::format("Замер выше теории ({:.0f}%): {}.", 100 * median / in.peak->gflops, why.ru),
                            fmt::format("Measured above the theory ({:.0f}%): {}.", 100 * median / in.peak->gflops, why.en)));
  }
}

Text KernelCapNote(const MatmulInputs& in, double median, double kernel_cap) {
  const SgemmRun& run = in.run;
  const int bits = OpenBlasKernelWidthBits(run.corename), width = in.peak->isa.width_bits;
  Text note = T(fmt::format("Ядра OpenBLAS «{}» работают с {}-битными векторами, а процессор умеет {}-битные: они достигают "
                            "не больше {}/{} теории, около {:.0f} GFLOPS при этой частоте ({:.0f}% этой цифры)",
                            run.corename, bits, width, bits, width, kernel_cap, 100 * median / kernel_cap),
                fmt::format("OpenBLAS's \"{}\" kernels use {}-bit vectors where the CPU has {}-bit ones: they reach at most "
                            "{}/{} of the theory, about {:.0f} GFLOPS at this clock ({:.0f}% of that was measured)",
                            run.corename, bits, width, bits, width, kernel_cap, 100 * median / kernel_cap));
  // A share of a cap derived from a lower-bound theory is no upper bound either: say so.
  if (in.peak->lower_bound() || median > kernel_cap) {
    note.ru += "; теория здесь — нижняя граница, и эта цифра тоже";
    note.en += "; the theory is a lower bound here, and so is this figure";
  }
  note.ru += ".";
  note.en += ".";
  if (!in.openblas_coretype_env.empty()) {
    note.ru += fmt::format(" Эти ядра выбрала переменная окружения OPENBLAS_CORETYPE={}: без неё OpenBLAS возьмёт ядра под {}-битные "
                           "векторы процессора (unset OPENBLAS_CORETYPE).", in.openblas_coretype_env, width);
    note.en += fmt::format(" The environment variable OPENBLAS_CORETYPE={} chose these kernels: without it OpenBLAS takes the "
                           "kernels for the CPU's {}-bit vectors (unset OPENBLAS_CORETYPE).", in.openblas_coretype_env, width);
  }
  return note;
}

Table SgemmTable(const MatmulInputs& in, const std::vector<double>& gflops, double median, const PeakJudgement& j) {
  const SgemmRun& run = in.run;
  Table table;
  table.title = T("Умножение матриц FP32 на CPU (OpenBLAS sgemm)", "FP32 matrix multiply on the CPU (OpenBLAS sgemm)");
  table.columns = {T("Размер", "Size"), T("Вызовов", "Calls"), T("Медиана, GFLOPS", "Median, GFLOPS"),
                   T("Лучший, GFLOPS", "Best, GFLOPS"), T("Теория, GFLOPS", "Theoretical, GFLOPS"),
                   T("Доля теории", "Share of theoretical")};
  table.AddRow({fmt::format("{0}×{0}×{0}", run.n), std::to_string(gflops.size()), Fixed(median), Fixed(Max(gflops)),
                in.peak ? Text(Fixed(in.peak->gflops)) : Text("—"),
                !in.peak ? Text("—")
                : j.above_theory ? Text(Ratio(median, in.peak->gflops).ru + " (теория — нижняя граница)",
                                        Ratio(median, in.peak->gflops).en + " (the theory is a lower bound)")
                                 : Ratio(median, in.peak->gflops)});
  table.notes.push_back(T(fmt::format("FLOP считаются как 2·N³ за вызов (умножение и сложение). {}; "
                                      "ядра «{}», потоков {}.", run.config, run.corename, run.threads),
                          fmt::format("FLOP are counted as 2·N³ per call (a multiply and an add). {}; "
                                      "\"{}\" kernels, {} threads.", run.config, run.corename, run.threads)));
  AddTheoryNotes(table, in, median, j.above_theory);
  if (j.kernel_cap) table.notes.push_back(KernelCapNote(in, median, *j.kernel_cap));
  if (in.virtualized) {
    table.notes.push_back(T("Это виртуальная машина: частоту и число ядер показывает гипервизор, "
                            "ядра могут делиться с другими гостями.",
                            "This is a virtual machine: the hypervisor shows the clock and core count, "
                            "and cores may be shared with other guests."));
  }
  if (in.load.busy()) table.notes.push_back(in.load.Note());
  return table;
}

json SgemmData(const MatmulInputs& in, const std::vector<double>& gflops, const PeakJudgement& j) {
  json theoretical = in.peak ? json{{"gflops", in.peak->gflops},
                                    {"cores", in.peak->cores},
                                    {"mhz", in.peak->mhz},
                                    {"clock", in.peak->max_clock ? "max" : "current"},
                                    {"clock_source", ClockSourceKey(in.peak->clock)},
                                    {"lower_bound", in.peak->lower_bound() || j.above_theory},
                                    {"isa", in.peak->isa.name},
                                    {"vector_bits", in.peak->isa.width_bits},
                                    {"flop_per_cycle", in.peak->isa.Fp32FlopPerCycle()},
                                    {"kernel_reachable_gflops", j.kernel_cap ? json(*j.kernel_cap) : json(nullptr)}}
                             : json{{"error", in.peak_unavailable.en}};
  return {{"n", in.run.n},
          {"threads", in.run.threads},
          {"openblas_core", in.run.corename},
          {"openblas_config", in.run.config},
          {"gflops", gflops},
          {"theoretical", theoretical},
          {"load_1min", in.load.load_1min ? json(*in.load.load_1min) : json(nullptr)}};
}

Text SgemmSummary(const MatmulInputs& in, double median, const PeakJudgement& j) {
  std::string share_ru, share_en;
  if (in.peak) {
    const double percent = 100 * median / in.peak->gflops;
    share_ru = j.above_theory ? fmt::format(" ({:.0f}% теории — она здесь нижняя граница)", percent) : fmt::format(" ({:.0f}%)", percent);
    share_en = j.above_theory ? fmt::format(" ({:.0f}% of a theory that is a lower bound here)", percent) : fmt::format(" ({:.0f}%)", percent);
  }
  Text summary = T(fmt::format("{:.1f} GFLOPS FP32{}, N = {}", median, share_ru, in.run.n),
                   fmt::format("{:.1f} GFLOPS FP32{}, N = {}", median, share_en, in.run.n));
  // The user's setting holds the CPU back: the row names it, not only the table's notes.
  if (j.kernel_cap && !in.openblas_coretype_env.empty()) {
    summary.ru += fmt::format("; OPENBLAS_CORETYPE={} задаёт {}-битные ядра на {}-битном процессоре", in.openblas_coretype_env,
                              OpenBlasKernelWidthBits(in.run.corename), in.peak->isa.width_bits);
    summary.en += fmt::format("; OPENBLAS_CORETYPE={} forces {}-bit kernels on a {}-bit CPU", in.openblas_coretype_env,
                              OpenBlasKernelWidthBits(in.run.corename), in.peak->isa.width_bits);
  }
  return summary;
}

// WARN under half of what the kernels can reach, or while other work loads the machine.
void SetSgemmVerdict(CheckResult& result, const MatmulInputs& in, double median, const PeakJudgement& j) {
  std::vector<Text> warnings, hints;
  if (j.judged && median < kSgemmWarnRatio * *j.judged) {
    warnings.push_back(T(fmt::format("{:.1f} GFLOPS — меньше половины достижимых {:.1f} GFLOPS.", median, *j.judged),
                         fmt::format("{:.1f} GFLOPS is under half the reachable {:.1f} GFLOPS.", median, *j.judged)));
    // A busy machine explains a low figure by itself (its note says to run again when idle); the
    // hardware advice answers a low figure on an idle one.
    if (!in.load.busy())
      hints.push_back(T("Проверьте, что процессор не перегрет и не в режиме энергосбережения "
                      "(sudo cpupower frequency-set -g performance).",
                      "Check that the CPU is not overheating and not in a power-saving mode "
                      "(sudo cpupower frequency-set -g performance)."));
  }
  if (in.load.busy()) warnings.push_back(in.load.Note());
  result.outcome = warnings.empty() ? Outcome::Pass : Outcome::Warn;
  result.reason = Join(warnings, " ");
  result.hint = Join(hints, " ");
}

}  // namespace

CheckResult AssessMatmul(const MatmulInputs& in) {
  CheckResult result;
  result.id = "cpu.matmul";
  result.section = "cpu";
  result.title = T("Умножение матриц на CPU (FP32)", "Matrix multiply on the CPU (FP32)");
  const std::vector<double> gflops = Rates(in.run.flop() / 1e9, in.run.seconds);
  const double median = Median(gflops);
  const PeakJudgement judgement = JudgeAgainstPeak(in, median);
  result.data = SgemmData(in, gflops, judgement);
  result.summary = SgemmSummary(in, median, judgement);
  SetSgemmVerdict(result, in, median, judgement);
  result.measurements = {SgemmMeasurement(in, gflops, median, judgement)};
  result.tables = {SgemmTable(in, gflops, median, judgement)};
  return result;
}

CheckResult RunMatmulCheck(CheckContext& ctx) {
  MatmulInputs in;
  if (const char* coretype = std::getenv("OPENBLAS_CORETYPE")) in.openblas_coretype_env = coretype;
  auto cpu = env::ReadCpuInfo();
  if (cpu.ok()) {
    in.virtualized = cpu->virtualized();
    if (auto peak = TheoreticalFp32Peak(*cpu); peak.ok()) {
      in.peak = *peak;
    } else {
      in.peak_unavailable = WhyNoFp32Peak(*cpu);
    }
  } else {
    in.peak_unavailable = T("/proc/cpuinfo не прочитан: " + cpu.status().message(),
                            "/proc/cpuinfo could not be read: " + cpu.status().message());
  }
  std::optional<uint64_t> available;
  if (auto memory = env::ReadMemInfo(); memory.ok()) available = memory->available_bytes;

  const int cpus = static_cast<int>(AllowedCpus().size());
  in.load = MachineLoad::Now(cpus);
  SgemmPlan plan = PlanSgemm(cpus, ctx.options().quick, available);
  auto run = RunSgemm(plan, ctx.cancel(),
                      [&ctx](double fraction, const std::string& what) { ctx.Progress(fraction, what); });
  if (!run.ok()) {
    return Failed("cpu.matmul", T("умножение матриц дало неверный результат",
                                  "the matrix multiply gave a wrong result"),
                  T("Неверная арифметика на CPU — повод проверить стабильность (разгон, "
                    "память: memtest86+).",
                    "Wrong arithmetic on the CPU is a reason to check stability (overclocking, "
                    "memory: memtest86+)."),
                  run.status().message());
  }
  in.run = std::move(run).value();
  // Interrupted before the first timed pass: no figure rather than a 0 the report would show.
  if (in.run.seconds.empty()) return Interrupted("cpu.matmul");
  return AssessMatmul(in);
}

}  // namespace labcheck::cpu_bench

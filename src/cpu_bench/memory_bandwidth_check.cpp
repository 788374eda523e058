#include "cpu_bench/memory_bandwidth_check.h"

#include <fmt/format.h>

#include "cpu_bench/cache_size.h"
#include "cpu_bench/interrupted.h"
#include "cpu_bench/stats.h"
#include "env/cpu_info.h"
#include "env/os_info.h"
#include "core/text_util.h"
#include "core/units.h"

namespace labcheck::cpu_bench {
namespace {

using nlohmann::json;

// Below this share of the modules' figure something is usually wrong: a channel left empty,
// XMP/EXPO off, or the memory running at a fallback speed.
constexpr double kBandwidthWarnRatio = 0.5;

Text RatioText(double measured, const std::optional<MemoryPeak>& peak) {
  if (!peak || peak->gbps <= 0) return "—";
  return Fixed(100 * measured / peak->gbps, 0) + "%";
}

// The two kernels' rates, GB/s per timed pass.
struct StreamRates {
  std::vector<double> copy;
  std::vector<double> triad;
  double array_mib = 0;  // each of the three arrays
};

StreamRates RatesOf(const StreamRun& run) {
  return {Rates(run.copy_bytes() / 1e9, run.copy_seconds), Rates(run.triad_bytes() / 1e9, run.triad_seconds),
          run.elements * sizeof(double) / kBytesPerMiB};
}

// The medians with how they were counted, against the modules' figure where there is one.
std::vector<Measurement> StreamMeasurements(const MemoryBandwidthInputs& in, const StreamRates& r) {
  const StreamRun& run = in.run;
  const int passes = static_cast<int>(r.copy.size());
  auto method = [&](int bytes_per_element, const char* ru_what, const char* en_what) {
    return T(fmt::format("({}) / время; {} {} на элемент, {} {}, 3 массива × {:.0f} MiB, "
                         "медиана по {} {}",
                         ru_what, bytes_per_element, RuPlural(bytes_per_element, "байт", "байта", "байт"),
                         run.threads, RuPlural(run.threads, "поток", "потока", "потоков"), r.array_mib,
                         passes, RuPlural(passes, "проходу", "проходам", "проходам")),
             fmt::format("({}) / time; {} bytes per element, {} threads, 3 arrays × {:.0f} MiB, "
                         "median of {} passes",
                         en_what, bytes_per_element, run.threads, r.array_mib, passes));
  };
  Measurement copy_m{"cpu.mem_copy_gbps", T("Память: копирование (STREAM copy)", "Memory: copy (STREAM copy)"),
                     Median(r.copy), "GB/s",
                     method(16, "байты чтения + байты записи", "bytes read + bytes written"), {}, {}};
  Measurement triad_m{"cpu.mem_triad_gbps", T("Память: triad (STREAM)", "Memory: triad (STREAM)"),
                      Median(r.triad), "GB/s",
                      method(24, "2 чтения + 1 запись", "2 reads + 1 write"), {}, {}};
  copy_m.spread = SpreadOfValues(r.copy, in.load.busy());
  triad_m.spread = SpreadOfValues(r.triad, in.load.busy());
  if (in.peak) {
    for (Measurement* m : {&copy_m, &triad_m}) {
      m->reference = in.peak->gbps;
      m->reference_label = in.peak->label;
    }
  }
  return {std::move(copy_m), std::move(triad_m)};
}

// How bytes are counted, whether the arrays were large enough, and where the theory comes from.
void AddStreamNotes(Table& table, const MemoryBandwidthInputs& in, double array_mib) {
  table.notes.push_back(T(
      "Байты считаются как в STREAM: что ядро читает и пишет. Чтение строки кэша перед записью "
      "(write-allocate) не считается, поэтому copy обычно дальше от теории, чем triad. "
      "GB/s = 10^9 байт/с.",
      "Bytes are counted as STREAM counts them: what the kernel reads and writes. The cache's read "
      "of a line before writing it (write-allocate) is not counted, so copy usually lands further "
      "from the theoretical figure than triad. GB/s = 10^9 bytes/s."));
  std::string llc = in.llc_bytes ? fmt::format("{:.0f} MiB", *in.llc_bytes / kBytesPerMiB)
                                 : std::string("?");
  table.notes.push_back(T(fmt::format("Каждый массив {:.0f} MiB, последний уровень кэша {}: правило "
                                      "STREAM — массив не меньше 4 кэшей. Потоков {}, каждый на своём CPU.",
                                      array_mib, llc, in.run.threads),
                          fmt::format("Each array is {:.0f} MiB, last-level cache {}: STREAM's rule "
                                      "is at least 4 caches per array. {} threads, each on its own CPU.",
                                      array_mib, llc, in.run.threads)));
  if (in.plan.below_stream_rule) {
    table.notes.push_back(T("Свободной памяти не хватило на массивы нужного размера (4 кэша, не меньше 256 MiB): "
                            "часть данных могла остаться в кэше, цифры могут быть завышены.",
                            "Free memory was too short for arrays of the intended size (4 caches, at "
                            "least 256 MiB): part of the data may have stayed in cache, so the figures "
                            "may be high."));
  }
  if (in.peak) {
    table.notes.push_back(T("Теория — по модулям памяти из SMBIOS: " + in.peak->label.ru + ".",
                            "Theoretical, from the memory modules in SMBIOS: " + in.peak->label.en + "."));
  } else {
    table.notes.push_back(T("Теоретическую цифру получить не удалось: " + in.peak_unavailable.ru + ".",
                            "The theoretical figure could not be read: " + in.peak_unavailable.en + "."));
  }
  if (in.virtualized) {
    table.notes.push_back(T("Это виртуальная машина: память и ядра делятся с другими гостями.",
                            "This is a virtual machine: memory and cores are shared with other guests."));
  }
  if (in.load.busy()) table.notes.push_back(in.load.Note());
}

Table StreamTable(const MemoryBandwidthInputs& in, const StreamRates& r, double copy_gbps, double triad_gbps) {
  Table table;
  table.title = T("Пропускная способность памяти (STREAM)", "Memory bandwidth (STREAM)");
  table.columns = {T("Операция", "Kernel"), T("Байт на элемент", "Bytes per element"),
                   T("Медиана, GB/s", "Median, GB/s"), T("Лучший, GB/s", "Best, GB/s"),
                   T("Теория, GB/s", "Theoretical, GB/s"), T("Доля теории", "Share of theoretical")};
  Text peak_cell = in.peak ? Text(Fixed(in.peak->gbps)) : Text("—");
  table.AddRow({"copy: c = a", "16", Fixed(copy_gbps), Fixed(Max(r.copy)), peak_cell,
                RatioText(copy_gbps, in.peak)});
  table.AddRow({"triad: c = a + s·b", "24", Fixed(triad_gbps), Fixed(Max(r.triad)), peak_cell,
                RatioText(triad_gbps, in.peak)});
  AddStreamNotes(table, in, r.array_mib);
  return table;
}

json StreamData(const MemoryBandwidthInputs& in, const StreamRates& r) {
  json theoretical = in.peak ? json{{"gbps", in.peak->gbps},
                                    {"channels", in.peak->channels},
                                    {"modules", in.peak->modules},
                                    {"channels_assumed", in.peak->channels_assumed},
                                    {"label", in.peak->label.en}}
                             : json{{"error", in.peak_unavailable.en}, {"detail", in.peak_detail}};
  return {{"threads", in.run.threads},
          {"array_bytes", in.run.elements * sizeof(double)},
          {"llc_bytes", in.llc_bytes ? json(*in.llc_bytes) : json(nullptr)},
          {"copy_gbps", r.copy},
          {"triad_gbps", r.triad},
          {"bytes_counted", "STREAM: bytes read + bytes written by the kernel; write-allocate not counted"},
          {"theoretical", theoretical},
          {"load_1min", in.load.load_1min ? json(*in.load.load_1min) : json(nullptr)}};
}

// WARN when triad is under half the modules' figure, or while other work loads the machine.
void SetStreamVerdict(CheckResult& result, const MemoryBandwidthInputs& in, double triad_gbps) {
  std::vector<Text> warnings, hints;
  if (in.peak && triad_gbps < kBandwidthWarnRatio * in.peak->gbps) {
    warnings.push_back(T(fmt::format("triad {:.1f} GB/s — меньше половины теоретических {:.1f} GB/s.",
                                     triad_gbps, in.peak->gbps),
                         fmt::format("triad {:.1f} GB/s is under half the theoretical {:.1f} GB/s.",
                                     triad_gbps, in.peak->gbps)));
    // A busy machine explains a low figure by itself (its note says to run again when idle); the
    // hardware advice answers a low figure on an idle one.
    if (!in.load.busy())
      hints.push_back(T("Проверьте, что модули стоят во всех каналах (по схеме из инструкции к плате) и "
                      "что в BIOS включён профиль XMP/EXPO.",
                      "Check that modules populate every channel (see the board manual's slot order) "
                      "and that XMP/EXPO is enabled in the BIOS."));
  }
  if (in.load.busy()) warnings.push_back(in.load.Note());
  result.outcome = warnings.empty() ? Outcome::Pass : Outcome::Warn;
  result.reason = Join(warnings, " ");
  result.hint = Join(hints, " ");
}

}  // namespace

CheckResult AssessMemoryBandwidth(const MemoryBandwidthInputs& in) {
  CheckResult result;
  result.id = "cpu.memory_bandwidth";
  result.section = "cpu";
  result.title = T("Пропускная способность памяти", "Memory bandwidth");
  const StreamRates rates = RatesOf(in.run);
  std::vector<Measurement> measurements = StreamMeasurements(in, rates);
  const double copy_gbps = measurements[0].value;
  const double triad_gbps = measurements[1].value;
  result.tables = {StreamTable(in, rates, copy_gbps, triad_gbps)};
  result.data = StreamData(in, rates);
  const std::string ratio = in.peak ? fmt::format(" ({:.0f}%)", 100 * triad_gbps / in.peak->gbps) : "";
  result.summary = T(fmt::format("copy {:.1f} GB/s, triad {:.1f} GB/s{}", copy_gbps, triad_gbps, ratio),
                     fmt::format("copy {:.1f} GB/s, triad {:.1f} GB/s{}", copy_gbps, triad_gbps, ratio));
  SetStreamVerdict(result, in, triad_gbps);
  result.measurements = std::move(measurements);
  return result;
}

CheckResult RunMemoryBandwidthCheck(CheckContext& ctx) {
  MemoryBandwidthInputs in;
  auto cpu = env::ReadCpuInfo();
  in.virtualized = cpu.ok() && cpu->virtualized();
  in.llc_bytes = TotalLastLevelCacheBytes(ReadCacheEntries());
  std::optional<uint64_t> available;
  if (auto memory = env::ReadMemInfo(); memory.ok()) {
    available = memory->available_bytes.value_or(memory->total_bytes / 2);
  }
  in.plan = PlanStream(in.llc_bytes, available, ctx.options().quick);

  ModuleScan scan = ReadMemoryModules();
  if (scan.modules.empty()) {
    in.peak_unavailable = scan.why_none;
    in.peak_detail = scan.detail;
  } else if (auto peak = TheoreticalMemoryPeak(scan.modules); !peak.ok()) {
    in.peak_unavailable = T("ни один модуль в SMBIOS не сообщает скорость и ширину шины",
                            "no module in SMBIOS reports its speed and bus width");
    in.peak_detail = peak.status().message();
  } else {
    in.peak = *peak;
  }

  ThreadTeam team(AllowedCpus());
  in.load = MachineLoad::Now(team.size());
  auto run = RunStream(in.plan, team, ctx.cancel(),
                       [&ctx](double fraction, const std::string& what) { ctx.Progress(fraction, what); });
  if (!run.ok()) {
    return Failed("cpu.memory_bandwidth", T("замер памяти не удался", "the memory measurement failed"),
                  T("Закройте программы, занимающие память, и повторите; ошибка в результатах — повод "
                    "проверить память (memtest86+).",
                    "Close programs that hold memory and run again; wrong results are a reason to "
                    "test the memory (memtest86+)."),
                  run.status().message());
  }
  in.run = std::move(run).value();
  // Interrupted before the first timed pass: no figure rather than a 0 the report would show.
  if (in.run.triad_seconds.empty()) return Interrupted("cpu.memory_bandwidth");
  return AssessMemoryBandwidth(in);
}

}  // namespace labcheck::cpu_bench

// gpu.memory_bandwidth: device memory measured two ways per GPU. The card is judged by the SM
// copy kernel (the figure BabelStream and nvbandwidth's SM copies give) against the catalog's
// band; the driver's cuMemcpyDtoDAsync (the copy engine's copy, what torch's copy_ of a
// contiguous tensor calls) is shown beside it, and a note says when the two differ by more than
// 15 %: that is how the driver copies on this card, not a fault of its memory (on an H20-3e the
// copy engine reads about a quarter of the HBM's speed, NVIDIA/nvbandwidth issue 48).
#include <algorithm>
#include <cmath>
#include <optional>

#include <fmt/format.h>

#include "gpu/bench/stats.h"
#include "gpu/checks/gpu_check_list.h"
#include "gpu/checks/gpu_check_support.h"
#include "gpu/job_envelope.h"
#include "gpu/jobs/gpu_jobs.h"
#include "reference/gpu_catalog.h"

namespace labcheck::gpu {

namespace {

constexpr double kMemorySpreadWarn = 0.10;
// Driver copy and SM copy further apart than this get a note.
constexpr double kMethodsDifferBy = 0.15;
// WARN below the band's low edge by more than the course's normal deviation ("10–20 % is no
// reason for alarm", data/course_expectations.json normal_deviation.within).
constexpr double kBelowBandWarn = 0.20;

std::vector<double> ConcurrentFigures(const nlohmann::json& list) {
  std::vector<double> values;
  if (!list.is_array()) return values;
  for (const nlohmann::json& g : list)
    if (g.contains("gbps")) values.push_back(g["gbps"].get<double>());
  return values;
}

std::optional<double> Gbps(const nlohmann::json& figure) {
  if (!figure.is_object() || !figure.contains("gbps")) return std::nullopt;
  return figure["gbps"].get<double>();
}

// The catalog's realistic band for this GPU (datasheet × 80–90 %), from gpu.inventory's name and
// memory; nullopt for a card the catalog lacks.
struct Reference {
  double datasheet_gbps = 0;
  reference::Band band;
};
std::optional<Reference> CatalogReference(const CheckContext& context, int index) {
  const nlohmann::json* gpu = InventoryGpu(context, index);
  if (gpu == nullptr) return std::nullopt;
  const reference::GpuCatalog& catalog = reference::GpuCatalog::Builtin();
  const reference::GpuSpec* spec =
      catalog.Match(gpu->value("name", std::string()), gpu->value("memory_total_gib", 0.0));
  if (spec == nullptr || !spec->memory_bandwidth_gbps) return std::nullopt;
  const reference::Band share = catalog.memory_copy_share();
  const double datasheet = *spec->memory_bandwidth_gbps;
  return Reference{datasheet, {datasheet * share.low, datasheet * share.high}};
}

std::string BandCell(const std::optional<Reference>& reference) {
  return reference ? fmt::format("{}–{}", Figure(reference->band.low), Figure(reference->band.high)) : "—";
}

// A kernel figure's cell: the figure, N/A (this driver cannot run kernels) or "error".
Text KernelCell(const nlohmann::json& figure) {
  if (auto gbps = Gbps(figure)) return Text(Figure(*gbps));
  if (figure.contains("na")) return Text("N/A");
  return figure.contains("error") ? T("ошибка", "error") : Text("—");
}

void SetWarn(CheckResult& result, Text reason) {
  if (result.outcome != Outcome::Pass) return;
  result.outcome = Outcome::Warn;
  result.reason = std::move(reason);
}

Table MemoryTable(const nlohmann::json& payload) {
  const std::string together_method = payload.value("concurrent_method", std::string());
  return Table{T("Память GPU: копирование внутри карты, ГБ/с", "GPU memory: copy within the card, GB/s"),
               {"GPU", T("SM-копирование", "SM copy"), T("SM triad", "SM triad"),
                T("Копирование драйвера (copy engine)", "Driver's copy (copy engine)"),
                together_method == "sm_copy"       ? T("Все сразу, SM", "All at once, SM")
                : together_method == "driver_copy" ? T("Все сразу, драйвер", "All at once, driver")
                                                   : T("Все сразу", "All at once"),
                T("Ориентир", "Reference"), T("Буфер, МиБ", "Buffer, MiB")},
               {},
               {T("Байты считаются как прочитанные + записанные: копирование 2× буфера, triad 3×, как в STREAM и "
                  "BabelStream (nvbandwidth считает байты один раз: его цифры вдвое меньше). Карту судим по "
                  "SM-копированию (наше PTX-ядро на всех SM) против паспорта × 80–90 %; копирование драйвера "
                  "(cuMemcpyDtoDAsync, им же копирует copy_ в PyTorch) показано рядом.",
                  "Bytes are counted as read + written: a copy moves 2× the buffer, triad 3×, as STREAM and "
                  "BabelStream count (nvbandwidth counts bytes once: its figures are half of these). The card is "
                  "judged by the SM copy (our PTX kernel on every SM) against datasheet × 80–90 %; the driver's "
                  "copy (cuMemcpyDtoDAsync, what PyTorch's copy_ calls) is shown beside it."),
                PayloadMethod(payload)}};
}

// One GPU's three figures as the child reported them, and what they are judged against.
struct GpuMemory {
  int index = 0;
  std::string gpu;  // "GPU0"
  nlohmann::json driver_copy, sm_copy, sm_triad;
  std::optional<double> driver, kernel, triad;
  std::optional<Reference> reference;
  std::string mib;  // buffer size
};

GpuMemory ReadGpu(const CheckContext& context, const nlohmann::json& g) {
  GpuMemory m;
  m.index = g.value("index", 0);
  m.gpu = fmt::format("GPU{}", m.index);
  m.driver_copy = g;
  m.sm_copy = g.value("sm_copy", nlohmann::json::object());
  m.sm_triad = g.value("sm_triad", nlohmann::json::object());
  m.driver = Gbps(g);
  m.kernel = Gbps(m.sm_copy);
  m.triad = Gbps(m.sm_triad);
  m.reference = CatalogReference(context, m.index);
  m.mib = std::to_string(g.value("bytes", m.sm_copy.value("bytes", 0ull)) >> 20);
  return m;
}

// A figure that failed is a WARN with its error; SM kernels that could not run, a note.
void NoteFailures(const GpuMemory& m, CheckResult& result, Table& table) {
  for (const auto& [figure, what] :
       {std::pair{&m.driver_copy, "driver copy"}, std::pair{&m.sm_copy, "SM copy"}, std::pair{&m.sm_triad, "SM triad"}}) {
    if (!figure->contains("error")) continue;
    SetWarn(result, T(fmt::format("замер не удался на {} ({})", m.gpu, what),
                      fmt::format("the measurement failed on {} ({})", m.gpu, what)));
    if (result.error.empty()) result.error = (*figure)["error"].get<std::string>();
  }
  if (m.sm_copy.contains("na"))
    table.notes.push_back(T(fmt::format("{}: SM-ядра не запускались: {}; карта судится по копированию драйвера", m.gpu,
                                        m.sm_copy["na"].get<std::string>()),
                            fmt::format("{}: the SM kernels did not run: {}; the card is judged by the driver's copy",
                                        m.gpu, m.sm_copy["na"].get<std::string>())));
}

void AddMeasurements(const GpuMemory& m, CheckResult& result) {
  const int i = m.index;
  if (m.driver) {
    result.Add({fmt::format("gpu{}.memory_copy_gbps", i),
                T(fmt::format("GPU{}: память, копирование драйвера", i), fmt::format("GPU{}: memory, driver's copy", i)),
                *m.driver, "GB/s",
                T(fmt::format("cuMemcpyDtoDAsync {} МиБ (copy engine), прочитанные + записанные байты, медиана из {}", m.mib,
                              m.driver_copy.value("repeats", 0)),
                  fmt::format("cuMemcpyDtoDAsync of {} MiB (the copy engine), bytes read + bytes written, median of {}", m.mib,
                              m.driver_copy.value("repeats", 0)))});
    result.measurements.back().spread = TimingSpread(*m.driver, m.driver_copy);
  }
  if (m.kernel) {
    Measurement& kernel = result.Add({fmt::format("gpu{}.memory_kernel_copy_gbps", i),
                                      T(fmt::format("GPU{}: память, SM-копирование", i), fmt::format("GPU{}: memory, SM copy", i)),
                                      *m.kernel, "GB/s",
                                      T(fmt::format("PTX-ядро копирования, 16-байтовые чтения и записи, {} блоков × {} потоков, "
                                                    "{} МиБ, прочитанные + записанные байты, медиана из {}",
                                                    m.sm_copy.value("blocks", 0), m.sm_copy.value("threads_per_block", 0),
                                                    m.mib, m.sm_copy.value("repeats", 0)),
                                        fmt::format("PTX copy kernel, 16-byte loads and stores, {} blocks × {} threads, "
                                                    "{} MiB, bytes read + bytes written, median of {}",
                                                    m.sm_copy.value("blocks", 0), m.sm_copy.value("threads_per_block", 0),
                                                    m.mib, m.sm_copy.value("repeats", 0)))});
    kernel.spread = TimingSpread(*m.kernel, m.sm_copy);
    if (m.reference) {
      kernel.reference = m.reference->datasheet_gbps;
      kernel.reference_label = T("паспорт", "datasheet");
    }
  }
  if (m.triad) {
    result.Add({fmt::format("gpu{}.memory_kernel_triad_gbps", i),
                T(fmt::format("GPU{}: память, SM triad", i), fmt::format("GPU{}: memory, SM triad", i)), *m.triad,
                "GB/s",
                T(fmt::format("PTX-ядро triad a = b + s·c над float4, {} МиБ на массив, 2 чтения + 1 запись, медиана {} замеров",
                              m.mib, m.sm_triad.value("repeats", 0)),
                  fmt::format("PTX triad a = b + s·c on float4, {} MiB per array, 2 reads + 1 write, median of {}",
                              m.mib, m.sm_triad.value("repeats", 0)))});
    result.measurements.back().spread = TimingSpread(*m.triad, m.sm_triad);
  }
}

// The figure the card is judged by: the SM copy; the driver's copy only where no kernel ran.
std::optional<double> Judged(const GpuMemory& m) { return m.kernel ? m.kernel : m.driver; }

// WARN when the judged figure is further below the band than the course's normal deviation.
void JudgeAgainstReference(const GpuMemory& m, CheckResult& result) {
  const std::optional<double> judged = Judged(m);
  if (!judged || !m.reference || !(*judged < m.reference->band.low * (1 - kBelowBandWarn))) return;
  const int below = static_cast<int>(std::lround((1 - *judged / m.reference->band.low) * 100));
  SetWarn(result, T(fmt::format("{}: память {} ГБ/с ({}), на {}% ниже ориентира {} (паспорт {} × 80–90 %)", m.gpu,
                                Figure(*judged), m.kernel ? "SM-копирование" : "копирование драйвера", below,
                                BandCell(m.reference), Figure(m.reference->datasheet_gbps)),
                    fmt::format("{}: memory {} GB/s ({}), {}% below the reference {} (datasheet {} × 80–90 %)", m.gpu,
                                Figure(*judged), m.kernel ? "SM copy" : "driver's copy", below, BandCell(m.reference),
                                Figure(m.reference->datasheet_gbps))));
  result.hint = T("проверьте частоту памяти и ограничения карты: nvidia-smi -q -d CLOCK,PERFORMANCE",
                  "check the card's memory clock and limits: nvidia-smi -q -d CLOCK,PERFORMANCE");
}

// The driver's copy far from the SM copy is how the driver copies on this card, not a fault: a note.
void NoteMethodsDiffer(const GpuMemory& m, Table& table) {
  if (!m.kernel || !m.driver || !(std::fabs(*m.driver - *m.kernel) > kMethodsDifferBy * *m.kernel)) return;
  const double driver = *m.driver, kernel = *m.kernel;
  const int percent = static_cast<int>(std::lround(std::fabs(driver / kernel - 1) * 100));
  const bool slower = driver < kernel;
  table.notes.push_back(T(fmt::format("{}: копирование драйвера (copy engine, cuMemcpyDtoDAsync) {} ГБ/с — на {}% {} "
                                      "SM-копирования {} ГБ/с. Так драйвер копирует на этой карте; память судится по "
                                      "SM-копированию. Копирования тензоров (copy_, .clone()) идут со скоростью драйвера.",
                                      m.gpu, Figure(driver), percent, slower ? "ниже" : "выше", Figure(kernel)),
                          fmt::format("{}: the driver's copy (copy engine, cuMemcpyDtoDAsync) {} GB/s is {}% {} than "
                                      "the SM copy {} GB/s. That is how the driver copies on this card; the memory is "
                                      "judged by the SM copy. Tensor copies (copy_, .clone()) run at the driver's speed.",
                                      m.gpu, Figure(driver), percent, slower ? "lower" : "higher", Figure(kernel))));
}

void AddRow(const GpuMemory& m, const std::vector<double>& together, Table& table) {
  const size_t i = static_cast<size_t>(m.index);
  const std::string concurrent = i < together.size() ? Figure(together[i]) : "—";
  table.AddRow({Text(std::to_string(m.index)), KernelCell(m.sm_copy), KernelCell(m.sm_triad),
                m.driver_copy.contains("error") ? T("ошибка", "error") : Text(m.driver ? Figure(*m.driver) : "—"),
                Text(concurrent), Text(BandCell(m.reference)), Text(m.mib)});
}

CheckResult RunMemoryBandwidthCheck(CheckContext& context) {
  GpuJobReply reply = RunGpuJobFor(context, kMemoryBandwidthCheck, "cuMemcpyDtoD + SM copy");
  if (reply.ending) return *reply.ending;
  const nlohmann::json& j = reply.payload;
  CheckResult result;
  result.outcome = Outcome::Pass;
  Table table = MemoryTable(j);
  std::vector<double> alone;
  std::vector<double> together = ConcurrentFigures(j.value("concurrent", nlohmann::json()));
  for (const nlohmann::json& g : j["gpus"]) {
    const GpuMemory m = ReadGpu(context, g);
    NoteFailures(m, result, table);
    AddMeasurements(m, result);
    if (const std::optional<double> judged = Judged(m)) alone.push_back(*judged);
    JudgeAgainstReference(m, result);
    NoteMethodsDiffer(m, table);
    AddRow(m, together, table);
  }
  result.tables.push_back(table);
  result.data["gpus"] = j["gpus"];
  if (j.contains("concurrent_method")) result.data["concurrent_method"] = j["concurrent_method"];
  result.data["spread"] = {{"alone", SpreadFraction(alone)}, {"together", SpreadFraction(together)}};
  if (!alone.empty())
    result.summary = Text(fmt::format("{} GB/s", Figure(*std::max_element(alone.begin(), alone.end()))));
  if (std::max(SpreadFraction(alone), SpreadFraction(together)) > kMemorySpreadWarn)
    SetWarn(result, T("память карт различается больше чем на 10%", "the cards' memory bandwidth differs by more than 10%"));
  return result;
}

}  // namespace

const GpuCheckSpec kMemoryBandwidthCheck = {
    .id = "gpu.memory_bandwidth",
    .section = "gpu",
    .title = T("Пропускная способность памяти GPU", "GPU memory bandwidth"),
    .quick = QuickMode::Shortened,
    .budget_s = 120,
    .job = kMemoryJob,
    .job_fn = MemoryJob,
    .run = RunMemoryBandwidthCheck,
    .reads = {&kInventoryCheck},
};

}  // namespace labcheck::gpu

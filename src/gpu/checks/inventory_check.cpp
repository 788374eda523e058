// gpu.inventory: every GPU, the driver, the libraries in use and the topology (docs/report-schema.md).
#include <cstdlib>
#include <filesystem>
#include <map>

#include <fmt/format.h>

#include "facts/statements.h"
#include "gpu/checks/gpu_check_list.h"
#include "gpu/checks/gpu_check_support.h"
#include "gpu/job_envelope.h"
#include "gpu/jobs/gpu_jobs.h"
#include "platform/library_search.h"

namespace labcheck::gpu {

namespace {

Text Cell(const nlohmann::json& value, const std::string& suffix = "") {
  if (value.is_null()) return Text("—");
  if (value.is_boolean()) return value.get<bool>() ? T("да", "yes") : T("нет", "no");
  if (value.is_number_float()) return Text(Figure(value.get<double>()) + suffix);
  if (value.is_number()) return Text(std::to_string(value.get<long long>()) + suffix);
  return Text(value.get<std::string>() + suffix);
}

Text PcieCell(const nlohmann::json& gen, const nlohmann::json& width) {
  if (gen.is_null() || width.is_null()) return Text("—");
  return Text(fmt::format("{}.0 x{}", gen.get<int>(), width.get<int>()));
}

// "in use", or why the file was skipped / left as an alternative (the job's note, both languages).
Text LibraryStatus(const nlohmann::json& lib) {
  const std::string status = lib.value("status", std::string("used"));
  const Text note = TextFromJson(lib.value("note", nlohmann::json(nullptr)));
  if (status != "used") return note.empty() ? Text(status) : note;
  const Text used = T("используется", "in use");
  if (note.empty()) return used;
  return T(used.ru + "; " + note.ru, used.en + "; " + note.en);
}

// The child's facts kept as they are in the check's data, and the GPU count.
void RecordFacts(const nlohmann::json& payload, CheckResult& result) {
  for (const char* key : {"gpus", "driver_version", "cuda_driver_version", "nccl_version", "libraries", "topology", "driver_state"})
    result.data[key] = payload.value(key, nlohmann::json(nullptr));
  result.data["simulated"] = payload.value("simulated", false);
  if (result.data["simulated"].get<bool>()) result.data["simulated_machine"] = payload.value("simulated_machine", std::string());
  result.Add({"gpu.count", T("Число GPU", "GPU count"), static_cast<double>(payload["gpus"].size()), "count",
              T("видит драйвер CUDA", "as the CUDA driver sees them")});
}

// A row and a memory measurement per GPU; `models` counts the cards of each name for the summary.
Table GpuTable(const nlohmann::json& gpus, CheckResult& result, std::map<std::string, int>& models) {
  Table table{T("Видеокарты", "GPUs"),
              {"#", T("Модель", "Model"), T("Память, ГиБ", "Memory, GiB"), "CC", "SM", "BF16", "FP8",
               T("PCIe сейчас", "PCIe now"), T("PCIe макс.", "PCIe max"), T("Лимит, Вт", "Power limit, W"),
               T("Темп., °C", "Temp, °C"), "ECC", T("Persistence", "Persistence")},
              {},
              {T("PCIe «сейчас» в простое часто ниже максимума: карта экономит энергию; под нагрузкой связь "
                 "проверяет замер CPU↔GPU.",
                 "PCIe \"now\" is often below the maximum at idle: the card saves power; the CPU↔GPU copy checks "
                 "the link under load.")}};
  for (const nlohmann::json& gpu : gpus) {
    const int i = gpu.value("index", 0);
    const double memory = gpu.value("memory_total_gib", 0.0);
    result.Add({fmt::format("gpu{}.memory_total_gib", i), T(fmt::format("GPU{}: память", i), fmt::format("GPU{}: memory", i)),
                memory, "GiB", T("cuDeviceTotalMem", "cuDeviceTotalMem")});
    ++models[gpu.value("name", std::string("?"))];
    table.AddRow({Text(std::to_string(i)), Cell(gpu["name"]), Text(Figure(memory)),
                  Text(fmt::format("{}.{}", gpu.value("cc_major", 0), gpu.value("cc_minor", 0))), Cell(gpu["sm_count"]),
                  Cell(gpu["bf16"]), Cell(gpu["fp8"]), PcieCell(gpu["pcie_gen_current"], gpu["pcie_width_current"]),
                  PcieCell(gpu["pcie_gen_max"], gpu["pcie_width_max"]), Cell(gpu["power_limit_w"]),
                  Cell(gpu["temperature_c"]), Cell(gpu["ecc"]), Cell(gpu["persistence"])});
  }
  return table;
}

// The notes under the libraries: a cuBLASLt passed over, and each library that failed to load.
void NoteLibraryProblems(const CheckContext& context, const nlohmann::json& payload, Table& libraries) {
  for (const nlohmann::json& p : payload.value("cublaslt_passed_over", nlohmann::json::array())) {
    const auto cc = [&](const char* key) { return fmt::format("{}.{}", p.value(key, 0) / 10, p.value(key, 0) % 10); };
    const std::string file = p.value("file", std::string());
    const int major = p.value("library_major", 0);
    libraries.notes.push_back(
        T(fmt::format("cuBLASLt: {} пропущена — в cuBLASLt {} нет ядер для compute capability {} (нужна {} или новее); "
                      "взята следующая найденная",
                      file, major, cc("compute_capability"), cc("min_compute_capability")),
          fmt::format("cuBLASLt: {} passed over — cuBLASLt {} has no kernels for compute capability {} (it needs {} or "
                      "newer); the next one found is used",
                      file, major, cc("compute_capability"), cc("min_compute_capability"))));
  }
  if (!payload.value("cublaslt_error", std::string()).empty())
    libraries.notes.push_back(Text("cuBLASLt: " + payload["cublaslt_error"].get<std::string>()));
  if (payload.contains("nccl_error")) libraries.notes.push_back(Text("NCCL: " + payload["nccl_error"].get<std::string>()));
  if (!payload.value("nvml_error", std::string()).empty())
    libraries.notes.push_back(Text("NVML: " + payload["nvml_error"].get<std::string>()));
  // The search went on without the wheels' folders (nvidia-cublas, nvidia-nccl): say why, since a
  // library "not found" above may be sitting in them.
  if (const probes::SitePackages site = SitePackagesFor(context); site.unknown)
    libraries.notes.push_back(T("site-packages Python не просмотрены: " + site.unknown->ru,
                                "Python's site-packages were not searched: " + site.unknown->en));
}

// Where a library was found, as the table says it: the child job's origin names (OriginName) are
// data, compared by the checks; the reader gets them in the report's language.
Text OriginCell(const nlohmann::json& origin) {
  const std::string name = origin.is_string() ? origin.get<std::string>() : "";
  if (name == OriginName(LibraryOrigin::LoaderCache)) return T("кэш загрузчика (ldconfig)", "loader cache (ldconfig)");
  if (name == OriginName(LibraryOrigin::ToolkitRoot)) return T("CUDA Toolkit", "CUDA toolkit");
  if (name == OriginName(LibraryOrigin::DriverFolder)) return T("папка драйвера", "driver folder");
  return Cell(origin);
}

Table LibraryTable(const CheckContext& context, const nlohmann::json& payload) {
  Table libraries{T("Библиотеки NVIDIA", "NVIDIA libraries"),
                  {T("Библиотека", "Library"), T("Версия", "Version"), T("Файл", "File"), T("Где найдена", "Found via"),
                   T("Состояние", "Status")}};
  for (const nlohmann::json& lib : payload.value("libraries", nlohmann::json::array()))
    libraries.AddRow({Cell(lib["name"]), Cell(lib["version"]), Cell(lib["path"]), OriginCell(lib["origin"]), LibraryStatus(lib)});
  NoteLibraryProblems(context, payload, libraries);
  return libraries;
}

// The libcuda.so.1 that other programs of this shell load: the first one in the loader's own
// order (LD_LIBRARY_PATH, then the loader's cache), where lab_check's search starts too. When
// lab_check refused it and went on to a later file, PyTorch and every other CUDA program still
// get the refused one and see no GPU: the row of that file, else null.
const nlohmann::json* DriverOthersLoadRefused(const nlohmann::json& libraries) {
  if (!libraries.is_array()) return nullptr;
  for (const nlohmann::json& lib : libraries) {
    if (lib.value("name", std::string()) != "CUDA driver") continue;
    if (std::filesystem::path(lib.value("path", std::string())).filename() != "libcuda.so.1") continue;
    const std::string origin = lib.value("origin", std::string());
    const bool loaders_own = origin == OriginName(LibraryOrigin::LdLibraryPath) || origin == OriginName(LibraryOrigin::LoaderCache);
    return loaders_own && lib.value("status", std::string("used")) == "skipped" ? &lib : nullptr;
  }
  return nullptr;
}

// A WARN naming that file, why it was refused, and how to take it out of other programs' way.
void WarnDriverOthersLoad(const nlohmann::json& libraries, CheckResult& result) {
  const nlohmann::json* refused = DriverOthersLoadRefused(libraries);
  if (refused == nullptr) return;
  const std::string file = refused->value("path", std::string());
  const Text why = TextFromJson(refused->value("note", nlohmann::json(nullptr)));
  const std::string folder = std::filesystem::path(file).parent_path().string();
  const bool from_path = refused->value("origin", std::string()) == OriginName(LibraryOrigin::LdLibraryPath);
  result.outcome = Outcome::Warn;
  result.reason = T(fmt::format("{} — первая libcuda.so.1 для других программ — не работает ({}); lab_check взял другую, "
                                "а PyTorch в этой же оболочке GPU не увидит",
                                file, why.ru),
                    fmt::format("{}, the libcuda.so.1 other programs load first, is refused ({}); lab_check took "
                                "another one, but PyTorch in this same shell will see no GPU",
                                file, why.en));
  result.hint = from_path ? T(fmt::format("уберите {} из LD_LIBRARY_PATH (и из ~/.bashrc, если он задан там)", folder),
                              fmt::format("remove {} from LD_LIBRARY_PATH (and from ~/.bashrc if it is set there)", folder))
                          : T(fmt::format("уберите {} из /etc/ld.so.conf.d/*.conf и выполните sudo ldconfig", folder),
                              fmt::format("remove {} from /etc/ld.so.conf.d/*.conf and run sudo ldconfig", folder));
  result.data["driver_refused_for_others"] = file;
}

Table TopologyTable(const nlohmann::json& topology) {
  Table matrix{T("Топология (как nvidia-smi topo -m)", "Topology (as nvidia-smi topo -m)"), {""}};
  for (const auto& label : topology["labels"]) matrix.columns.push_back(Cell(label));
  for (size_t r = 0; r < topology["matrix"].size(); ++r) {
    std::vector<Text> row = {Cell(topology["labels"][r])};
    for (const auto& cell : topology["matrix"][r]) row.push_back(Cell(cell));
    matrix.AddRow(row);
  }
  matrix.notes.push_back(T("NV# — NVLink (# линков); PIX/PXB — через PCIe-коммутатор(ы); PHB — через мост "
                           "процессора; NODE — в пределах NUMA-узла; SYS — между сокетами.",
                           "NV# — NVLink (# links); PIX/PXB — through PCIe switch(es); PHB — through the CPU's host "
                           "bridge; NODE — within a NUMA node; SYS — across sockets."));
  return matrix;
}

Text Summary(const nlohmann::json& payload, const std::map<std::string, int>& models, bool simulated) {
  std::string names;
  for (const auto& [name, count] : models) names += (names.empty() ? "" : ", ") + fmt::format("{}× {}", count, name);
  const std::string driver =
      payload.value("driver_version", nlohmann::json("")).is_string() ? payload.value("driver_version", std::string()) : "";
  const std::string cuda = payload.value("cuda_driver_version", std::string());
  const Text summary = T(fmt::format("{}; драйвер {}, CUDA {}", names, driver.empty() ? "?" : driver, cuda),
                         fmt::format("{}; driver {}, CUDA {}", names, driver.empty() ? "?" : driver, cuda));
  // The terminal shows only this line; it must not pass the simulator's cards off as real ones.
  if (!simulated) return summary;
  return T("СИМУЛЯЦИЯ (tests/sim), не настоящие карты: " + summary.ru,
           "SIMULATED (tests/sim), not real GPUs: " + summary.en);
}

// What the report's facts compare CUDA's cards with: NVML's list and the variable lab_check was
// started with (its children, and PyTorch in this shell, inherit it).
void RecordDriverView(const nlohmann::json& payload, CheckResult& result) {
  result.data["nvml_gpus"] = payload.is_object() ? payload.value("nvml_gpus", nlohmann::json(nullptr)) : nlohmann::json(nullptr);
  // Where CUDA failed, NVML's driver version is the only one there is.
  if (!result.data.contains("driver_version") && payload.is_object() && payload.value("driver_version", nlohmann::json()).is_string())
    result.data["driver_version"] = payload["driver_version"];
  const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
  result.data["cuda_visible_devices"] = visible != nullptr ? nlohmann::json(visible) : nlohmann::json(nullptr);
}

// Cards the driver has and CUDA does not see are a WARN that names why (the variable) and the fix,
// never "no GPU": facts/statements.h words it, for this check and every later one that refers to it.
void WarnHiddenCards(CheckResult& result) {
  const facts::CardFacts cards = facts::ReadCardFacts(&result);
  const std::optional<Text> fewer = facts::WhyFewerGpus(cards);
  if (!fewer || !cards.visible_devices) return;
  if (result.outcome == Outcome::Pass || result.outcome == Outcome::Skip) {
    result.outcome = Outcome::Warn;
    result.reason = *fewer;
    result.hint = facts::FixFewerGpus(cards);
  } else {
    result.reason = T(result.reason.ru + "; " + fewer->ru, result.reason.en + "; " + fewer->en);
  }
  if (result.summary.empty()) result.summary = result.reason;
}

// CUDA found no card where NVML lists some, with no variable to blame: "the driver sees no GPU"
// would be false; the reason says what CUDA and NVML each see, the verdict and hint stay cuInit's.
void NoCudaCardWhereNvmlHasSome(CheckResult& result) {
  const facts::CardFacts cards = facts::ReadCardFacts(&result);
  // Only NVML's own list counts here: GPUs seen on the PCI bus alone are the driver's state, which
  // its own reason says (driver_state.h).
  if (cards.visible_devices || !cards.nvml || cards.nvml->empty() || result.outcome != Outcome::Skip) return;
  result.reason = T(fmt::format("CUDA не видит ни одной из {} GPU, которые перечисляет NVML ({})", cards.nvml->size(), result.error),
                    fmt::format("CUDA sees none of the {} GPUs NVML lists ({})", cards.nvml->size(), result.error));
}

CheckResult RunInventoryCheck(CheckContext& context) {
  context.Progress(-1, "NVIDIA driver, NVML");
  ChildJobOutcome outcome = RunGpuJob(context, kInventoryCheck.job);
  if (std::optional<CheckResult> ending = EnvelopeProblem(kInventoryCheck.id, outcome)) {
    if (ending->outcome == Outcome::NotRun) return *ending;
    RecordDriverView(outcome.result.ok() ? *outcome.result : nlohmann::json(), *ending);
    NoCudaCardWhereNvmlHasSome(*ending);
    WarnHiddenCards(*ending);
    return *ending;
  }
  const nlohmann::json& j = *outcome.result;

  CheckResult result;
  result.outcome = Outcome::Pass;
  RecordFacts(j, result);
  RecordDriverView(j, result);
  const nlohmann::json& gpus = j["gpus"];
  std::map<std::string, int> models;
  result.tables.push_back(GpuTable(gpus, result, models));
  result.tables.push_back(LibraryTable(context, j));
  const nlohmann::json& topology = j["topology"];
  if (gpus.size() > 1 && topology.is_object()) result.tables.push_back(TopologyTable(topology));
  WarnDriverOthersLoad(j.value("libraries", nlohmann::json::array()), result);
  WarnHiddenCards(result);
  result.summary = Summary(j, models, result.data["simulated"].get<bool>());
  return result;
}

}  // namespace

// Every check after the inventory reads it (which cards, which libraries).
const GpuCheckSpec kInventoryCheck = {
    .id = "gpu.inventory",
    .section = "gpu",
    .title = T("Видеокарты и драйвер", "GPUs and driver"),
    .quick = QuickMode::Full,
    .budget_s = 60,
    .job = kInventoryJob,
    .job_fn = InventoryJob,
    .run = RunInventoryCheck,
};

}  // namespace labcheck::gpu

#include "env/system_check.h"

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/text_util.h"
#include "core/units.h"

namespace labcheck::env {
namespace {

using nlohmann::json;

Text RoleName(const DiskFacts& disk, const HfCacheLocation& hf) {
  if (disk.role == DiskRole::CurrentDirectory) {
    return T("Текущая папка (курс, датасеты, чекпоинты)",
             "Current directory (course, datasets, checkpoints)");
  }
  return T("Кэш моделей Hugging Face (" + hf.source + ")",
           "Hugging Face model cache (" + hf.source + ")");
}

const char* RoleId(DiskRole role) {
  return role == DiskRole::CurrentDirectory ? "current_directory" : "hf_cache";
}

json CpuData(const SystemFacts& facts) {
  if (!facts.cpu) return {{"error", facts.cpu_error}};
  const CpuInfo& cpu = *facts.cpu;
  auto optional_mhz = [](const std::optional<double>& mhz) { return mhz ? json(*mhz) : json(nullptr); };
  return {{"model", cpu.model},           {"vendor", cpu.vendor},
          {"sockets", cpu.sockets},       {"cores", cpu.cores},
          {"threads", cpu.threads},       {"numa_nodes", cpu.numa_nodes},
          {"max_mhz", optional_mhz(cpu.max_mhz)},
          {"current_mhz", optional_mhz(cpu.current_mhz)},
          {"virtualized", cpu.virtualized()}};
}

void AddCpuRows(const SystemFacts& facts, Table& table) {
  if (!facts.cpu) {
    table.AddRow({T("Процессор", "CPU"), Append(T("не удалось прочитать: ", "could not read: "), facts.cpu_error)});
    return;
  }
  const CpuInfo& cpu = *facts.cpu;
  table.AddRow({T("Процессор", "CPU"), cpu.model});
  table.AddRow({T("Сокеты / ядра / потоки", "Sockets / cores / threads"),
                fmt::format("{} / {} / {}", cpu.sockets, cpu.cores, cpu.threads)});
  table.AddRow({T("NUMA-узлы", "NUMA nodes"), std::to_string(cpu.numa_nodes)});
  if (cpu.max_mhz) {
    table.AddRow({T("Частота (максимальная)", "Clock (maximum)"), Fixed(*cpu.max_mhz, 0) + " MHz"});
  } else if (cpu.current_mhz) {
    table.AddRow({T("Частота (текущая, из /proc/cpuinfo)", "Clock (current, from /proc/cpuinfo)"),
                  Fixed(*cpu.current_mhz, 0) + " MHz"});
  }
  if (cpu.virtualized()) {
    table.AddRow({T("Виртуальная машина", "Virtual machine"),
                  T("да: ядра и частоты — те, что показывает гипервизор",
                    "yes: cores and clocks are what the hypervisor shows")});
  }
}

// What the checks found wrong and what to do about it; the outcome is WARN when anything is.
struct Findings {
  std::vector<Text> warnings;
  std::vector<Text> hints;
  void Add(Text warning, Text hint) {
    warnings.push_back(std::move(warning));
    hints.push_back(std::move(hint));
  }
};

// The RAM row; its figures for the JSON (null when /proc/meminfo could not be read).
json AddMemoryRow(const SystemFacts& facts, Table& system) {
  if (!facts.memory) {
    system.AddRow({T("Оперативная память", "RAM"),
                   Append(T("не удалось прочитать: ", "could not read: "), facts.memory_error)});
    return nullptr;
  }
  Text available = facts.memory->available_bytes
                       ? T(", доступно " + GiBText(*facts.memory->available_bytes),
                           ", " + GiBText(*facts.memory->available_bytes) + " available")
                       : Text();
  system.AddRow({T("Оперативная память", "RAM"),
                 T(GiBText(facts.memory->total_bytes) + available.ru,
                   GiBText(facts.memory->total_bytes) + available.en)});
  return {{"total_gib", BytesToGiB(facts.memory->total_bytes)},
          {"available_gib", facts.memory->available_bytes
                                ? json(BytesToGiB(*facts.memory->available_bytes))
                                : json(nullptr)}};
}

// The /dev/shm row, a finding when it is missing or small; its size for the JSON.
json AddShmRow(const SystemFacts& facts, Table& system, Findings& findings) {
  json shm_gib = nullptr;
  if (facts.shm) {
    shm_gib = BytesToGiB(facts.shm->total_bytes);
    system.AddRow({"/dev/shm", T(GiBText(facts.shm->total_bytes) + ", свободно " +
                                     GiBText(facts.shm->free_bytes),
                                 GiBText(facts.shm->total_bytes) + ", " +
                                     GiBText(facts.shm->free_bytes) + " free")});
  } else {
    system.AddRow({"/dev/shm", Append(T("нет: ", "missing: "), facts.shm_error)});
  }
  if (!facts.shm || facts.shm->total_bytes < kMinShmBytes) {
    std::string size = facts.shm ? GiBText(facts.shm->total_bytes) : "0";
    findings.Add(T("/dev/shm " + size + " (нужно от 1 GiB): NCCL и воркеры DataLoader "
                   "обмениваются тензорами через неё и падают, когда места нет",
                   "/dev/shm is " + size + " (1 GiB or more needed): NCCL and DataLoader "
                   "workers share tensors through it and crash when it runs out"),
                 T("В Docker запускайте контейнер с --ipc=host или --shm-size=16g; "
                   "без Docker: sudo mount -o remount,size=16G /dev/shm",
                   "In Docker start the container with --ipc=host or --shm-size=16g; "
                   "without Docker: sudo mount -o remount,size=16G /dev/shm"));
  }
  return shm_gib;
}

// OS, kernel, glibc and CPU; RAM and /dev/shm follow.
Table SystemTable(const SystemFacts& facts) {
  Table system;
  system.title = T("Система", "System");
  system.columns = {T("Что", "Item"), T("Значение", "Value")};
  system.AddRow({T("ОС", "OS"), facts.os.name});
  system.AddRow({T("Ядро", "Kernel"), facts.os.kernel + " (" + facts.os.machine + ")"});
  system.AddRow({"glibc", facts.os.glibc});
  AddCpuRows(facts, system);
  return system;
}

// One folder's row and JSON entry; a finding when the Hugging Face cache is short of space.
void AddDisk(const DiskFacts& disk, const HfCacheLocation& hf, Table& disks, json& disks_data, Findings& findings) {
  if (!disk.space) {
    disks.AddRow({RoleName(disk, hf), disk.path, T("ошибка", "error"), disk.error});
    disks_data.push_back({{"role", RoleId(disk.role)}, {"path", disk.path}, {"error", disk.error}});
    return;
  }
  const DiskSpace& space = *disk.space;
  disks.AddRow({RoleName(disk, hf), disk.path, GiBText(space.free_bytes), GiBText(space.total_bytes)});
  disks_data.push_back({{"role", RoleId(disk.role)}, {"path", disk.path},
                        {"exists", space.exists}, {"measured_path", space.measured_path},
                        {"free_gib", BytesToGiB(space.free_bytes)},
                        {"total_gib", BytesToGiB(space.total_bytes)}});
  if (!space.exists) {
    disks.notes.push_back(T(disk.path + " ещё нет; место измерено в " + space.measured_path +
                                ", где папка появится.",
                            disk.path + " does not exist yet; space was measured at " +
                                space.measured_path + ", where it will be created."));
  }
  if (disk.role == DiskRole::HfCache && space.free_bytes < kMinHfCacheFreeBytes) {
    std::string free_gb = Fixed(space.free_bytes / kBytesPerGB) + " GB";
    findings.Add(T("для кэша Hugging Face свободно " + free_gb + " (меньше 50 GB): "
                   "одна модель 7–14B в BF16 занимает 14–28 GB",
                   "only " + free_gb + " free for the Hugging Face cache (under 50 GB): "
                   "one 7–14B model in BF16 takes 14–28 GB"),
                 T("Освободите место или перенесите кэш на большой диск: "
                   "export HF_HOME=/путь/на/большом/диске/huggingface",
                   "Free some space or move the cache to a larger disk: "
                   "export HF_HOME=/path/on/a/large/disk/huggingface"));
  }
}

Table DisksTable(const SystemFacts& facts, json& disks_data, Findings& findings) {
  Table disks;
  disks.title = T("Место на дисках", "Disk space");
  disks.columns = {T("Для чего", "Used for"), T("Путь", "Path"), T("Свободно", "Free"),
                   T("Всего", "Total")};
  disks.notes.push_back(T("Свободно — сколько может записать обычный пользователь (statvfs: "
                          "f_bavail × f_frsize); GiB = 2^30 байт.",
                          "Free is what an unprivileged user can still write (statvfs: "
                          "f_bavail × f_frsize); GiB = 2^30 bytes."));
  for (const DiskFacts& disk : facts.disks) AddDisk(disk, facts.hf_cache, disks, disks_data, findings);
  if (facts.disks.size() == 2 && facts.disks[0].space && facts.disks[1].space &&
      facts.disks[0].space->device == facts.disks[1].space->device) {
    disks.notes.push_back(T("Обе папки на одной файловой системе: место у них общее.",
                            "Both folders are on one file system: they share its free space."));
  }
  return disks;
}

Text SystemSummary(const SystemFacts& facts) {
  std::string cpu_line = facts.cpu ? facts.cpu->model : "?";
  std::string cores_ru, cores_en;
  if (facts.cpu) {
    int cores = facts.cpu->cores, threads = facts.cpu->threads;
    cores_ru = fmt::format("{} {} / {} {}", cores, RuPlural(cores, "ядро", "ядра", "ядер"), threads,
                           RuPlural(threads, "поток", "потока", "потоков"));
    cores_en = fmt::format("{} cores / {} threads", cores, threads);
  }
  std::string ram = facts.memory ? "RAM " + GiBText(facts.memory->total_bytes) : "RAM ?";
  return T(fmt::format("{}; {}, {}; {}", facts.os.name, cpu_line, cores_ru, ram),
           fmt::format("{}; {}, {}; {}", facts.os.name, cpu_line, cores_en, ram));
}

}  // namespace

CheckResult AssessSystem(const SystemFacts& facts) {
  CheckResult result;
  result.id = "env.system";
  result.section = "environment";
  result.title = T("Система", "System");
  Findings findings;
  Table system = SystemTable(facts);
  const json memory_data = AddMemoryRow(facts, system);
  const json shm_gib = AddShmRow(facts, system, findings);
  json disks_data = json::array();
  Table disks = DisksTable(facts, disks_data, findings);
  result.tables = {std::move(system), std::move(disks)};
  result.data = {{"os", facts.os.name},         {"kernel", facts.os.kernel},
                 {"machine", facts.os.machine}, {"glibc", facts.os.glibc},
                 {"cpu", CpuData(facts)},       {"memory", memory_data},
                 {"disks", disks_data},         {"shm_gib", shm_gib},
                 {"hf_cache_source", facts.hf_cache.source}};
  result.summary = SystemSummary(facts);
  result.outcome = findings.warnings.empty() ? Outcome::Pass : Outcome::Warn;
  result.reason = Join(findings.warnings, "; ");
  result.hint = Join(findings.hints, " ");
  return result;
}

}  // namespace labcheck::env

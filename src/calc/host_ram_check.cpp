#include "calc/host_ram_check.h"

#include <fmt/format.h>

#include "calc/byte_units.h"

namespace labcheck::calc {
namespace {

std::optional<double> MeasuredRamBytes(const MachineReport* report) {
  if (!report || !report->ram_total_gib) return std::nullopt;
  return *report->ram_total_gib * kBytesPerGiB;
}

}  // namespace

std::optional<Text> HostRamVerdict(const TrainingMemory& m, const MachineReport* report) {
  if (m.cpu_bytes <= 0) return std::nullopt;
  const std::optional<double> ram = MeasuredRamBytes(report);
  if (!ram) {
    const std::string where = report ? report->path : "journal/lab-report.json";
    return T(fmt::format("RAM этой машины в отчёте ({}) не измерена: запустите lab_check, чтобы сравнить с нужными {}.", where, FormatGiBAndGB(m.host_ram_bytes)),
             fmt::format("This machine's RAM is not in the report ({}): run lab_check to compare it with the {} needed.", where, FormatGiBAndGB(m.host_ram_bytes)));
  }
  const std::string measured = FormatGiBAndGB(*ram);
  const std::string when = report->finished_at.empty() ? report->path : fmt::format("{}, {}", report->path, report->finished_at);
  if (*ram < m.host_ram_bytes) {
    return T(fmt::format("Отчёт ({}) измерил на этой машине {} RAM: меньше, чем нужно под выгруженное состояние ({}). Так не запустится.", when, measured, FormatGiBAndGB(m.host_ram_bytes)),
             fmt::format("The report ({}) measured {} of RAM on this machine: less than the offloaded state needs ({}). This will not run.", when, measured, FormatGiBAndGB(m.host_ram_bytes)));
  }
  if (*ram < m.host_ram_planned_bytes) {
    return T(fmt::format("Отчёт ({}) измерил на этой машине {} RAM: состояние помещается, запас ×1.5 ({}) — нет; процессам и загрузке чекпойнта может не хватить.", when, measured, FormatGiBAndGB(m.host_ram_planned_bytes)),
             fmt::format("The report ({}) measured {} of RAM on this machine: the state fits, the 1.5x margin ({}) does not; the processes and checkpoint loading may not.", when, measured, FormatGiBAndGB(m.host_ram_planned_bytes)));
  }
  return T(fmt::format("Отчёт ({}) измерил на этой машине {} RAM: хватает и с запасом ×1.5 ({}).", when, measured, FormatGiBAndGB(m.host_ram_planned_bytes)),
           fmt::format("The report ({}) measured {} of RAM on this machine: enough, with the 1.5x margin ({}) too.", when, measured, FormatGiBAndGB(m.host_ram_planned_bytes)));
}

nlohmann::json HostRamReportJson(const TrainingMemory& m, const MachineReport* report) {
  if (m.cpu_bytes <= 0) return nullptr;
  const std::optional<double> ram = MeasuredRamBytes(report);
  return {{"report", report ? nlohmann::json(report->path) : nlohmann::json(nullptr)},
          {"measured_total", ram ? BytesJson(*ram) : nlohmann::json(nullptr)},
          {"fits", ram ? nlohmann::json(*ram >= m.host_ram_bytes) : nlohmann::json(nullptr)},
          {"fits_with_margin", ram ? nlohmann::json(*ram >= m.host_ram_planned_bytes) : nlohmann::json(nullptr)}};
}

}  // namespace labcheck::calc

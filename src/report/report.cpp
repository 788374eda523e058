#include "report/report.h"

namespace labcheck {

const CheckResult* Report::FindCheck(const std::string& id) const {
  for (const auto& c : checks) {
    if (c.id == id) return &c;
  }
  return nullptr;
}

const Measurement* Report::FindMeasurement(const std::string& key) const {
  for (const auto& c : checks) {
    if (const Measurement* m = c.Find(key)) return m;
  }
  return nullptr;
}

const ReportSection* Report::FindSection(const std::string& id) const {
  for (const auto& s : sections) {
    if (s.id == id) return &s;
  }
  return nullptr;
}

std::optional<Notice> SimulatedMachineNotice(const Report& report) {
  const CheckResult* inventory = report.FindCheck("gpu.inventory");
  if (inventory == nullptr || !inventory->data.is_object() || !inventory->data.value("simulated", false)) return std::nullopt;
  const std::string machine = inventory->data.value("simulated_machine", std::string());
  return Notice{T("Симулированная машина (LABCHECK_SIM_MACHINE), не настоящие видеокарты.",
                  "Simulated machine (LABCHECK_SIM_MACHINE), not real GPUs."),
                T("Цифры GPU взяты из профиля тестового симулятора: " + machine + ".",
                  "The GPU figures come from the test simulator's profile: " + machine + ".")};
}

}  // namespace labcheck

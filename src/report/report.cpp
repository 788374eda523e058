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

}  // namespace labcheck

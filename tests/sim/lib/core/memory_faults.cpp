#include "core/memory_faults.h"

#include <cstdlib>
#include <map>
#include <mutex>
#include <string>

#include "core/profile.h"

namespace nvsim {

namespace {

std::mutex& FaultsLock() {
  static std::mutex mutex;
  return mutex;
}

std::optional<double> NumberIfGiven(const json& cell, const char* key) {
  auto it = cell.find(key);
  if (it == cell.end() || !it->is_number()) return std::nullopt;
  return it->get<double>();
}

FaultCell ReadCell(const json& j) {
  FaultCell c;
  c.offset = static_cast<uint64_t>(j.value("offset_bytes", 0.0));
  c.stride = static_cast<uint64_t>(j.value("stride_bytes", 0.0));
  c.bit = j.value("bit", 0);
  c.stuck = j.value("stuck", 1) != 0 ? 1 : 0;
  c.after_s = NumberIfGiven(j, "after_s");
  c.fade_s = NumberIfGiven(j, "fade_s");
  if (auto it = j.find("when_word"); it != j.end() && it->is_string()) {
    if (*it == "own_address") c.when_own_address = true;
    else c.when_word = std::strtoull(it->get<std::string>().c_str(), nullptr, 16);
  }
  if (auto it = j.find("ecc"); it != j.end() && it->is_string())
    c.ecc = *it == "uncorrected" ? FaultCell::Ecc::Uncorrected : *it == "corrected" ? FaultCell::Ecc::Corrected : FaultCell::Ecc::None;
  return c;
}

std::map<std::pair<int, bool>, uint64_t>& EccEventCounts() {
  static auto* events = new std::map<std::pair<int, bool>, uint64_t>();
  return *events;
}

}  // namespace

const std::vector<FaultCell>& FaultCells(int device) {
  static auto* cells = new std::map<int, std::vector<FaultCell>>();
  std::lock_guard<std::mutex> lock(FaultsLock());
  auto it = cells->find(device);
  if (it != cells->end()) return it->second;
  std::vector<FaultCell>& list = (*cells)[device];
  if (device >= 0 && device < static_cast<int>(Profile().gpus.size()))
    if (const json* given = Profile().gpus[device].At("faults/memory_cells"); given != nullptr && given->is_array())
      for (const json& cell : *given) list.push_back(ReadCell(cell));
  return list;
}

void AddEccEvents(int device, uint64_t corrected, uint64_t uncorrected) {
  std::lock_guard<std::mutex> lock(FaultsLock());
  EccEventCounts()[{device, false}] += corrected;
  EccEventCounts()[{device, true}] += uncorrected;
}

uint64_t EccEvents(int device, bool uncorrected) {
  std::lock_guard<std::mutex> lock(FaultsLock());
  auto it = EccEventCounts().find({device, uncorrected});
  return it == EccEventCounts().end() ? 0 : it->second;
}

}  // namespace nvsim

#include "core/heat.h"

#include <map>
#include <mutex>

namespace nvsim {

namespace {
std::mutex& HeatLock() {
  static std::mutex mutex;
  return mutex;
}
std::map<int, double>& WorkSeconds() {
  static std::map<int, double> work;
  return work;
}
}  // namespace

void AddWork(int device, double seconds) {
  std::lock_guard<std::mutex> lock(HeatLock());
  WorkSeconds()[device] += seconds;
}

double WorkSeconds(int device) {
  std::lock_guard<std::mutex> lock(HeatLock());
  auto it = WorkSeconds().find(device);
  return it == WorkSeconds().end() ? 0 : it->second;
}

bool Hot(const Gpu& g) {
  if (g.At("heat") == nullptr) return false;
  return WorkSeconds(g.index) >= g.Number("heat/after_s");
}

double HeatFactor(const Gpu& g) { return Hot(g) ? g.Number("heat/tflops_factor") : 1; }

}  // namespace nvsim

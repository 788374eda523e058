#include "core/heat.h"

#include <map>
#include <mutex>

namespace nvsim {

namespace {
std::mutex& HeatLock() {
  static std::mutex mutex;
  return mutex;
}
std::map<int, double>& WorkByDevice() {
  static std::map<int, double> work;
  return work;
}
}  // namespace

void AddWork(int device, double seconds) {
  std::lock_guard<std::mutex> lock(HeatLock());
  WorkByDevice()[device] += seconds;
}

double WorkSeconds(int device) {
  std::lock_guard<std::mutex> lock(HeatLock());
  auto it = WorkByDevice().find(device);
  return it == WorkByDevice().end() ? 0 : it->second;
}

bool Hot(const Gpu& g) {
  if (g.At("heat") == nullptr) return false;
  return WorkSeconds(g.index) >= g.Number("heat/after_s");
}

double HeatFactor(const Gpu& g) { return Hot(g) ? g.Number("heat/tflops_factor") : 1; }

}  // namespace nvsim

#include "core/devices.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>

namespace nvsim {

namespace {

std::mutex& DeviceLock() {
  static std::mutex mutex;
  return mutex;
}

// CUDA_VISIBLE_DEVICES as the driver reads it: indices or GPU-UUID prefixes, comma separated;
// the list ends at the first entry that names no GPU (CUDA C Programming Guide, "CUDA
// Environment Variables").
std::vector<int> ReadVisible() {
  const Machine& m = Profile();
  std::vector<int> order;
  for (const Gpu& g : m.gpus) order.push_back(g.index);
  const char* device_order = std::getenv("CUDA_DEVICE_ORDER");
  if (device_order != nullptr && std::string(device_order) == "PCI_BUS_ID")
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return m.gpus[a].bus_id < m.gpus[b].bus_id; });
  const char* env = std::getenv("CUDA_VISIBLE_DEVICES");
  if (env == nullptr) return order;
  std::vector<int> visible;
  std::stringstream list(env);
  std::string item;
  while (std::getline(list, item, ',')) {
    item.erase(0, item.find_first_not_of(" \t"));
    item.erase(item.find_last_not_of(" \t") + 1);
    int found = -1;
    if (!item.empty() && std::all_of(item.begin(), item.end(), ::isdigit)) {
      const size_t n = std::stoul(item);
      if (n < order.size()) found = order[n];
    } else if (item.rfind("GPU-", 0) == 0) {
      for (const Gpu& g : m.gpus)
        if (const json* uuid = g.At("uuid"); uuid != nullptr && uuid->is_string() && uuid->get<std::string>().rfind(item, 0) == 0)
          found = g.index;
    }
    if (found < 0 || std::find(visible.begin(), visible.end(), found) != visible.end()) break;
    visible.push_back(found);
  }
  return visible;
}

thread_local Context* current = nullptr;

struct Usage {
  size_t ours = 0;
};

std::map<int, Usage>& Used() {
  static auto* used = new std::map<int, Usage>();
  return *used;
}

size_t HeldByOthers(const Gpu& g) { return static_cast<size_t>(g.Number("memory_used_by_others_gib") * (1ull << 30)); }

}  // namespace

const std::vector<int>& VisibleDevices() {
  static const std::vector<int> visible = ReadVisible();
  return visible;
}

const Gpu* CudaGpu(int ordinal) {
  const auto& visible = VisibleDevices();
  if (ordinal < 0 || static_cast<size_t>(ordinal) >= visible.size()) return nullptr;
  return &Profile().gpus[visible[ordinal]];
}

Context& PrimaryContext(int device) {
  static auto* contexts = new std::map<int, std::unique_ptr<Context>>();
  std::lock_guard<std::mutex> lock(DeviceLock());
  auto& slot = (*contexts)[device];
  if (!slot) {
    slot = std::make_unique<Context>();
    slot->device = device;
    slot->peer_access.assign(Profile().gpus.size(), false);
  }
  return *slot;
}

Context* CurrentContext() { return current; }
void SetCurrentContext(Context* context) { current = context; }

Stream& DefaultStream(int device) {
  static auto* streams = new std::map<int, std::unique_ptr<Stream>>();
  std::lock_guard<std::mutex> lock(DeviceLock());
  auto& slot = (*streams)[device];
  if (!slot) {
    slot = std::make_unique<Stream>();
    slot->device = device;
    slot->legacy = true;
  }
  return *slot;
}

Stream* StreamFor(void* handle) {
  if (handle != nullptr) return static_cast<Stream*>(handle);
  if (current == nullptr) return nullptr;
  return &DefaultStream(current->device);
}

bool Reserve(int device, size_t bytes) {
  const Gpu& g = Profile().gpus[device];
  std::lock_guard<std::mutex> lock(DeviceLock());
  Usage& u = Used()[device];
  const size_t total = g.memory_bytes, others = HeldByOthers(g);
  if (u.ours + bytes + others > total) return false;
  const double cap_mib = g.NumberOr("alloc_fails_past_mib", -1);
  if (cap_mib >= 0 && u.ours + bytes > static_cast<size_t>(cap_mib * (1 << 20))) return false;
  u.ours += bytes;
  return true;
}

void Release(int device, size_t bytes) {
  std::lock_guard<std::mutex> lock(DeviceLock());
  Usage& u = Used()[device];
  u.ours -= std::min(u.ours, bytes);
}

size_t FreeBytes(int device) {
  const Gpu& g = Profile().gpus[device];
  std::lock_guard<std::mutex> lock(DeviceLock());
  const size_t used = Used()[device].ours + HeldByOthers(g);
  return used >= g.memory_bytes ? 0 : g.memory_bytes - used;
}

}  // namespace nvsim

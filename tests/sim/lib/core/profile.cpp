#include "core/profile.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <sstream>
#include <stdexcept>

namespace nvsim {

const json* JsonAt(const json& root, const char* path) {
  const json* node = &root;
  std::string_view rest(path);
  while (!rest.empty()) {
    const size_t slash = rest.find('/');
    const std::string key(rest.substr(0, slash));
    if (!node->is_object() || !node->contains(key)) return nullptr;
    node = &(*node)[key];
    if (slash == std::string_view::npos) break;
    rest.remove_prefix(slash + 1);
  }
  return node->is_null() ? nullptr : node;
}

const json* Gpu::At(const char* path) const { return JsonAt(spec, path); }

double Gpu::Number(const char* path, double fallback) const {
  const json* v = At(path);
  return v != nullptr && v->is_number() ? v->get<double>() : fallback;
}

bool Gpu::Flag(const char* path, bool fallback) const {
  const json* v = At(path);
  return v != nullptr && v->is_boolean() ? v->get<bool>() : fallback;
}

const json* Machine::At(const char* path) const { return JsonAt(raw, path); }

double Machine::Number(const char* path, double fallback) const {
  const json* v = At(path);
  return v != nullptr && v->is_number() ? v->get<double>() : fallback;
}

std::string Machine::String(const char* path, const std::string& fallback) const {
  const json* v = At(path);
  return v != nullptr && v->is_string() ? v->get<std::string>() : fallback;
}

std::string CanonicalBusId(const std::string& text) {
  unsigned domain = 0, bus = 0, device = 0, function = 0;
  char buffer[32];
  if (std::sscanf(text.c_str(), "%x:%x:%x.%x", &domain, &bus, &device, &function) == 4 ||
      (domain = 0, std::sscanf(text.c_str(), "%x:%x.%x", &bus, &device, &function) == 3)) {
    std::snprintf(buffer, sizeof buffer, "%04x:%02x:%02x.%x", domain, bus, device, function);
    return buffer;
  }
  return "";
}

namespace {

json ParseFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::stringstream text;
  text << in.rdbuf();
  return json::parse(text.str(), nullptr, /*allow_exceptions=*/true, /*ignore_comments=*/true);
}

// A profile may start from another ("base": "course-4x4080.json", same folder) and change only
// what differs; objects merge (RFC 7386 merge patch), arrays such as "gpus" are replaced.
json ParseProfile(const std::string& path, int depth = 0) {
  json raw = ParseFile(path);
  if (!raw.contains("base") || depth > 4) return raw;
  const std::string folder = path.find('/') == std::string::npos ? "." : path.substr(0, path.rfind('/'));
  const std::string base = raw["base"].get<std::string>();
  json merged = ParseProfile(base.rfind('/', 0) == 0 ? base : folder + "/" + base, depth + 1);
  raw.erase("base");
  merged.merge_patch(raw);
  return merged;
}

Machine Load() {
  Machine m;
  const char* path = std::getenv("LABCHECK_SIM_MACHINE");
  if (path == nullptr || path[0] == '\0') {
    m.error = "LABCHECK_SIM_MACHINE is not set: point it at a profile in tests/sim/machines/";
    return m;
  }
  m.path = path;
  try {
    m.raw = ParseProfile(path);
    const json defaults = m.raw.value("gpu_defaults", json::object());
    const json list = m.raw.value("gpus", json::array());
    for (size_t i = 0; i < list.size(); ++i) {
      Gpu g;
      g.index = static_cast<int>(i);
      g.spec = defaults;
      g.spec.merge_patch(list[i]);
      g.name = g.spec.value("name", std::string("NVIDIA Simulated GPU"));
      g.bus_id = CanonicalBusId(g.spec.value("pci_bus_id", ""));
      if (g.bus_id.empty()) {
        char fallback[32];
        std::snprintf(fallback, sizeof fallback, "0000:%02x:00.0", static_cast<unsigned>(i + 1));
        g.bus_id = fallback;
      }
      g.memory_bytes = static_cast<uint64_t>(g.Number("memory_gib", 16) * (1ull << 30));
      const std::string cc = g.spec.value("cc", std::string("8.0"));
      std::sscanf(cc.c_str(), "%d.%d", &g.cc_major, &g.cc_minor);
      m.gpus.push_back(std::move(g));
    }
    // NVML enumerates by PCI bus id unless a GPU names its own index.
    std::vector<int> order(m.gpus.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return m.gpus[a].bus_id < m.gpus[b].bus_id; });
    for (size_t rank = 0; rank < order.size(); ++rank) {
      Gpu& g = m.gpus[order[rank]];
      g.nvml_index = static_cast<int>(g.Number("nvml_index", static_cast<double>(rank)));
    }
    m.loaded = true;
  } catch (const std::exception& e) {
    m.error = std::string("machine profile ") + path + ": " + e.what();
  }
  if (!m.loaded) std::fprintf(stderr, "nvsim: %s\n", m.error.c_str());
  return m;
}

}  // namespace

const Machine& Profile() {
  static const Machine machine = Load();
  return machine;
}

}  // namespace nvsim

#include "core/profile.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <utility>

#include "core/profile_schema.h"

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

namespace {

// The value at `path` of `root` where `is` holds for it, else the default at `path` of `schema`.
template <class Is>
const json& Typed(const json& root, const json& schema, const char* path, Is is, const char* type) {
  if (const json* v = JsonAt(root, path); v != nullptr && is(*v)) return *v;
  if (const json* d = DefaultAt(schema, path); d != nullptr && is(*d)) return *d;
  std::fprintf(stderr, "nvsim: %s gives no %s default for \"%s\": read it with At()\n", kDefaultsFile, type, path);
  std::abort();
}

// For keys absent by default: the number the profile gives, else `absent`.
double NumberOr(const json& root, const json& schema, const char* path, double absent) {
  if (DefaultAt(schema, path) != nullptr) {
    std::fprintf(stderr, "nvsim: %s gives \"%s\" a default: read it with Number()\n", kDefaultsFile, path);
    std::abort();
  }
  const json* v = JsonAt(root, path);
  return v != nullptr && v->is_number() ? v->get<double>() : absent;
}

const json& GpuSchema() { return Defaults()["gpu_defaults"]; }

bool IsNumber(const json& v) { return v.is_number(); }
bool IsString(const json& v) { return v.is_string(); }
bool IsFlag(const json& v) { return v.is_boolean(); }

}  // namespace

const json* Gpu::At(const char* path) const { return JsonAt(spec, path); }
double Gpu::Number(const char* path) const { return Typed(spec, GpuSchema(), path, IsNumber, "number").get<double>(); }
double Gpu::NumberOr(const char* path, double absent) const {
  return nvsim::NumberOr(spec, GpuSchema(), path, absent);
}
bool Gpu::Flag(const char* path) const { return Typed(spec, GpuSchema(), path, IsFlag, "boolean").get<bool>(); }
std::string Gpu::String(const char* path) const {
  return Typed(spec, GpuSchema(), path, IsString, "string").get<std::string>();
}

const json* Machine::At(const char* path) const { return JsonAt(raw, path); }
double Machine::Number(const char* path) const { return Typed(raw, Defaults(), path, IsNumber, "number").get<double>(); }
double Machine::NumberOr(const char* path, double absent) const {
  return nvsim::NumberOr(raw, Defaults(), path, absent);
}
std::string Machine::String(const char* path) const {
  return Typed(raw, Defaults(), path, IsString, "string").get<std::string>();
}
bool Machine::Flag(const char* path) const { return Typed(raw, Defaults(), path, IsFlag, "boolean").get<bool>(); }

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
  try {
    return json::parse(text.str(), nullptr, /*allow_exceptions=*/true, /*ignore_comments=*/true);
  } catch (const json::exception& e) {
    throw std::runtime_error(path + ": " + e.what());
  }
}

// A profile may start from another ("base": "course-4x4080.json", same folder) and change only
// what differs. The files from the first base to the profile itself, "base" taken out, each
// checked against the defaults' list of keys (so the message names the file with the typo).
std::vector<json> Chain(const std::string& path) {
  std::vector<json> chain;
  std::string file = path;
  while (true) {
    if (chain.size() > 8) throw std::runtime_error("\"base\" chain longer than 8 files at " + file);
    json raw = ParseFile(file);
    if (!raw.is_object()) throw std::runtime_error(file + " is not a JSON object");
    std::string base;
    if (auto it = raw.find("base"); it != raw.end()) {
      if (!it->is_string()) throw std::runtime_error("\"base\" is not a file name in " + file);
      base = it->get<std::string>();
      raw.erase(it);
    }
    const std::vector<std::string> unknown = UnknownKeys(raw, Defaults());
    if (!unknown.empty()) {
      std::string keys;
      for (const std::string& key : unknown) keys += (keys.empty() ? "\"" : ", \"") + key + "\"";
      throw std::runtime_error("unknown key" + std::string(unknown.size() > 1 ? "s " : " ") + keys + " in " + file +
                               " (" + kDefaultsFile + " lists the keys a profile may give)");
    }
    chain.push_back(std::move(raw));
    if (base.empty()) break;
    const std::string folder = file.find('/') == std::string::npos ? "." : file.substr(0, file.rfind('/'));
    file = base.rfind('/', 0) == 0 ? base : folder + "/" + base;
  }
  std::reverse(chain.begin(), chain.end());
  return chain;
}

// Defaults, then the "base" chain, then the profile: objects merge (RFC 7386 merge patch),
// arrays such as "gpus" are replaced.
json Merged(const std::string& path) {
  json merged = DefaultValues(Defaults());
  for (const json& layer : Chain(path)) merged.merge_patch(layer);
  FillOptional(merged, Defaults());
  return merged;
}

// Keys whose value is one of a few names: another name is a typo or a value the real library does
// not have, and the profile does not load (as for an unknown key) instead of reading as a default.
// Recovery actions: nvml.h's nvmlDeviceGpuRecoveryAction_t (CUDA 13.3: NONE 0 … RECOVER_IMEX_DOMAIN
// 5); NVLink counters: nvmlNvLinkErrorCounter_t (DL_REPLAY, DL_RECOVERY, DL_CRC_FLIT, DL_CRC_DATA,
// DL_ECC_DATA).
void CheckNamedValues(const Gpu& g) {
  static const std::vector<std::string> kActions = {"none",          "gpu_reset",       "node_reboot",
                                                    "drain_p2p",     "drain_and_reset", "recover_imex_domain"};
  static const std::vector<std::string> kCounters = {"replay", "recovery", "crc_flit", "crc_data", "ecc_data"};
  auto check = [&](const json* v, const std::vector<std::string>& allowed, const std::string& where) {
    if (v == nullptr || (v->is_string() && std::find(allowed.begin(), allowed.end(), v->get<std::string>()) != allowed.end())) return;
    std::string names;
    for (const std::string& a : allowed) names += (names.empty() ? "" : ", ") + a;
    throw std::runtime_error("gpus[" + std::to_string(g.index) + "]/" + where + ": " + v->dump() + " is none of " + names);
  };
  check(g.At("health/recovery_action"), kActions, "health/recovery_action");
  if (const json* errors = g.At("health/nvlink_errors"); errors != nullptr && errors->is_array())
    for (size_t k = 0; k < errors->size(); ++k) {
      const json& e = (*errors)[k];
      check(e.contains("counter") ? &e["counter"] : nullptr, kCounters, "health/nvlink_errors[" + std::to_string(k) + "]/counter");
    }
}

void AddGpus(Machine& m) {
  const json* list = m.At("gpus");
  if (list == nullptr) return;  // "gpus": null took the defaults' empty list out again
  if (!list->is_array()) throw std::runtime_error("\"gpus\" is not a list");
  for (size_t i = 0; i < list->size(); ++i) {
    Gpu g;
    g.index = static_cast<int>(i);
    g.spec = m.raw["gpu_defaults"];
    g.spec.merge_patch((*list)[i]);
    FillOptional(g.spec, GpuSchema());
    g.name = g.String("name");
    const json* bus = g.At("pci_bus_id");
    g.bus_id = CanonicalBusId(bus != nullptr && bus->is_string() ? bus->get<std::string>() : "");
    if (g.bus_id.empty()) {
      char fallback[32];
      std::snprintf(fallback, sizeof fallback, "0000:%02x:00.0", static_cast<unsigned>(i + 1));
      g.bus_id = fallback;
    }
    CheckNamedValues(g);
    g.memory_bytes = static_cast<uint64_t>(g.Number("memory_gib") * (1ull << 30));
    std::sscanf(g.String("cc").c_str(), "%d.%d", &g.cc_major, &g.cc_minor);
    m.gpus.push_back(std::move(g));
  }
  // NVML enumerates by PCI bus id unless a GPU names its own index.
  std::vector<int> order(m.gpus.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return m.gpus[a].bus_id < m.gpus[b].bus_id; });
  for (size_t rank = 0; rank < order.size(); ++rank) {
    Gpu& g = m.gpus[order[rank]];
    g.nvml_index = static_cast<int>(g.NumberOr("nvml_index", static_cast<double>(rank)));
  }
}

}  // namespace

Machine LoadMachine(const std::string& path) {
  Machine m;
  m.path = path;
  try {
    m.raw = Merged(path);
    AddGpus(m);
    m.loaded = true;
  } catch (const std::exception& e) {
    m.gpus.clear();
    m.error = "machine profile " + path + ": " + e.what();
  }
  return m;
}

const Machine& Profile() {
  static const Machine machine = [] {
    const char* path = std::getenv("LABCHECK_SIM_MACHINE");
    if (path == nullptr || path[0] == '\0') {
      Machine none;
      none.error = "LABCHECK_SIM_MACHINE is not set: point it at a profile in tests/sim/machines/";
      return none;
    }
    Machine m = LoadMachine(path);
    if (!m.loaded) std::fprintf(stderr, "nvsim: %s\n", m.error.c_str());
    return m;
  }();
  return machine;
}

}  // namespace nvsim

#include "facts/run_facts.h"

#include "report/report.h"

namespace labcheck::facts {
namespace {

using nlohmann::json;

const json& Member(const json& object, const char* key) {
  static const json null;
  if (!object.is_object()) return null;
  auto it = object.find(key);
  return it == object.end() ? null : *it;
}

std::string StringMember(const json& object, const char* key) {
  const json& v = Member(object, key);
  return v.is_string() ? v.get<std::string>() : std::string();
}

// env.python's verdict on an interpreter that did not answer (probes/unresponsive.h): gone before
// its handshake, or hanging in `import torch`, or in its own start.
TorchState UnresponsiveState(const json& unresponsive) {
  if (!StringMember(unresponsive, "ended").empty()) return TorchState::InterpreterBroken;
  return StringMember(unresponsive, "stage") == "import torch" ? TorchState::ImportHangs : TorchState::InterpreterBroken;
}

// The build from env.python's data: torch_cuda "12.4" or null, torch_hip "6.1" or null. Reports of
// other versions (and hand-made ones) carry torch_cuda as a bool (available) or an object
// {available, device_count, version}: read too, the count as what torch saw.
void ReadBuild(const json& data, TorchFacts& t) {
  const json& tc = Member(data, "torch_cuda");
  std::string cuda = StringMember(data, "torch_cuda");
  const std::string hip = StringMember(data, "torch_hip");
  bool available = !cuda.empty();
  if (tc.is_boolean()) available = tc.get<bool>();
  if (tc.is_object()) {
    cuda = StringMember(tc, "version");
    available = Member(tc, "available").is_boolean() ? Member(tc, "available").get<bool>() : !cuda.empty();
    if (const json& n = Member(tc, "device_count"); n.is_number_integer()) t.sees = n.get<int>();
  }
  if (available) {
    t.state = TorchState::Cuda;
    t.cuda = cuda;
    t.build = Text("CUDA " + (cuda.empty() ? std::string("?") : cuda));
  } else if (!hip.empty()) {
    t.state = TorchState::NoCuda;
    t.build = T("сборка ROCm " + hip, "ROCm " + hip + " build");
  } else {
    t.state = TorchState::NoCuda;
    t.build = T("сборка только для CPU", "CPU-only build");
  }
}

// Whether torch is installed: env.python's own field, else (older reports) its version.
bool TorchInstalled(const json& data) {
  const json& flag = Member(data, "torch_installed");
  if (flag.is_boolean()) return flag.get<bool>();
  return Member(Member(data, "packages"), "torch").is_string();
}

void ReadTorchSeen(const json& seen, TorchFacts& t) {
  if (!seen.is_object() || !seen.contains("cuda_available")) return;
  const json& devices = Member(seen, "devices");
  t.sees = devices.is_array() ? static_cast<int>(devices.size()) : 0;
  t.cuda_error = StringMember(seen, "cuda_error");
}

std::vector<DriverGpu> ReadNvmlGpus(const json& list) {
  std::vector<DriverGpu> gpus;
  int position = 0;
  for (const json& g : list) {
    if (!g.is_object()) continue;
    const json& index = Member(g, "index");
    gpus.push_back({index.is_number_integer() ? index.get<int>() : position, StringMember(g, "name")});
    ++position;
  }
  return gpus;
}

// driver_state.h's DriverStateName.
DriverState DriverStateNamed(const std::string& name) {
  if (name == "running" || name == "loaded") return DriverState::Loaded;
  if (name == "module_not_loaded") return DriverState::NotLoaded;
  if (name == "version_mismatch") return DriverState::Mismatch;
  if (name == "no_gpu_on_bus") return DriverState::NoGpuOnBus;
  if (name == "not_installed") return DriverState::Absent;
  return DriverState::Unknown;
}

}  // namespace

int CardFacts::DriverCount() const {
  if (nvml) return static_cast<int>(nvml->size());
  if (cuda_ok && !visible_devices) return cuda_gpus;
  if (pci_gpus) return *pci_gpus;
  return cuda_ok ? cuda_gpus : 0;
}

std::optional<int> RunFacts::TorchCards() const {
  switch (torch.state) {
    case TorchState::Unknown: return std::nullopt;
    case TorchState::Cuda: return torch.sees ? *torch.sees : cards.cuda_gpus;
    default: return 0;
  }
}

TorchFacts ReadTorchFacts(const CheckResult* python, const json& torch_seen) {
  TorchFacts t;
  if (python == nullptr) return t;
  const json& data = python->data;
  t.python = StringMember(Member(data, "python"), "path");
  if (python->outcome == Outcome::Skip) {
    t.state = TorchState::NoInterpreter;
    return t;
  }
  const json& unresponsive = Member(data, "interpreter_unresponsive");
  if (unresponsive.is_object()) {
    t.python = t.python.empty() ? StringMember(unresponsive, "python") : t.python;
    t.state = UnresponsiveState(unresponsive);
    t.problem = python->reason;
    if (t.state == TorchState::ImportHangs) t.version = StringMember(Member(data, "packages"), "torch");
    return t;
  }
  if (python->outcome == Outcome::Fail || python->outcome == Outcome::NotRun || !Member(data, "packages").is_object()) {
    t.state = python->outcome == Outcome::NotRun ? TorchState::Unknown : TorchState::InterpreterBroken;
    t.problem = python->reason;
    return t;
  }
  if (!TorchInstalled(data)) {
    t.state = TorchState::Absent;
    return t;
  }
  t.version = StringMember(Member(data, "packages"), "torch");
  ReadBuild(data, t);
  ReadTorchSeen(torch_seen, t);
  return t;
}

CardFacts ReadCardFacts(const CheckResult* inventory) {
  CardFacts c;
  if (inventory == nullptr) return c;
  c.inventory_ran = true;
  c.inventory_outcome = inventory->outcome;
  const json& data = inventory->data;
  const json& gpus = Member(data, "gpus");
  c.cuda_gpus = gpus.is_array() ? static_cast<int>(gpus.size()) : 0;
  c.cuda_ok = c.cuda_gpus > 0;
  if (const json& nvml = Member(data, "nvml_gpus"); nvml.is_array()) c.nvml = ReadNvmlGpus(nvml);
  if (const json& cvd = Member(data, "cuda_visible_devices"); cvd.is_string()) c.visible_devices = cvd.get<std::string>();
  if (!c.cuda_ok) {
    c.cuda_problem = inventory->reason;
    c.cuda_error = inventory->error;
  }
  const json& state = Member(data, "driver_state");
  c.driver = DriverStateNamed(StringMember(state, "state"));
  if (const json& pci = Member(Member(state, "pci_bus"), "nvidia_gpus"); pci.is_array()) c.pci_gpus = static_cast<int>(pci.size());
  if (c.driver == DriverState::NoGpuOnBus) c.pci_gpus = 0;
  return c;
}

RunFacts ReadRunFacts(const CheckLookup& find, const RunFlags& flags) {
  RunFacts f;
  f.flags = flags;
  // What torch saw in its own probe: the first smoke test that recorded it.
  json seen;
  for (const char* id : {"smoke.llama_train", "smoke.hf_llama", "smoke.lora", "smoke.qlora", "smoke.flash_attention",
                         "smoke.triton", "smoke.torch_compile", "smoke.vllm", "smoke.unsloth"}) {
    const CheckResult* c = find(id);
    if (c != nullptr && c->data.is_object() && c->data.contains("torch")) {
      seen = c->data["torch"];
      break;
    }
  }
  f.torch = ReadTorchFacts(find("env.python"), seen);
  f.cards = ReadCardFacts(find("gpu.inventory"));
  return f;
}

RunFacts ReadRunFacts(const Report& report) {
  RunFlags flags{report.meta.quick, report.meta.skip_dist, report.meta.interrupted, report.meta.only};
  return ReadRunFacts([&](const std::string& id) { return report.FindCheck(id); }, flags);
}

}  // namespace labcheck::facts

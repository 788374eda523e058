#include "compat/compat_facts.h"

namespace labcheck::compat {

using nlohmann::json;

const std::vector<std::string>& CompatPackages() {
  static const std::vector<std::string> names = {"torch", "triton", "bitsandbytes", "vllm", "flash-attn", "flash-attn-3"};
  return names;
}

namespace {
std::optional<std::string> OptionalString(const json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_string() || it->get<std::string>().empty()) return std::nullopt;
  return it->get<std::string>();
}
}  // namespace

Result<PythonSide> ParseCompatProbe(const json& result) {
  if (!result.is_object() || !result.contains("torch") || !result["torch"].is_object() || !result.contains("packages") ||
      !result["packages"].is_object())
    return Status::Error("the compat probe's result lacks 'torch' or 'packages'");
  PythonSide p;
  const json& t = result["torch"];
  p.torch_version = OptionalString(t, "version");
  p.torch_cuda = OptionalString(t, "cuda");
  p.torch_nccl = OptionalString(t, "nccl");
  p.torch_import_error = t.value("import_error", json()).is_string() ? t["import_error"].get<std::string>() : "";
  if (t.contains("arch_list") && t["arch_list"].is_array()) {
    std::vector<std::string> archs;
    for (const json& a : t["arch_list"])
      if (a.is_string()) archs.push_back(a);
    p.arch_list = archs;
  }
  for (const auto& [name, value] : result["packages"].items()) {
    if (!value.is_object()) {
      p.packages[name] = std::nullopt;
      continue;
    }
    PackageFacts f;
    f.version = value.value("version", "");
    for (const json& r : value.value("requires", json::array()))
      if (r.is_string()) f.requires_dist.push_back(r);
    p.packages[name] = f;
  }
  if (result.contains("imports") && result["imports"].is_object())
    for (const auto& [name, error] : result["imports"].items())
      if (error.is_string()) p.import_errors[name] = error;
  return p;
}

DriverSide DriverFromInventory(const json& data) {
  DriverSide d;
  if (data.contains("driver_version") && data["driver_version"].is_string()) d.driver_version = data["driver_version"];
  if (data.contains("cuda_driver_version") && data["cuda_driver_version"].is_string())
    d.driver_cuda = data["cuda_driver_version"];
  if (data.contains("gpus") && data["gpus"].is_array())
    for (const json& g : data["gpus"]) {
      GpuFacts f;
      f.index = g.value("index", 0);
      f.name = g.value("name", json()).is_string() ? g["name"].get<std::string>() : "";
      f.cc = g.value("cc_major", 0) * 10 + g.value("cc_minor", 0);
      d.gpus.push_back(f);
    }
  if (data.contains("libraries") && data["libraries"].is_array())
    for (const json& l : data["libraries"]) {
      if (l.value("name", "") != "NCCL" || l.value("origin", "") == "Python site-packages") continue;
      if (l.contains("version") && l["version"].is_string() && !l["version"].get<std::string>().empty()) {
        d.system_nccl = l["version"].get<std::string>();
        d.system_nccl_path = l.value("path", "");
        d.system_nccl_origin = l.value("origin", "");
      }
    }
  return d;
}

}  // namespace labcheck::compat

#include "env/python_facts.h"

namespace labcheck::env {

using nlohmann::json;

const std::vector<std::string>& CoursePackages() {
  static const std::vector<std::string> kPackages = {
      "torch",      "numpy",  "transformers", "peft",   "bitsandbytes", "accelerate",
      "datasets",   "trl",    "flash-attn",   "triton", "vllm",         "sglang",
      "unsloth",    "safetensors", "tokenizers", "huggingface-hub", "wandb"};
  return kPackages;
}

const std::optional<std::string>* PythonFacts::Version(const std::string& package) const {
  for (const auto& [name, version] : packages) {
    if (name == package) return &version;
  }
  return nullptr;
}

namespace {

// Null or missing becomes empty; any other non-string is an error the caller reports.
bool OptionalString(const json& object, const char* key, std::optional<std::string>& out) {
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) return true;
  if (!it->is_string()) return false;
  out = it->get<std::string>();
  return true;
}

Status Malformed(const std::string& what) {
  return Status::Error("env_packages.py result: " + what);
}

Result<PythonFacts> ParseUnchecked(const json& result, const std::vector<std::string>& wanted) {
  if (!result.is_object()) return Malformed("not a JSON object");
  PythonFacts facts;

  const json& python = result.value("python", json());
  if (!python.is_object()) return Malformed("no \"python\" object");
  if (!python.contains("version") || !python["version"].is_string()) {
    return Malformed("no python.version");
  }
  facts.version = python["version"].get<std::string>();
  facts.executable = python.value("executable", "");
  facts.implementation = python.value("implementation", "");
  facts.venv = python.value("venv", false);
  facts.conda = python.value("conda", false);
  const json& site = python.value("site_packages", json::array());
  if (!site.is_array()) return Malformed("python.site_packages is not a list");
  for (const json& path : site) {
    if (!path.is_string()) return Malformed("python.site_packages holds a non-string");
    facts.site_packages.push_back(path.get<std::string>());
  }

  const json& packages = result.value("packages", json());
  if (!packages.is_object()) return Malformed("no \"packages\" object");
  for (const std::string& name : wanted) {
    if (!packages.contains(name)) return Malformed("no answer for package \"" + name + "\"");
    std::optional<std::string> version;
    if (!OptionalString(packages, name.c_str(), version)) {
      return Malformed("version of \"" + name + "\" is not a string");
    }
    facts.packages.emplace_back(name, std::move(version));
  }

  std::optional<std::string> metadata_error;
  if (!OptionalString(result, "metadata_error", metadata_error)) {
    return Malformed("metadata_error is not a string");
  }
  facts.metadata_error = metadata_error.value_or("");

  const json& torch = result.value("torch", json());
  if (torch.is_object()) {
    facts.torch_files_found = true;
    std::optional<std::string> error;
    // version.py says cuda = None on CPU builds; a non-string there is treated as unknown too.
    OptionalString(torch, "cuda", facts.torch_cuda);
    OptionalString(torch, "hip", facts.torch_hip);
    OptionalString(torch, "error", error);
    facts.torch_version_error = error.value_or("");
  } else if (!torch.is_null()) {
    return Malformed("\"torch\" is neither an object nor null");
  }
  return facts;
}

}  // namespace

Result<PythonFacts> ParsePythonProbe(const json& result, const std::vector<std::string>& wanted) {
  try {
    return ParseUnchecked(result, wanted);
  } catch (const json::exception& error) {  // value() of the wrong type, e.g. "venv": "yes"
    return Malformed(error.what());
  }
}

}  // namespace labcheck::env

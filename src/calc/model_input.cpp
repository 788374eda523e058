#include "calc/model_input.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "calc/hf_config.h"

namespace labcheck::calc {
namespace fs = std::filesystem;

int64_t ModelInput::total_params() const { return arch ? CountParams(*arch).total() : bare_params; }

std::optional<ParamCounts> ModelInput::counts() const {
  if (!arch) return std::nullopt;
  return CountParams(*arch);
}

EnvLookup ProcessEnv() {
  return [](const std::string& name) -> std::optional<std::string> {
    const char* value = std::getenv(name.c_str());
    if (value == nullptr || *value == '\0') return std::nullopt;
    return std::string(value);
  };
}

std::optional<int64_t> ParseParamCount(const std::string& text) {
  if (text.empty()) return std::nullopt;
  char* end = nullptr;
  const double number = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || !std::isfinite(number) || number <= 0) return std::nullopt;
  std::string suffix(end);
  double scale = 1;
  if (suffix == "k" || suffix == "K") scale = 1e3;
  else if (suffix == "m" || suffix == "M") scale = 1e6;
  else if (suffix == "b" || suffix == "B") scale = 1e9;
  else if (suffix == "t" || suffix == "T") scale = 1e12;
  else if (!suffix.empty()) return std::nullopt;
  const double params = number * scale;
  // A bare "7" is almost surely 7B; a size without a suffix must look like a parameter count.
  if (params < 1e6) return std::nullopt;
  return static_cast<int64_t>(std::llround(params));
}

std::string HfHubCacheDir(const EnvLookup& env) {
  if (auto dir = env("HF_HUB_CACHE")) return *dir;
  if (auto home = env("HF_HOME")) return (fs::path(*home) / "hub").string();
  if (auto xdg = env("XDG_CACHE_HOME")) return (fs::path(*xdg) / "huggingface" / "hub").string();
  if (auto home = env("HOME")) return (fs::path(*home) / ".cache" / "huggingface" / "hub").string();
  return ".cache/huggingface/hub";
}

namespace {

Result<std::string> ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::Error(fmt::format("cannot read {}", path.string()));
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The snapshot refs/main points to, else any snapshot that has a config.json.
std::optional<fs::path> FindInHubCache(const std::string& repo_id, const std::string& cache_dir) {
  const auto slash = repo_id.find('/');
  if (slash == std::string::npos || repo_id.find('/', slash + 1) != std::string::npos) return std::nullopt;
  const fs::path repo_dir = fs::path(cache_dir) / ("models--" + repo_id.substr(0, slash) + "--" + repo_id.substr(slash + 1));
  std::error_code ec;
  if (!fs::is_directory(repo_dir / "snapshots", ec)) return std::nullopt;
  if (auto ref = ReadFile(repo_dir / "refs" / "main"); ref.ok()) {
    std::string commit = ref.value();
    while (!commit.empty() && std::isspace(static_cast<unsigned char>(commit.back()))) commit.pop_back();
    const fs::path config = repo_dir / "snapshots" / commit / "config.json";
    if (fs::is_regular_file(config, ec)) return config;
  }
  for (const auto& snapshot : fs::directory_iterator(repo_dir / "snapshots", ec)) {
    const fs::path config = snapshot.path() / "config.json";
    if (fs::is_regular_file(config, ec)) return config;
  }
  return std::nullopt;
}

Result<ModelInput> FromConfigFile(const fs::path& path, const std::string& display, const std::string& repo) {
  auto text = ReadFile(path);
  if (!text.ok()) return text.status();
  auto arch = ParseHfConfigText(text.value(), path.string());
  if (!arch.ok()) return arch.status();
  ModelInput input;
  input.display_name = display;
  input.hf_repo = repo;
  input.source = path.string();
  input.arch = std::move(arch).value();
  return input;
}

}  // namespace

Result<ModelInput> ResolveModel(const std::string& text, const ModelCatalog& catalog, const EnvLookup& env,
                                Lang lang) {
  if (const CatalogModel* model = catalog.Find(text)) {
    ModelInput input;
    input.display_name = model->name;
    input.hf_repo = model->hf_repo;
    input.source = model->config_source;
    input.arch = model->arch;
    return input;
  }
  if (auto params = ParseParamCount(text)) {
    ModelInput input;
    input.display_name = text;
    input.source = "size given on the command line";
    input.bare_params = *params;
    return input;
  }
  std::error_code ec;
  const fs::path path(text);
  const auto config_error = [lang](const Status& status) {
    return Status::Error(T("не удалось прочитать config.json модели: ", "cannot read the model's config.json: ").In(lang) +
                         status.message());
  };
  const auto from_file = [&](const fs::path& file, const std::string& display, const std::string& repo) {
    auto input = FromConfigFile(file, display, repo);
    return input.ok() ? input : Result<ModelInput>(config_error(input.status()));
  };
  if (fs::is_regular_file(path, ec)) return from_file(path, fs::absolute(path).parent_path().filename().string(), "");
  if (fs::is_directory(path, ec)) {
    if (fs::is_regular_file(path / "config.json", ec)) {
      return from_file(path / "config.json", fs::absolute(path).filename().string(), path.string());
    }
    return Status::Error(fmt::format(fmt::runtime(T("в папке {} нет config.json", "folder {} has no config.json").In(lang)), text));
  }
  const std::string cache = HfHubCacheDir(env);
  if (auto config = FindInHubCache(text, cache)) return from_file(*config, text, text);

  std::string closest;
  for (const std::string& id : catalog.Closest(text, 3)) closest += (closest.empty() ? "" : ", ") + id;
  const Text message = T(
      "неизвестная модель \"{0}\": её нет во встроенном каталоге (ближайшие: {1}), это не размер вроде 7B "
      "или 0.5B, не путь к config.json и не модель из кэша Hugging Face {2}. Укажите имя из каталога, "
      "размер или путь к config.json модели.",
      "unknown model \"{0}\": not in the built-in catalog (closest: {1}), not a size such as 7B or 0.5B, "
      "not a config.json path, and not in the Hugging Face cache {2}. Give a catalog name, a size, "
      "or the path to the model's config.json.");
  return Status::Error(fmt::format(fmt::runtime(message.In(lang)), text, closest, cache));
}

}  // namespace labcheck::calc

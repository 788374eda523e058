#include "platform/python_site_packages.h"

#include <algorithm>
#include <map>
#include <mutex>

#include <nlohmann/json.hpp>

#include "runner/child_process.h"

namespace labcheck {

std::vector<std::string> SitePackagesFromAnswer(const std::string& json_text) {
  std::vector<std::string> folders;
  nlohmann::json answer = nlohmann::json::parse(json_text, nullptr, /*allow_exceptions=*/false);
  if (!answer.is_array()) return folders;
  for (const nlohmann::json& item : answer) {
    if (!item.is_string()) continue;
    std::string path = item.get<std::string>();
    while (path.size() > 1 && path.back() == '/') path.pop_back();
    bool packages = path.ends_with("site-packages") || path.ends_with("dist-packages");
    if (packages && std::find(folders.begin(), folders.end(), path) == folders.end()) folders.push_back(path);
  }
  return folders;
}

std::vector<std::string> PythonSitePackages(const std::string& python, const CancelToken& cancel) {
  if (python.empty()) return {};
  static std::mutex mutex;
  static std::map<std::string, std::vector<std::string>> cache;
  std::lock_guard<std::mutex> lock(mutex);
  if (auto it = cache.find(python); it != cache.end()) return it->second;
  ChildSpec spec;
  spec.argv = {python, "-c",
               "import json, site, sys\n"
               "paths = []\n"
               "try:\n    paths += site.getsitepackages()\nexcept Exception:\n    pass\n"
               "try:\n    paths.append(site.getusersitepackages())\nexcept Exception:\n    pass\n"
               "print(json.dumps(paths + sys.path))\n"};
  spec.timeout_s = 15;
  ChildOutcome outcome = RunChild(spec, cancel);
  std::vector<std::string> folders;
  if (outcome.exited_ok()) folders = SitePackagesFromAnswer(outcome.out);  // it prints nothing else
  cache[python] = folders;
  return folders;
}

}  // namespace labcheck

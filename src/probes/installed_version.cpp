#include "probes/installed_version.h"

#include <filesystem>
#include <system_error>

#include "probes/interpreter.h"
#include "runner/cancel.h"

namespace labcheck::probes {

std::optional<std::string> InstalledDistributionVersion(Interpreter& interpreter, const std::string& distribution) {
  const std::string prefix = distribution + "-", suffix = ".dist-info";
  for (const std::string& folder : interpreter.FindSitePackages(CancelToken::Never()).folders) {
    std::error_code error;
    for (const auto& entry : std::filesystem::directory_iterator(folder, error)) {
      const std::string name = entry.path().filename().string();
      if (name.size() > prefix.size() + suffix.size() && name.rfind(prefix, 0) == 0 && name.ends_with(suffix)) {
        return name.substr(prefix.size(), name.size() - prefix.size() - suffix.size());
      }
    }
  }
  return std::nullopt;
}

}  // namespace labcheck::probes

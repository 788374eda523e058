// Reaches the generated table of probe sources (cmake/EmbedFiles.cmake).
#include <array>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace labcheck::probes::embedded {
const std::array<std::pair<std::string_view, std::string_view>, LAB_PROBE_COUNT>& EmbeddedFiles();
}  // namespace labcheck::probes::embedded

namespace labcheck::probes {

std::string_view EmbeddedProbe(std::string_view name) {
  for (const auto& [file, text] : embedded::EmbeddedFiles()) {
    if (file == name) return text;
  }
  return {};
}

std::vector<std::string> EmbeddedProbeNames() {
  std::vector<std::string> names;
  for (const auto& [file, text] : embedded::EmbeddedFiles()) names.emplace_back(file);
  return names;
}

}  // namespace labcheck::probes

// Reaches the generated table of probe sources (cmake/EmbedFiles.cmake).
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/embedded_files.h"

namespace labcheck::probes::embedded {
EmbeddedFileTable EmbeddedFiles();
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

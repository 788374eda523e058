#include "gpu/jobs/card_selection.h"

#include <cstdlib>
#include <sstream>

#include "gpu/job_envelope.h"

namespace labcheck::gpu {

std::optional<std::vector<int>> SelectCards(const std::string& text, int count, nlohmann::json* refusal) {
  std::vector<int> cards;
  if (text.empty() || text == "all") {
    for (int i = 0; i < count; ++i) cards.push_back(i);
    return cards;
  }
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');) {
    if (item.empty()) continue;
    const long i = std::strtol(item.c_str(), nullptr, 10);
    if (i < 0 || i >= count) {
      const std::string range = count > 0 ? "0…" + std::to_string(count - 1) : "—";
      *refusal = FailEnvelope(T("нет GPU с номером " + item, "there is no GPU " + item),
                              T("номера GPU: " + range, "GPU numbers: " + range));
      return std::nullopt;
    }
    cards.push_back(static_cast<int>(i));
  }
  return cards;
}

std::unique_ptr<NvmlHealth> HealthReaderIfAny(const GpuRuntime& runtime) {
  if (runtime.nvml() == nullptr) return nullptr;
  Result<std::unique_ptr<NvmlHealth>> bound = NvmlHealth::Bind(*runtime.nvml());
  return bound.ok() ? std::move(bound).value() : nullptr;
}

}  // namespace labcheck::gpu

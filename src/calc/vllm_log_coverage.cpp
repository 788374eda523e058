#include "calc/vllm_log_coverage.h"

#include <fmt/format.h>

#include <vector>

#include "core/text_util.h"
#include "reference/gpu_catalog.h"

namespace labcheck::calc {
namespace {

// The catalog's name for a card id in both languages; the id itself when the catalog lacks it.
Text CardName(const std::string& id) {
  const reference::GpuSpec* spec = reference::GpuCatalog::Builtin().FindById(id);
  return spec ? spec->DisplayName() : Text(id);
}

Text CardNames(const std::vector<std::string>& ids) {
  std::vector<Text> names;
  for (const std::string& id : ids) names.push_back(CardName(id));
  return Join(names, ", ");
}

}  // namespace

WorkNote CheckedLogsNote(const std::string& gpu_id, const VllmVersion& version) {
  const VllmLogCoverage c = CountCheckedVllmLogs(gpu_id, version);
  const std::string release = fmt::format("{}.{}", version.major, version.minor);
  const Text cards = CardNames(c.cards);
  if (gpu_id.empty()) {
    return {"checked_logs",
            T(fmt::format("карта не названа (--gpu): все {} сверенных логов запуска vLLM — с {} ({} из них — vLLM {}.x); доля памяти не под KV-кэш "
                          "(вне PyTorch, пик профиля, умолчания vLLM) зависит от карты",
                          c.total, cards.ru, c.this_version, release),
              fmt::format("card not named (--gpu): all {} vLLM start-up logs checked are from {} ({} of them vLLM {}.x); the share of memory that is "
                          "not KV cache (outside PyTorch, the profile's peak, vLLM's defaults) depends on the card",
                          c.total, cards.en, c.this_version, release))};
  }
  const Text card = CardName(gpu_id);
  if (c.this_card == 0) {
    return {"checked_logs",
            T(fmt::format("логов запуска vLLM с {} не сверяли: все {} — с {}; доля памяти не под KV-кэш (вне PyTorch, пик профиля, умолчания vLLM) "
                          "на этой карте — допущение",
                          card.ru, c.total, cards.ru),
              fmt::format("no vLLM start-up log from {} was checked: all {} are from {}; the share of memory that is not KV cache (outside "
                          "PyTorch, the profile's peak, vLLM's defaults) on this card is an assumption",
                          card.en, c.total, cards.en))};
  }
  const char* logs = c.this_card_this_version == 1 ? "log" : "logs";
  return {"checked_logs",
          T(fmt::format("логов запуска vLLM {}.x с {}, с которыми сверено: {} (этой карты на всех версиях — {}, всего — {})", release, card.ru,
                        c.this_card_this_version, c.this_card, c.total),
            fmt::format("checked against {} vLLM {}.x start-up {} from {} ({} of this card at all versions, {} in all)",
                        c.this_card_this_version, release, logs, card.en, c.this_card, c.total))};
}

nlohmann::json CheckedLogsJson(const std::string& gpu_id, const VllmVersion& version) {
  const VllmLogCoverage c = CountCheckedVllmLogs(gpu_id, version);
  return {{"gpu_id", gpu_id.empty() ? nlohmann::json() : nlohmann::json(gpu_id)},
          {"this_card_this_version", c.this_card_this_version},
          {"this_card", c.this_card},
          {"this_version", c.this_version},
          {"total", c.total},
          {"cards", c.cards}};
}

}  // namespace labcheck::calc

#include "calc/vllm_profile.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <limits>
#include <map>
#include <tuple>

#include "calc/embedded_data.h"

namespace labcheck::calc {
namespace {

using nlohmann::json;

const json& ProfilesFile() {
  static const json root = [] {
    json parsed = json::parse(EmbeddedDataFile("vllm_profiles.json"), nullptr, false);
    // The file is compiled in and read by the tests: a broken one is a build defect.
    if (!parsed.is_object() || !parsed.contains("rules") || !parsed.contains("default_version") || !parsed.contains("flashinfer_sampler")) {
      fmt::print(stderr, "lab_check: vllm_profiles.json is missing or malformed\n");
      std::abort();
    }
    return parsed;
  }();
  return root;
}

VllmVersion MustParse(const std::string& text) {
  const std::optional<VllmVersion> v = ParseVllmVersion(text);
  if (!v) {
    fmt::print(stderr, "lab_check: vllm_profiles.json has a malformed version \"{}\"\n", text);
    std::abort();
  }
  return *v;
}

VllmProfileRule ReadRule(const json& r) {
  VllmProfileRule rule;
  rule.id = r.at("id").get<std::string>();
  rule.from = MustParse(r.at("from_version").get<std::string>());
  rule.checked_versions = r.at("checked_versions").get<std::vector<std::string>>();
  rule.sampler_bytes_per_vocab_entry = r.at("sampler_bytes_per_vocab_entry").get<double>();
  rule.non_torch_gib = r.at("non_torch_gib").get<double>();
  rule.non_torch_tp_gib = r.at("non_torch_tp_gib").get<double>();
  rule.hybrid_kv_groups = r.at("hybrid_kv_groups").get<bool>();
  rule.cuda_graphs_in_budget = r.value("cuda_graphs_in_budget", false);
  rule.default_utilization = r.at("default_gpu_memory_utilization").get<double>();
  rule.default_utilization_source = r.at("default_gpu_memory_utilization_source").get<std::string>();
  rule.source = r.at("sampler_source").get<std::string>() + "; non-torch: " + r.at("non_torch_source").get<std::string>();
  return rule;
}

// A version lies inside a rule's evidence when it is within its checked versions' minor releases.
bool Checked(const VllmProfileRule& rule, const VllmVersion& v) {
  if (rule.checked_versions.empty()) return false;
  std::vector<VllmVersion> checked;
  for (const std::string& text : rule.checked_versions) checked.push_back(MustParse(text));
  std::sort(checked.begin(), checked.end());
  const auto minor = [](const VllmVersion& x) { return std::make_tuple(x.major, x.minor); };
  return minor(checked.front()) <= minor(v) && minor(v) <= minor(checked.back());
}

}  // namespace

bool VllmVersion::operator<(const VllmVersion& o) const {
  return std::tie(major, minor, patch) < std::tie(o.major, o.minor, o.patch);
}

std::optional<VllmVersion> ParseVllmVersion(const std::string& text) {
  size_t i = 0;
  if (i < text.size() && (text[i] == 'v' || text[i] == 'V')) ++i;
  int parts[3] = {0, 0, 0};
  int count = 0;
  while (count < 3) {
    if (i >= text.size() || !std::isdigit(static_cast<unsigned char>(text[i]))) break;
    int value = 0;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
      value = value * 10 + (text[i] - '0');
      if (value > 100000) return std::nullopt;
      ++i;
    }
    parts[count++] = value;
    // A fourth number (vLLM 0.10.1.1) is a patch of the patch: left with the tag, ignored.
    if (count < 3 && i < text.size() && text[i] == '.' && i + 1 < text.size() && std::isdigit(static_cast<unsigned char>(text[i + 1]))) {
      ++i;
    } else {
      break;
    }
  }
  // At least major.minor; what follows must be a pre-release, post-release or local tag.
  if (count < 2) return std::nullopt;
  if (i < text.size() && std::string(".+-_abcdefghijklmnopqrstuvwxyz").find(static_cast<char>(std::tolower(static_cast<unsigned char>(text[i])))) ==
                             std::string::npos) {
    return std::nullopt;
  }
  return VllmVersion{parts[0], parts[1], parts[2], text};
}

double FlashInferSamplerBytesPerVocabEntry() {
  static const double bytes = ProfilesFile().at("flashinfer_sampler").at("bytes_per_vocab_entry").get<double>();
  return bytes;
}

VllmProfileChoice WithFlashInferSampler(VllmProfileChoice choice) {
  choice.rule.sampler_bytes_per_vocab_entry = FlashInferSamplerBytesPerVocabEntry();
  choice.flashinfer_sampler = true;
  return choice;
}

const std::vector<VllmProfileRule>& VllmProfileRules() {
  static const std::vector<VllmProfileRule> rules = [] {
    std::vector<VllmProfileRule> out;
    for (const json& r : ProfilesFile().at("rules")) out.push_back(ReadRule(r));
    std::sort(out.begin(), out.end(), [](const VllmProfileRule& a, const VllmProfileRule& b) { return a.from < b.from; });
    return out;
  }();
  return rules;
}

VllmVersion DefaultVllmVersion() { return MustParse(ProfilesFile().at("default_version").get<std::string>()); }

VllmProfileChoice ChooseVllmProfile(const VllmVersion& version) {
  const std::vector<VllmProfileRule>& rules = VllmProfileRules();
  const VllmProfileRule* chosen = &rules.front();
  for (const VllmProfileRule& rule : rules) {
    if (!(version < rule.from)) chosen = &rule;
  }
  return {*chosen, version, Checked(*chosen, version)};
}

const std::vector<CheckedVllmLog>& CheckedVllmLogs() {
  static const std::vector<CheckedVllmLog> logs = [] {
    std::vector<CheckedVllmLog> out;
    for (const json& entry : ProfilesFile().at("checked_logs")) {
      out.push_back({entry.at("case").get<std::string>(), entry.at("gpu").get<std::string>(),
                     MustParse(entry.at("vllm_version").get<std::string>())});
    }
    return out;
  }();
  return logs;
}

VllmLogCoverage CountCheckedVllmLogs(const std::string& gpu_id, const VllmVersion& version) {
  VllmLogCoverage c;
  for (const CheckedVllmLog& log : CheckedVllmLogs()) {
    const bool card = !gpu_id.empty() && log.gpu_id == gpu_id;
    const bool release = log.version.major == version.major && log.version.minor == version.minor;
    c.this_card_this_version += card && release;
    c.this_card += card;
    c.this_version += release;
    ++c.total;
    if (std::find(c.cards.begin(), c.cards.end(), log.gpu_id) == c.cards.end()) c.cards.push_back(log.gpu_id);
  }
  return c;
}

KvLayerSlots HybridKvLayerSlots(const Architecture& arch, bool hybrid_kv_groups) {
  // Attention layers by type: 0 for full attention, the window, or minus the chunk (Llama 4's
  // chunked layers are a type of their own, ChunkedLocalAttentionSpec).
  std::map<int64_t, int64_t> by_type;
  for (int64_t layer = 0; layer < arch.layers; ++layer) {
    if (!arch.HasAttention(layer)) continue;
    const int64_t window = arch.WindowOf(layer);
    ++by_type[window > 0 ? window : -arch.ChunkOf(layer)];
  }
  KvLayerSlots s;
  for (const auto& [type, count] : by_type) s.attention_layers += count;
  // State layers share one MambaSpec: one more type, keyed apart from every attention type.
  constexpr int64_t kStateType = std::numeric_limits<int64_t>::min();
  s.state_layers = arch.mamba.count();
  if (s.state_layers > 0 && hybrid_kv_groups) by_type[kStateType] = s.state_layers;
  s.slots = s.attention_layers + (by_type.count(kStateType) > 0 ? s.state_layers : 0);
  if (!hybrid_kv_groups || by_type.size() < 2) return s;
  int64_t smallest = s.attention_layers, largest = 0;
  for (const auto& [type, count] : by_type) {
    smallest = std::min(smallest, count);
    largest = std::max(largest, count);
  }
  // vLLM takes the largest count when padding the others to it wastes under a quarter.
  s.group_size = 4 * largest < 5 * smallest ? largest : smallest;
  s.groups = 0;
  for (const auto& [type, count] : by_type) {
    const int64_t groups = (count + s.group_size - 1) / s.group_size;
    s.groups += groups;
    if (type == kStateType) s.state_groups = groups;
  }
  s.slots = s.groups * s.group_size;
  return s;
}

}  // namespace labcheck::calc

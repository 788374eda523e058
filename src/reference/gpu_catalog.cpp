#include "reference/gpu_catalog.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "reference/pcie_link.h"
#include "reference/reference_data.h"

namespace labcheck::reference {
namespace {

using nlohmann::json;

std::optional<double> OptionalNumber(const json& object, const char* key) {
  auto it = object.find(key);
  if (it == object.end() || !it->is_number()) return std::nullopt;
  return it->get<double>();
}

// Key → full title and URL with our description of the source, in one language.
using SourceTexts = std::map<std::string, std::string>;

// Every source key in both report languages: "sources" in English, "sources_ru" overlaid on it in
// Russian (a key without a Russian form stays English).
struct Sources {
  SourceTexts en;
  SourceTexts ru;
};

// "ada_whitepaper (dense = sparse / 2)" → the full title and URL of ada_whitepaper, remark kept.
// Data entries name their sources by key so one datasheet's URL is written once.
std::string ExpandSource(std::string text, const SourceTexts& sources) {
  for (const auto& [key, full] : sources) {
    for (size_t at = text.find(key); at != std::string::npos; at = text.find(key, at + full.size())) {
      text.replace(at, key.size(), full);
    }
  }
  return text;
}

// An entry's "source" in both languages: the Russian one is its "source_ru" (our remarks in Russian,
// the same keys) where it has one, else the same words; each with its keys in that language.
Text SourceText(const json& entry, const Sources& sources) {
  const std::string en = entry.value("source", "");
  return Text(ExpandSource(entry.value("source_ru", en), sources.ru), ExpandSource(en, sources.en));
}

Band ParseShare(const json& share) {
  return Band{share.at("low").get<double>(), share.at("high").get<double>()};
}

GpuSpec ParseGpu(const json& g, const Sources& sources) {
  GpuSpec spec;
  spec.id = g.at("id").get<std::string>();
  spec.name = g.at("name").get<std::string>();
  spec.name_ru = g.value("name_ru", "");
  spec.match = g.at("match").get<std::vector<std::string>>();
  spec.exclude = g.value("exclude", std::vector<std::string>{});
  spec.architecture = g.value("architecture", "");
  const std::string cc = g.at("compute_capability").get<std::string>();
  const size_t dot = cc.find('.');
  spec.cc_major = std::stoi(cc.substr(0, dot));
  spec.cc_minor = dot == std::string::npos ? 0 : std::stoi(cc.substr(dot + 1));
  spec.memory_gib = g.at("memory_gib").get<double>();
  spec.sm_count = g.value("sm_count", 0);
  spec.mig_compute_slices = g.value("mig_compute_slices", 0);
  const json& tflops = g.at("tflops");
  spec.bf16_tflops = OptionalNumber(tflops, "bf16");
  spec.fp16_tflops = OptionalNumber(tflops, "fp16");
  spec.fp16_fp16acc_tflops = OptionalNumber(tflops, "fp16_fp16acc");
  spec.tf32_tflops = OptionalNumber(tflops, "tf32");
  spec.fp8_tflops = OptionalNumber(tflops, "fp8");
  spec.memory_bandwidth_gbps = OptionalNumber(g, "memory_bandwidth_gbps");
  spec.pcie_gen = g.at("pcie").at("gen").get<int>();
  spec.pcie_width = g.at("pcie").at("width").get<int>();
  spec.nvlink_gbps = OptionalNumber(g, "nvlink_gbps");
  spec.geforce = g.value("geforce", false);
  spec.power_w = OptionalNumber(g, "power_w");
  spec.source = SourceText(g, sources);
  spec.note = g.value("note", "");
  return spec;
}

bool ContainsWord(const std::vector<std::string>& words, const std::string& word) {
  return std::find(words.begin(), words.end(), word) != words.end();
}

// How well one match entry fits: the number of its words, or 0 if any is missing.
size_t PatternScore(const std::string& pattern, const std::vector<std::string>& name_words) {
  const std::vector<std::string> wanted = DeviceNameWords(pattern);
  for (const auto& w : wanted) {
    if (!ContainsWord(name_words, w)) return 0;
  }
  return wanted.size();
}

using LinkRates = std::map<std::string, std::pair<double, Text>>;  // generation → rate, source

Result<Sources> ParseSources(const json& root) {
  Sources sources;
  for (const auto& [key, value] : root.at("sources").items()) sources.en[key] = value.get<std::string>();
  sources.ru = sources.en;
  const json russian = root.value("sources_ru", json::object());  // kept: items() refers to it
  for (const auto& [key, value] : russian.items()) {
    // A Russian form of a source the English file does not name: a typo, or a source dropped from
    // one language only.
    if (sources.en.count(key) == 0) return Status::Error("gpus.json: sources_ru: " + key + " is not in sources");
    sources.ru[key] = value.get<std::string>();
  }
  return sources;
}

Result<std::vector<PcieLink>> ParsePcieLinks(const json& pcie, const Sources& sources) {
  std::vector<PcieLink> links;
  for (const json& link : pcie.at("links")) {
    PcieLink l;
    l.gen = link.at("gen").get<int>();
    l.width = link.at("width").get<int>();
    l.limit_gbps = link.at("limit_gbps").get<double>();
    // The table's limit is for the reader; the formula is the source, so they must agree.
    if (std::fabs(l.limit_gbps - PcieLimitGbps(l.gen, l.width)) > 0.02)
      return Status::Error(fmt::format("gpus.json: pcie: PCIe {}.0 x{} limit_gbps {} differs from the encoding formula ({:.2f})",
                                       l.gen, l.width, l.limit_gbps, PcieLimitGbps(l.gen, l.width)));
    l.practice_gbps = Band{link.at("practice_gbps").at(0).get<double>(),
                           link.at("practice_gbps").at(1).get<double>()};
    l.source = ExpandSource(link.value("source", ""), sources.en);
    links.push_back(l);
  }
  return links;
}

DerivedRules ParseDerived(const json& derived, const Sources& sources) {
  DerivedRules rules;
  rules.geforce_fp32_accumulate_factor = derived.at("geforce_fp32_accumulate_factor").get<double>();
  rules.source = ExpandSource(derived.value("about", "") + " " + derived.value("geforce_source", ""), sources.en);
  for (const json& rate : derived.at("tensor_fp16_flop_per_clock_per_sm")) {
    TensorRate r;
    const std::string cc = rate.at("cc").get<std::string>();
    r.cc_major = std::stoi(cc.substr(0, cc.find('.')));
    r.cc_minor = std::stoi(cc.substr(cc.find('.') + 1));
    r.fp16_flop_per_clock_per_sm = rate.at("value").get<double>();
    r.source = SourceText(rate, sources);
    rules.tensor_rates.push_back(r);
  }
  return rules;
}

LinkRates ParseLinkRates(const json& nvlink, const Sources& sources) {
  LinkRates rates;
  for (const json& generation : nvlink.at("generations"))
    rates[generation.at("id").get<std::string>()] = {generation.at("link_gbps").get<double>(), SourceText(generation, sources)};
  return rates;
}

Result<NvLinkSpec> ParseGpuNvLink(const json& entry, const GpuSpec& spec, const LinkRates& rates, const std::string& where) {
  NvLinkSpec nv;
  nv.generation = entry.at("generation").get<std::string>();
  nv.links = entry.at("links").get<int>();
  nv.bridge_links = entry.value("bridge_links", 0);
  auto rate = rates.find(nv.generation);
  if (rate == rates.end()) return Status::Error("gpus.json: " + where + ": unknown NVLink generation " + nv.generation);
  nv.link_gbps = rate->second.first;
  nv.source = rate->second.second;
  // The per-link table is what the code uses; the datasheet total is what people check.
  if (!spec.nvlink_gbps || std::fabs(nv.links * nv.link_gbps * 2 - *spec.nvlink_gbps) > 0.5)
    return Status::Error(fmt::format("gpus.json: {}: {} links × {} GB/s × 2 differs from nvlink_gbps", where,
                                     nv.links, nv.link_gbps));
  return nv;
}

// One GPU entry with its NVLink; refused when it cannot be trusted or matched.
Result<GpuSpec> ParseCheckedGpu(const json& g, const LinkRates& rates, const Sources& sources, const std::string& where) {
  GpuSpec spec = ParseGpu(g, sources);
  if (g.contains("nvlink")) {
    Result<NvLinkSpec> nv = ParseGpuNvLink(g.at("nvlink"), spec, rates, where);
    if (!nv.ok()) return nv.status();
    spec.nvlink = std::move(nv).value();
  }
  // A figure without a source cannot be trusted or fixed; refuse the whole file.
  if (spec.source.en.empty()) return Status::Error("gpus.json: " + where + " has no source");
  if (spec.match.empty()) return Status::Error("gpus.json: " + where + " has no match words");
  return spec;
}

}  // namespace

std::vector<std::string> DeviceNameWords(const std::string& device_name) {
  std::vector<std::string> words;
  std::string current;
  for (char c : device_name) {
    if (c == ' ' || c == '-' || c == '_' || c == '\t') {
      if (!current.empty()) words.push_back(std::move(current));
      current.clear();
    } else {
      current.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
    }
  }
  if (!current.empty()) words.push_back(std::move(current));
  return words;
}

Result<GpuCatalog> GpuCatalog::Parse(const std::string& json_text) {
  GpuCatalog catalog;
  std::string where = "the top level";
  try {
    const json root = json::parse(json_text);
    where = "sources";
    Result<Sources> parsed_sources = ParseSources(root);
    if (!parsed_sources.ok()) return parsed_sources.status();
    const Sources sources = std::move(parsed_sources).value();

    where = "realistic_share";
    const json& share = root.at("realistic_share");
    catalog.matmul_share_ = ParseShare(share.at("matmul"));
    catalog.memory_copy_share_ = ParseShare(share.at("memory_copy"));
    catalog.matmul_share_source_ = SourceText(share.at("matmul"), sources);
    catalog.memory_copy_share_source_ = SourceText(share.at("memory_copy"), sources);

    where = "pcie";
    Result<std::vector<PcieLink>> links = ParsePcieLinks(root.at("pcie"), sources);
    if (!links.ok()) return links.status();
    catalog.pcie_ = std::move(links).value();

    where = "derived";
    // Optional: without it unknown GPUs get rows without estimated figures.
    if (root.contains("derived")) catalog.derived_ = ParseDerived(root.at("derived"), sources);

    where = "nvlink";
    // Optional: without it no GPU has a per-link rate, and NVLink pairs get no reference.
    LinkRates link_gbps;
    if (root.contains("nvlink")) {
      const json& nvlink = root.at("nvlink");
      link_gbps = ParseLinkRates(nvlink, sources);
      catalog.nvlink_copy_share_ = ParseShare(nvlink.at("copy_share"));
      catalog.nvlink_copy_share_source_ = SourceText(nvlink.at("copy_share"), sources);
    }

    for (const json& g : root.at("gpus")) {
      where = "gpu " + g.value("id", "(no id)");
      Result<GpuSpec> spec = ParseCheckedGpu(g, link_gbps, sources, where);
      if (!spec.ok()) return spec.status();
      catalog.gpus_.push_back(std::move(spec).value());
    }
  } catch (const std::exception& e) {
    return Status::Error("gpus.json: cannot read " + where + ": " + e.what());
  }
  return catalog;
}

const GpuCatalog& GpuCatalog::Builtin() {
  // Tests parse the embedded file, so a failure here means a broken build; an empty catalog
  // (every GPU "unknown") is the least harmful answer.
  static const GpuCatalog catalog = [] {
    Result<GpuCatalog> parsed = Parse(std::string(ReferenceFile("gpus.json")));
    return parsed.ok() ? std::move(parsed).value() : GpuCatalog();
  }();
  return catalog;
}

const GpuSpec* GpuCatalog::FindById(const std::string& id) const {
  for (const auto& g : gpus_) {
    if (g.id == id) return &g;
  }
  return nullptr;
}

int MigComputeSlices(const std::string& device_name) {
  const std::vector<std::string> words = DeviceNameWords(device_name);
  for (size_t i = 0; i + 1 < words.size(); ++i) {
    if (words[i] != "mig") continue;
    unsigned slices = 0, gb = 0;
    char g = 0, dot = 0;
    if (std::sscanf(words[i + 1].c_str(), "%u%c%c%u", &slices, &g, &dot, &gb) == 4 && g == 'g' && dot == '.')
      return static_cast<int>(slices);
    // A compute instance smaller than its GPU instance: "1c.3g.20gb".
    unsigned compute = 0;
    char c = 0, dot2 = 0;
    if (std::sscanf(words[i + 1].c_str(), "%u%c%c%u%c%c%u", &compute, &c, &dot, &slices, &g, &dot2, &gb) == 7 && c == 'c' &&
        dot == '.' && g == 'g' && dot2 == '.')
      return static_cast<int>(compute);
  }
  return 0;
}

bool IsMigSlice(const std::string& device_name) { return MigComputeSlices(device_name) > 0; }

const GpuSpec* GpuCatalog::Match(const std::string& device_name, double memory_gib) const {
  const std::vector<std::string> words = DeviceNameWords(device_name);
  if (IsMigSlice(device_name)) return nullptr;
  const GpuSpec* best = nullptr;
  size_t best_score = 0;
  double best_memory_distance = 0;
  for (const auto& g : gpus_) {
    if (std::any_of(g.exclude.begin(), g.exclude.end(),
                    [&](const std::string& w) { return ContainsWord(words, w); })) {
      continue;
    }
    size_t score = 0;
    for (const auto& pattern : g.match) score = std::max(score, PatternScore(pattern, words));
    if (score == 0) continue;
    // Equal names (RTX 4080 16 vs 32 GB, A100 40 vs 80 GB) are told apart by memory; with the
    // memory unknown the first entry in the file (the stock card) wins.
    const double distance = memory_gib > 0 ? std::abs(g.memory_gib - memory_gib) : 0;
    if (score > best_score || (score == best_score && distance < best_memory_distance)) {
      best = &g;
      best_score = score;
      best_memory_distance = distance;
    }
  }
  return best;
}

std::optional<PcieLink> GpuCatalog::Pcie(int gen, int width) const {
  for (const auto& l : pcie_) {
    if (l.gen == gen && l.width == width) return l;
  }
  return std::nullopt;
}

}  // namespace labcheck::reference

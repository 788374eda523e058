// The compiled-in GPU catalog: it parses, every entry carries a source, and real driver names
// (as nvidia-smi / NVML print them) find the right entry.
#include "reference/gpu_catalog.h"
#include "reference/pcie_link.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace labcheck::reference {
namespace {

std::string ReadSourceFile(const std::string& relative) {
  std::ifstream in(std::string(LAB_CHECK_SOURCE_DIR) + "/" + relative);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Issue 42: a MIG slice is a share of the card; matched to the whole card, a student on a
// 1g.10gb slice read "far below". It matches nothing (not comparable); the whole card still matches.
TEST(GpuCatalog, AMigSliceIsNotTheWholeCard) {
  const GpuCatalog& catalog = GpuCatalog::Builtin();
  EXPECT_TRUE(IsMigSlice("NVIDIA A100-SXM4-40GB MIG 1g.5gb"));
  EXPECT_TRUE(IsMigSlice("NVIDIA H100 80GB HBM3 MIG 1g.10gb"));
  EXPECT_TRUE(IsMigSlice("NVIDIA H100 80GB HBM3 MIG 1g.10gb+me"));
  EXPECT_FALSE(IsMigSlice("NVIDIA H100 80GB HBM3"));
  EXPECT_FALSE(IsMigSlice("NVIDIA MIG"));
  EXPECT_EQ(catalog.Match("NVIDIA H100 80GB HBM3 MIG 1g.10gb", 9.75), nullptr);
  EXPECT_NE(catalog.Match("NVIDIA H100 80GB HBM3", 79.6), nullptr);
}

TEST(GpuCatalog, DataFileParses) {
  Result<GpuCatalog> parsed = GpuCatalog::Parse(ReadSourceFile("data/gpus.json"));
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  EXPECT_GE(parsed->gpus().size(), 20u);
}

TEST(GpuCatalog, BuiltinIsTheDataFile) {
  Result<GpuCatalog> parsed = GpuCatalog::Parse(ReadSourceFile("data/gpus.json"));
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(GpuCatalog::Builtin().gpus().size(), parsed->gpus().size());
}

TEST(GpuCatalog, EveryGpuHasASourceWithAUrlAndFigures) {
  for (const GpuSpec& g : GpuCatalog::Builtin().gpus()) {
    EXPECT_NE(g.source.en.find("https://"), std::string::npos) << g.id << ": " << g.source.en;
    EXPECT_NE(g.source.ru.find("https://"), std::string::npos) << g.id << ": " << g.source.ru;
    // A figure no source gives is left out, and the note says so (the A10G: NVIDIA publishes none).
    EXPECT_TRUE(g.fp16_tflops.has_value() || g.note.find("TFLOPS left out") != std::string::npos) << g.id;
    EXPECT_TRUE(g.memory_bandwidth_gbps.has_value()) << g.id;
    EXPECT_GT(g.memory_gib, 0) << g.id;
    EXPECT_GE(g.cc_major, 7) << g.id;
    EXPECT_TRUE(g.pcie_gen >= 3 && g.pcie_gen <= 5) << g.id;
    EXPECT_EQ(g.pcie_width, 16) << g.id;
  }
}

TEST(GpuCatalog, RequiredModelsArePresent) {
  const auto& c = GpuCatalog::Builtin();
  for (const char* id : {"rtx-3090", "rtx-4080", "rtx-4080-32gb", "rtx-4090", "rtx-a6000", "rtx-6000-ada", "l4",
                         "l40s", "t4", "v100-sxm2-16gb", "v100-sxm2-32gb", "v100-pcie-16gb", "v100-pcie-32gb",
                         "a100-pcie-40gb", "a100-pcie-80gb", "a100-sxm-40gb", "a100-sxm-80gb", "h100-pcie",
                         "h100-sxm", "h200-sxm", "a40", "a30", "a10", "a10g", "l40", "rtx-a5000", "rtx-a4500",
                         "rtx-3090-ti"}) {
    EXPECT_NE(c.FindById(id), nullptr) << id;
  }
  EXPECT_EQ(c.FindById("no-such-gpu"), nullptr);
}

TEST(GpuCatalog, CourseMachineFiguresAreTheSeeds) {
  // The course page: "паспорт 97.5" for BF16/FP16 matmul and "паспорт 716.8" for memory.
  const GpuSpec* g = GpuCatalog::Builtin().FindById("rtx-4080-32gb");
  ASSERT_NE(g, nullptr);
  EXPECT_DOUBLE_EQ(g->bf16_tflops.value(), 97.5);
  EXPECT_DOUBLE_EQ(g->fp16_tflops.value(), 97.5);
  EXPECT_DOUBLE_EQ(g->memory_bandwidth_gbps.value(), 716.8);
  EXPECT_TRUE(g->geforce);
  EXPECT_FALSE(g->nvlink_gbps.has_value());
  EXPECT_NE(g->note.find("may differ"), std::string::npos);
  EXPECT_EQ(g->cc_major, 8);
  EXPECT_EQ(g->cc_minor, 9);
}

// Each entry names its sources by their key in the file's "sources" table ("a40_datasheet (dense
// figures); ga102_whitepaper (four links)"), so every figure leads to a title and a URL; a key
// mistyped would leave the reader with nothing to check.
TEST(GpuCatalog, EveryEntryNamesItsSourcesByKey) {
  const nlohmann::json root = nlohmann::json::parse(ReadSourceFile("data/gpus.json"));
  const nlohmann::json& sources = root.at("sources");
  for (const auto& g : root.at("gpus")) {
    std::stringstream parts(g.at("source").get<std::string>());
    for (std::string part; std::getline(parts, part, ';');) {
      std::stringstream words(part);
      std::string key;
      words >> key;
      EXPECT_TRUE(sources.contains(key)) << g.at("id") << ": '" << key << "' is not in sources";
    }
  }
}

// A GeForce card's FP32-accumulate rate is its FP16-accumulate rate × the file's factor (half), as
// the GA102 and Ada whitepapers print them; an entry that breaks it has a figure from elsewhere.
TEST(GpuCatalog, GeForceEntriesHalveFp32Accumulation) {
  const GpuCatalog& c = GpuCatalog::Builtin();
  for (const GpuSpec& g : c.gpus()) {
    if (!g.geforce) continue;
    ASSERT_TRUE(g.fp16_fp16acc_tflops.has_value()) << g.id;
    EXPECT_NEAR(*g.fp16_tflops, *g.fp16_fp16acc_tflops * c.derived_rules().geforce_fp32_accumulate_factor, 0.1) << g.id;
  }
}

TEST(GpuCatalog, DatacenterCardsHaveNoHalfRateAccumulateFigure) {
  // Only GeForce cards halve FP16 with FP32 accumulation; the field is "only where it differs".
  for (const GpuSpec& g : GpuCatalog::Builtin().gpus()) {
    EXPECT_EQ(g.fp16_fp16acc_tflops.has_value(), g.geforce) << g.id;
  }
}

struct NameCase {
  const char* driver_name;
  double memory_gib;
  const char* expected_id;  // nullptr: unknown GPU
};

// Readable test names in ctest instead of the struct's bytes.
void PrintTo(const NameCase& c, std::ostream* os) { *os << c.driver_name << " / " << c.memory_gib << " GiB"; }

class MatchTest : public ::testing::TestWithParam<NameCase> {};

TEST_P(MatchTest, PicksTheRightEntry) {
  const NameCase& c = GetParam();
  const GpuSpec* g = GpuCatalog::Builtin().Match(c.driver_name, c.memory_gib);
  if (c.expected_id == nullptr) {
    EXPECT_EQ(g, nullptr) << c.driver_name << " matched " << (g ? g->id : "");
  } else {
    ASSERT_NE(g, nullptr) << c.driver_name;
    EXPECT_EQ(g->id, c.expected_id) << c.driver_name;
  }
}

// Memory sizes as the driver reports them (MiB / 1024), not as sold.
INSTANTIATE_TEST_SUITE_P(
    DriverNames, MatchTest,
    ::testing::Values(NameCase{"NVIDIA GeForce RTX 4080", 15.99, "rtx-4080"},
                      NameCase{"NVIDIA GeForce RTX 4080", 31.99, "rtx-4080-32gb"},
                      NameCase{"NVIDIA GeForce RTX 4080", 0, "rtx-4080"},
                      NameCase{"NVIDIA GeForce RTX 4080 SUPER", 15.99, nullptr},
                      NameCase{"NVIDIA GeForce RTX 4080 Laptop GPU", 12, nullptr},
                      NameCase{"NVIDIA GeForce RTX 3090", 24, "rtx-3090"},
                      NameCase{"NVIDIA GeForce RTX 3090 Ti", 23.99, "rtx-3090-ti"},
                      NameCase{"NVIDIA GeForce RTX 3080 Ti", 11.99, nullptr},
                      NameCase{"NVIDIA GeForce RTX 4090", 23.99, "rtx-4090"},
                      NameCase{"NVIDIA GeForce RTX 4090 D", 23.99, nullptr},
                      NameCase{"NVIDIA A100-SXM4-80GB", 80, "a100-sxm-80gb"},
                      NameCase{"NVIDIA A100-SXM4-40GB", 40, "a100-sxm-40gb"},
                      NameCase{"NVIDIA A100-PCIE-40GB", 40, "a100-pcie-40gb"},
                      NameCase{"NVIDIA A100 80GB PCIe", 80, "a100-pcie-80gb"},
                      NameCase{"NVIDIA H100 80GB HBM3", 79.6, "h100-sxm"},
                      NameCase{"NVIDIA H100 PCIe", 79.6, "h100-pcie"},
                      NameCase{"NVIDIA H100 NVL", 93.6, "h100-nvl"},
                      NameCase{"NVIDIA H200", 140.4, "h200-sxm"},
                      NameCase{"NVIDIA H200 NVL", 140.4, nullptr},
                      NameCase{"Tesla T4", 15.1, "t4"},
                      NameCase{"Tesla V100-SXM2-32GB", 32, "v100-sxm2-32gb"},
                      NameCase{"Tesla V100-SXM2-16GB", 16, "v100-sxm2-16gb"},
                      NameCase{"Tesla V100-PCIE-16GB", 16, "v100-pcie-16gb"},
                      NameCase{"Tesla V100S-PCIE-32GB", 32, nullptr},
                      NameCase{"NVIDIA L4", 22.5, "l4"},
                      NameCase{"NVIDIA L40S", 44.5, "l40s"},
                      NameCase{"NVIDIA L40", 44.99, "l40"},
                      NameCase{"NVIDIA A40", 44.99, "a40"},
                      NameCase{"NVIDIA A30", 23.5, "a30"},
                      NameCase{"NVIDIA A10", 22.49, "a10"},
                      NameCase{"NVIDIA A10G", 22.49, "a10g"},
                      NameCase{"NVIDIA A100-PCIE-40GB", 39.5, "a100-pcie-40gb"},
                      NameCase{"NVIDIA A16", 14.5, nullptr},
                      NameCase{"NVIDIA RTX A4000", 15.99, nullptr},
                      NameCase{"NVIDIA RTX A5000", 23.99, "rtx-a5000"},
                      NameCase{"NVIDIA RTX A5000 Laptop GPU", 15.99, nullptr},
                      NameCase{"NVIDIA RTX 5000 Ada Generation", 31.99, nullptr},
                      NameCase{"NVIDIA RTX A5500", 23.99, nullptr},
                      NameCase{"NVIDIA RTX A4500", 19.99, "rtx-a4500"},
                      NameCase{"NVIDIA RTX A4500 Laptop GPU", 15.99, nullptr},
                      NameCase{"NVIDIA RTX 4500 Ada Generation", 23.99, nullptr},
                      NameCase{"NVIDIA RTX A4500 Ada Generation", 23.99, nullptr},
                      NameCase{"NVIDIA RTX A6000", 47.5, "rtx-a6000"},
                      NameCase{"NVIDIA RTX 6000 Ada Generation", 47.5, "rtx-6000-ada"},
                      NameCase{"Quadro RTX 6000", 24, nullptr},
                      NameCase{"NVIDIA GeForce GTX 1080 Ti", 11, nullptr}));

TEST(GpuCatalog, DeviceNameWordsSplitsAtDashesAndLowersCase) {
  EXPECT_EQ(DeviceNameWords("NVIDIA A100-SXM4_80GB  x"),
            (std::vector<std::string>{"nvidia", "a100", "sxm4", "80gb", "x"}));
}

TEST(GpuCatalog, SharesAreTheCourseBands) {
  const auto& c = GpuCatalog::Builtin();
  EXPECT_DOUBLE_EQ(c.matmul_share().low, 0.70);
  EXPECT_DOUBLE_EQ(c.matmul_share().high, 0.85);
  EXPECT_DOUBLE_EQ(c.memory_copy_share().low, 0.80);
  EXPECT_DOUBLE_EQ(c.memory_copy_share().high, 0.90);
  EXPECT_FALSE(c.matmul_share_source().empty());
  EXPECT_FALSE(c.memory_copy_share_source().empty());
}

TEST(GpuCatalog, PcieTableHasTheCourseFigures) {
  const auto& c = GpuCatalog::Builtin();
  const auto gen4x16 = c.Pcie(4, 16);
  ASSERT_TRUE(gen4x16.has_value());
  EXPECT_NEAR(gen4x16->limit_gbps, 32, 1);
  EXPECT_DOUBLE_EQ(gen4x16->practice_gbps.low, 20);
  EXPECT_DOUBLE_EQ(gen4x16->practice_gbps.high, 26);
  for (auto [gen, width] : {std::pair{3, 16}, std::pair{4, 8}}) {
    const auto link = c.Pcie(gen, width);
    ASSERT_TRUE(link.has_value());
    EXPECT_DOUBLE_EQ(link->practice_gbps.low, 12);
    EXPECT_DOUBLE_EQ(link->practice_gbps.high, 13);
  }
  const auto gen5x16 = c.Pcie(5, 16);
  ASSERT_TRUE(gen5x16.has_value());
  EXPECT_NEAR(gen5x16->practice_gbps.low / gen4x16->practice_gbps.low, 2.0, 0.01);
  EXPECT_FALSE(c.Pcie(4, 2).has_value());
  for (const PcieLink& l : c.pcie_links()) EXPECT_NE(l.source.find("pcisig.com"), std::string::npos);
}

TEST(PcieLink, LimitsPerGenerationAndWidth) {
  EXPECT_NEAR(PcieLimitGbps(3, 16), 15.75, 0.01);
  EXPECT_NEAR(PcieLimitGbps(4, 16), 31.51, 0.01);  // the seed's "about 32"
  EXPECT_NEAR(PcieLimitGbps(5, 16), 63.02, 0.01);
  EXPECT_NEAR(PcieLimitGbps(4, 8), PcieLimitGbps(3, 16), 0.01);
  EXPECT_EQ(PcieLimitGbps(0, 16), 0);
  EXPECT_EQ(PcieLimitGbps(4, 0), 0);
}

TEST(PcieLink, TheCatalogTableAgreesWithTheFormula) {
  for (const PcieLink& l : GpuCatalog::Builtin().pcie_links())
    EXPECT_NEAR(l.limit_gbps, PcieLimitGbps(l.gen, l.width), 0.02) << l.gen << " x" << l.width;
  const std::string text = R"({"sources": {}, "realistic_share": {"matmul": {"low": 0.7, "high": 0.85},
    "memory_copy": {"low": 0.8, "high": 0.9}},
    "pcie": {"links": [{"gen": 4, "width": 16, "limit_gbps": 32.0, "practice_gbps": [20, 26], "source": "x"}]},
    "gpus": []})";
  Result<GpuCatalog> wrong = GpuCatalog::Parse(text);
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.status().message().find("limit_gbps"), std::string::npos) << wrong.status().message();
}

TEST(GpuCatalog, ParseRejectsAGpuWithoutSource) {
  const std::string text = R"({"sources": {}, "realistic_share": {"matmul": {"low": 0.7, "high": 0.85},
    "memory_copy": {"low": 0.8, "high": 0.9}}, "pcie": {"links": []},
    "gpus": [{"id": "x", "name": "X", "match": ["x"], "compute_capability": "8.0", "memory_gib": 8,
              "tflops": {"fp16": 1}, "pcie": {"gen": 4, "width": 16}}]})";
  Result<GpuCatalog> parsed = GpuCatalog::Parse(text);
  ASSERT_FALSE(parsed.ok());
  EXPECT_NE(parsed.status().message().find("gpu x has no source"), std::string::npos) << parsed.status().message();
}

TEST(GpuCatalog, ParseReportsCorruptJsonAsAnError) {
  Result<GpuCatalog> parsed = GpuCatalog::Parse("{\"sources\": ");
  ASSERT_FALSE(parsed.ok());
  EXPECT_NE(parsed.status().message().find("gpus.json"), std::string::npos);
}

// The sources' Russian forms (data/gpus.json "sources_ru") are the same documents: a key there that
// "sources" lacks would be a source no English report names, so the file is refused for it.
TEST(GpuCatalog, EveryRussianSourceFormNamesAKeyOfSources) {
  const nlohmann::json root = nlohmann::json::parse(ReadSourceFile("data/gpus.json"));
  const nlohmann::json& sources = root.at("sources");
  ASSERT_TRUE(root.contains("sources_ru"));
  for (const auto& [key, text] : root.at("sources_ru").items()) EXPECT_TRUE(sources.contains(key)) << key;
  // Each source's text carries our description of it (what it gives, where it is quoted from), so
  // each has a Russian form; a source that is only a title and a URL is copied as it is.
  for (const auto& [key, text] : sources.items()) EXPECT_TRUE(root.at("sources_ru").contains(key)) << key;

  const std::string orphan = R"({"sources": {"a": "A datasheet: https://a"}, "sources_ru": {"b": "паспорт B"},
    "realistic_share": {"matmul": {"low": 0.7, "high": 0.85}, "memory_copy": {"low": 0.8, "high": 0.9}},
    "pcie": {"links": []}, "gpus": []})";
  Result<GpuCatalog> parsed = GpuCatalog::Parse(orphan);
  ASSERT_FALSE(parsed.ok());
  EXPECT_NE(parsed.status().message().find("sources_ru: b is not in sources"), std::string::npos) << parsed.status().message();
}

// The keys a source text names, in order ("a40_datasheet (dense figures); ga102_whitepaper (four
// links)" → a40_datasheet, ga102_whitepaper).
std::vector<std::string> KeysNamed(const std::string& text, const nlohmann::json& sources) {
  std::vector<std::pair<size_t, std::string>> found;
  for (const auto& [key, full] : sources.items()) {
    for (size_t at = text.find(key); at != std::string::npos; at = text.find(key, at + 1)) found.emplace_back(at, key);
  }
  std::sort(found.begin(), found.end());
  std::vector<std::string> keys;
  for (const auto& [at, key] : found) keys.push_back(key);
  return keys;
}

// Our own words in a source text: what is left once the keys and the 'quotations' are taken out, if
// it holds a Latin word in lower case ("dense = sparse / 2"); names ("NVLink", "PCIe 4.0"), units
// ("125 TFLOPS / (80 SM × 1.53 GHz)") and a Russian quotation are not words to translate.
bool HasOurEnglishWords(std::string text, const nlohmann::json& sources) {
  for (const auto& [key, full] : sources.items()) {
    for (size_t at = text.find(key); at != std::string::npos; at = text.find(key)) text.erase(at, key.size());
  }
  for (size_t open = text.find('\''); open != std::string::npos; open = text.find('\'')) {
    const size_t close = text.find('\'', open + 1);
    text.erase(open, close == std::string::npos ? std::string::npos : close - open + 1);
  }
  std::string word;  // the Latin letters since the last other character
  for (const char c : text + ' ') {
    if (std::isalpha(static_cast<unsigned char>(c))) {
      word.push_back(c);
      continue;
    }
    if (word.size() >= 2 && std::all_of(word.begin(), word.end(), [](char w) { return std::islower(static_cast<unsigned char>(w)); }))
      return true;
    word.clear();
  }
  return false;
}

// Every source text a report shows (a GPU's, the shares', NVLink's): where it adds words of ours to
// the keys, a Russian report needs them in Russian ("source_ru"), naming the same sources in the
// same order so that neither language cites a document the other does not.
TEST(GpuCatalog, EverySourceWithOurWordsHasARussianFormNamingTheSameKeys) {
  const nlohmann::json root = nlohmann::json::parse(ReadSourceFile("data/gpus.json"));
  const nlohmann::json& sources = root.at("sources");
  std::vector<std::pair<std::string, nlohmann::json>> entries;
  for (const auto& g : root.at("gpus")) entries.emplace_back("gpu " + g.at("id").get<std::string>(), g);
  for (const char* share : {"matmul", "memory_copy"}) entries.emplace_back(share, root.at("realistic_share").at(share));
  entries.emplace_back("nvlink copy_share", root.at("nvlink").at("copy_share"));
  for (const auto& generation : root.at("nvlink").at("generations")) entries.emplace_back(generation.at("id"), generation);
  for (const auto& [where, entry] : entries) {
    const std::string en = entry.at("source").get<std::string>();
    if (!entry.contains("source_ru")) {
      EXPECT_FALSE(HasOurEnglishWords(en, sources)) << where << ": '" << en << "' needs a source_ru";
      continue;
    }
    const std::string ru = entry.at("source_ru").get<std::string>();
    EXPECT_EQ(KeysNamed(ru, sources), KeysNamed(en, sources)) << where;
    EXPECT_FALSE(HasOurEnglishWords(ru, sources)) << where << ": '" << ru << "'";
  }
}

// The course machine's card: the Russian form carries our remarks in Russian around the published
// title and URL; the English form is what it always was.
TEST(GpuCatalog, TheCourseCardsSourceSpeaksBothLanguages) {
  const GpuSpec* g = GpuCatalog::Builtin().FindById("rtx-4080-32gb");
  ASSERT_NE(g, nullptr);
  const std::string title = "NVIDIA Ada GPU Architecture whitepaper v2.1";
  const std::string url = "https://images.nvidia.com/aem-dam/Solutions/geforce/ada/nvidia-ada-gpu-architecture.pdf";
  EXPECT_EQ(g->source.en,
            title + ", appendix A (RTX 4090, RTX 4080 16 GB, RTX 6000 Ada): " + url +
                " (stock RTX 4080 figures); Course lab page «Ваша лаборатория (4×GPU)» of the LLM course, table in "
                "section «Как читать отчёт» (the course machine: 4× RTX 4080 32 GB)");
  EXPECT_EQ(g->source.ru,
            title + ", приложение A (RTX 4090, RTX 4080 16 ГБ, RTX 6000 Ada): " + url +
                " (цифры штатной RTX 4080); страница курса по LLM «Ваша лаборатория (4×GPU)», таблица в разделе "
                "«Как читать отчёт» (машина курса: 4× RTX 4080 32 ГБ)");
  const GpuCatalog& c = GpuCatalog::Builtin();
  EXPECT_NE(c.matmul_share_source().ru.find("'реально 68–83 (70–85% паспорта)' для матмула BF16/FP16"), std::string::npos);
  EXPECT_NE(c.matmul_share_source().en.find("'реально 68–83 (70–85% паспорта)' for BF16/FP16 matmul"), std::string::npos);
}

// A key without a Russian form, and an entry without "source_ru", are shown in English in both.
TEST(GpuCatalog, ASourceWithoutARussianFormIsShownInEnglish) {
  const std::string text = R"json({"sources": {"a": "A datasheet: https://a", "b": "B notes (ours): https://b"},
    "sources_ru": {"b": "заметки B (наши): https://b"},
    "realistic_share": {"matmul": {"low": 0.7, "high": 0.85, "source": "a; b"},
                        "memory_copy": {"low": 0.8, "high": 0.9, "source": "a (our words)", "source_ru": "a (наши слова)"}},
    "pcie": {"links": []}, "gpus": []})json";
  Result<GpuCatalog> parsed = GpuCatalog::Parse(text);
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  EXPECT_EQ(parsed->matmul_share_source().en, "A datasheet: https://a; B notes (ours): https://b");
  EXPECT_EQ(parsed->matmul_share_source().ru, "A datasheet: https://a; заметки B (наши): https://b");
  EXPECT_EQ(parsed->memory_copy_share_source().en, "A datasheet: https://a (our words)");
  EXPECT_EQ(parsed->memory_copy_share_source().ru, "A datasheet: https://a (наши слова)");
}

}  // namespace
}  // namespace labcheck::reference

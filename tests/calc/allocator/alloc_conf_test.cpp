// --alloc-conf is parsed by the rules of PyTorch's parser (c10/core/AllocatorConfig.cpp at
// 065861fb); the refusals are test_allocator_settings' own ("foo:1,bar:2",
// "garbage_collection_threshold:1.2", "max_split_size_mb:2" raise), and the constants behind the
// model are the numbers of the allocator's source lines quoted in data/caching_allocator.json.
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <sstream>

#include <nlohmann/json.hpp>

#include "calc/allocator/alloc_conf.h"

namespace labcheck::calc::allocator {
namespace {

constexpr uint64_t kConfMiB = 1024 * 1024;
const AllocatorConstants& Constants() { return AllocatorConstants::Builtin(); }

TEST(AllocConfTest, EmptyTextGivesPyTorchsDefaults) {
  const auto c = ParseAllocConf("", Constants());
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->max_split_size, UINT64_MAX);
  EXPECT_EQ(c->max_non_split_rounding_size, Constants().large_buffer);
  EXPECT_FALSE(c->expandable_segments);
  EXPECT_EQ(c->roundup_power2_divisions, std::vector<uint64_t>(16, 0));
}

TEST(AllocConfTest, ReadsEveryOptionTheAllocatorHas) {
  const auto c = ParseAllocConf(
      "max_split_size_mb:128, max_non_split_rounding_mb:40,garbage_collection_threshold:0.6,"
      "expandable_segments:True,roundup_power2_divisions:[256:1,512:2,>:4],release_lock_on_cudamalloc:True",
      Constants());
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->max_split_size, 128 * kConfMiB);
  EXPECT_EQ(c->max_non_split_rounding_size, 40 * kConfMiB);
  EXPECT_DOUBLE_EQ(c->garbage_collection_threshold, 0.6);
  EXPECT_TRUE(c->expandable_segments);
  // The first entry fills every interval below it; ">" fills from the last entry on.
  EXPECT_EQ(c->DivisionsFor(2 * kConfMiB), 1u);
  EXPECT_EQ(c->DivisionsFor(300 * kConfMiB), 1u);
  EXPECT_EQ(c->DivisionsFor(600 * kConfMiB), 4u);
  EXPECT_EQ(c->DivisionsFor(8000 * kConfMiB), 4u);
}

TEST(AllocConfTest, TheSingleValueFormSetsEveryInterval) {
  const auto c = ParseAllocConf("roundup_power2_divisions:8", Constants());
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->DivisionsFor(1000), 8u);
  EXPECT_EQ(c->DivisionsFor(100000 * kConfMiB), 8u);
}

TEST(AllocConfTest, RefusesWhatPyTorchRefusesAndSaysWhy) {
  struct Case {
    const char* text;
    const char* says;
  } cases[] = {
      {"foo:1,bar:2", "unknown option 'foo'"},
      {"garbage_collection_threshold:1.2", "between 0 and 1"},
      {"max_split_size_mb:2", "at least 20"},
      {"roundup_power2_divisions:3", "power of 2"},
      {"roundup_power2_divisions:[100:2]", "interval '100'"},
      {"expandable_segments:yes", "True or False"},
      {"backend:cudaMallocAsync", "only the native caching allocator"},
      {"max_split_size_mb", "expected ':'"},
  };
  for (const Case& c : cases) {
    const auto parsed = ParseAllocConf(c.text, Constants());
    ASSERT_FALSE(parsed.ok()) << c.text;
    EXPECT_NE(parsed.status().message().find(c.says), std::string::npos) << c.text << ": " << parsed.status().message();
    EXPECT_EQ(parsed.status().message().rfind("--alloc-conf: ", 0), 0u) << c.text;
  }
  // The report's language by default: every refusal in Russian too.
  struct Said {
    const char* text;
    const char* ru;
  } russian[] = {
      {"foo:1", "неизвестный параметр 'foo'"},
      {"garbage_collection_threshold:1.2", "больше 0 и меньше 1"},
      {"max_split_size_mb:2", "не меньше 20"},
      {"roundup_power2_divisions:3", "степень двойки"},
      {"expandable_segments:yes", "True или False"},
      {"max_split_size_mb", "нужно ':'"},
  };
  for (const Said& c : russian) {
    const auto parsed = ParseAllocConf(c.text, Constants(), Lang::Ru);
    ASSERT_FALSE(parsed.ok()) << c.text;
    EXPECT_NE(parsed.status().message().find(c.ru), std::string::npos) << c.text << ": " << parsed.status().message();
  }
}

// Issue 55's "a test shows the constants are the allocator source's": each value in
// data/caching_allocator.json is the number in the source line quoted beside it, and the model
// reads those values.
TEST(AllocatorConstantsTest, EveryValueIsTheNumberInItsQuotedSourceLine) {
  std::ifstream in(std::string(LAB_CHECK_SOURCE_DIR) + "/data/caching_allocator.json");
  std::stringstream text;
  text << in.rdbuf();
  const nlohmann::json root = nlohmann::json::parse(text.str());
  EXPECT_EQ(root.at("source").at("repository"), "pytorch/pytorch");
  EXPECT_EQ(root.at("source").at("commit").get<std::string>().size(), 40u);
  const std::regex number(R"(=\s*(\d+)\s*;)");
  const std::pair<const char*, uint64_t> fields[] = {
      {"min_block_size", Constants().min_block_size}, {"small_size", Constants().small_size},         {"small_buffer", Constants().small_buffer},
      {"large_buffer", Constants().large_buffer},     {"min_large_alloc", Constants().min_large_alloc}, {"round_large", Constants().round_large},
      {"roundup_power2_intervals", static_cast<uint64_t>(Constants().roundup_power2_intervals)}};
  for (const auto& [name, used] : fields) {
    const nlohmann::json& field = root.at(name);
    const std::string line = field.at("line");
    std::smatch m;
    ASSERT_TRUE(std::regex_search(line, m, number)) << name << ": " << line;
    EXPECT_EQ(std::stoull(m[1].str()), field.at("value").get<uint64_t>()) << name;
    EXPECT_EQ(used, field.at("value").get<uint64_t>()) << name;
  }
  EXPECT_NE(root.at("expandable_address_space").at("line").get<std::string>().find("totalGlobalMem / 8"), std::string::npos);
  EXPECT_EQ(Constants().expandable_address_numerator, 9u);
  EXPECT_EQ(Constants().expandable_address_denominator, 8u);
}

}  // namespace
}  // namespace labcheck::calc::allocator

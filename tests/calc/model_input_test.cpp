// MODEL on the command line: catalog names and aliases, sizes, config paths, the HF cache.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "calc/model_input.h"

namespace labcheck::calc {
namespace {

namespace fs = std::filesystem;

EnvLookup FakeEnv(std::map<std::string, std::string> values) {
  return [values](const std::string& name) -> std::optional<std::string> {
    auto it = values.find(name);
    return it == values.end() ? std::nullopt : std::optional<std::string>(it->second);
  };
}

TEST(ModelInputTest, CatalogNamesAreCaseInsensitiveWithAliases) {
  const ModelCatalog& catalog = ModelCatalog::Builtin();
  for (const char* name : {"qwen3-8b", "Qwen/Qwen3-8B", "QWEN3_8B", "Qwen3 8B"}) {
    const CatalogModel* model = catalog.Find(name);
    ASSERT_NE(model, nullptr) << name;
    EXPECT_EQ(model->id, "qwen3-8b");
  }
  EXPECT_EQ(catalog.Find("meta-llama/Llama-3.1-70B-Instruct")->id, "llama-3.1-70b");
  EXPECT_EQ(catalog.Find("google/gemma-3-12b-pt")->id, "gemma-3-12b");
  EXPECT_EQ(catalog.Find("qwen3-9b"), nullptr);
}

TEST(ModelInputTest, NoTwoCatalogEntriesShareAName) {
  const ModelCatalog& catalog = ModelCatalog::Builtin();
  std::map<std::string, std::string> seen;
  for (const CatalogModel& model : catalog.models()) {
    std::vector<std::string> names = model.aliases;
    names.push_back(model.id);
    names.push_back(model.hf_repo);
    for (const std::string& name : names) {
      auto [it, inserted] = seen.emplace(NormalizeModelName(name), model.id);
      EXPECT_TRUE(inserted || it->second == model.id) << name << " names both " << it->second << " and " << model.id;
    }
  }
}

TEST(ModelInputTest, ParsesSizes) {
  EXPECT_EQ(ParseParamCount("7B"), 7'000'000'000);
  EXPECT_EQ(ParseParamCount("0.5b"), 500'000'000);
  EXPECT_EQ(ParseParamCount("70e9"), 70'000'000'000);
  EXPECT_EQ(ParseParamCount("125M"), 125'000'000);
  EXPECT_FALSE(ParseParamCount("7").has_value());  // surely 7B, but we do not guess
  EXPECT_FALSE(ParseParamCount("7X").has_value());
  EXPECT_FALSE(ParseParamCount("qwen3-8b").has_value());
}

TEST(ModelInputTest, BareSizeHasNoArchitecture) {
  auto model = ResolveModel("7B", ModelCatalog::Builtin(), FakeEnv({}));
  ASSERT_TRUE(model.ok());
  EXPECT_FALSE(model->has_architecture());
  EXPECT_EQ(model->total_params(), 7'000'000'000);
}

TEST(ModelInputTest, UnknownModelSuggestsClosestCatalogNames) {
  auto model = ResolveModel("qwen3-9b", ModelCatalog::Builtin(), FakeEnv({{"HF_HUB_CACHE", "/nonexistent"}}), Lang::En);
  ASSERT_FALSE(model.ok());
  EXPECT_NE(model.status().message().find("qwen3-8b"), std::string::npos) << model.status().message();
  EXPECT_NE(model.status().message().find("/nonexistent"), std::string::npos);
}

TEST(ModelInputTest, HubCacheFolderFollowsHuggingFaceRules) {
  EXPECT_EQ(HfHubCacheDir(FakeEnv({{"HF_HUB_CACHE", "/a"}, {"HF_HOME", "/b"}})), "/a");
  EXPECT_EQ(HfHubCacheDir(FakeEnv({{"HF_HOME", "/b"}})), "/b/hub");
  EXPECT_EQ(HfHubCacheDir(FakeEnv({{"HOME", "/home/u"}})), "/home/u/.cache/huggingface/hub");
}

class ModelFilesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("calc_model_input_" + std::to_string(::getpid()));
    fs::create_directories(root_);
  }
  void TearDown() override { fs::remove_all(root_); }
  void Write(const fs::path& path, const std::string& text) {
    fs::create_directories(path.parent_path());
    std::ofstream(path) << text;
  }
  fs::path root_;
  const std::string config_ = R"({"model_type": "llama", "hidden_size": 64, "num_hidden_layers": 2,
    "num_attention_heads": 4, "num_key_value_heads": 2, "intermediate_size": 128, "vocab_size": 1000})";
};

TEST_F(ModelFilesTest, ConfigPathOrFolder) {
  Write(root_ / "tiny" / "config.json", config_);
  auto by_file = ResolveModel((root_ / "tiny" / "config.json").string(), ModelCatalog::Builtin(), FakeEnv({}));
  ASSERT_TRUE(by_file.ok()) << by_file.status().message();
  EXPECT_EQ(by_file->arch->kv_heads, 2);
  auto by_folder = ResolveModel((root_ / "tiny").string(), ModelCatalog::Builtin(), FakeEnv({}));
  ASSERT_TRUE(by_folder.ok());
  EXPECT_EQ(by_folder->display_name, "tiny");
}

TEST_F(ModelFilesTest, RepoIdFromTheHubCachePrefersRefsMain) {
  const fs::path repo = root_ / "hub" / "models--acme--tiny-llm";
  Write(repo / "snapshots" / "old" / "config.json", R"({"broken": true})");
  Write(repo / "snapshots" / "abc123" / "config.json", config_);
  Write(repo / "refs" / "main", "abc123\n");
  auto model = ResolveModel("acme/tiny-llm", ModelCatalog::Builtin(), FakeEnv({{"HF_HOME", root_.string()}}));
  ASSERT_TRUE(model.ok()) << model.status().message();
  EXPECT_EQ(model->hf_repo, "acme/tiny-llm");
  EXPECT_EQ(model->arch->hidden, 64);
}

TEST_F(ModelFilesTest, MalformedConfigNamesTheField) {
  Write(root_ / "bad" / "config.json", R"({"model_type": "llama", "hidden_size": 64})");
  auto model = ResolveModel((root_ / "bad").string(), ModelCatalog::Builtin(), FakeEnv({}), Lang::En);
  ASSERT_FALSE(model.ok());
  EXPECT_NE(model.status().message().find("num_hidden_layers"), std::string::npos) << model.status().message();
}

}  // namespace
}  // namespace labcheck::calc

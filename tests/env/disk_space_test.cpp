#include "env/disk_space.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>

namespace labcheck::env {
namespace {

// An environment made of a map: tests never change the process's own variables.
auto FakeEnv(std::map<std::string, std::string> values) {
  return [values = std::move(values)](const char* name) -> const char* {
    auto it = values.find(name);
    return it == values.end() ? nullptr : it->second.c_str();
  };
}

TEST(ResolveHfCache, HubCacheVariableWinsOverHfHome) {
  auto location = ResolveHfCache(FakeEnv({{"HF_HUB_CACHE", "/data/hub"}, {"HF_HOME", "/data/hf"}}));
  EXPECT_EQ(location.path, "/data/hub");
  EXPECT_EQ(location.source, "HF_HUB_CACHE");
}

TEST(ResolveHfCache, LegacyVariableIsStillHonoured) {
  auto location = ResolveHfCache(FakeEnv({{"HUGGINGFACE_HUB_CACHE", "/old/hub"}, {"HF_HOME", "/x"}}));
  EXPECT_EQ(location.path, "/old/hub");
  EXPECT_EQ(location.source, "HUGGINGFACE_HUB_CACHE");
}

TEST(ResolveHfCache, HfHomeGetsHubAppended) {
  auto location = ResolveHfCache(FakeEnv({{"HF_HOME", "/data/hf"}, {"HOME", "/home/u"}}));
  EXPECT_EQ(location.path, "/data/hf/hub");
  EXPECT_EQ(location.source, "HF_HOME");
}

TEST(ResolveHfCache, XdgCacheHomeBeforeTheDefault) {
  auto location = ResolveHfCache(FakeEnv({{"XDG_CACHE_HOME", "/c"}, {"HOME", "/home/u"}}));
  EXPECT_EQ(location.path, "/c/huggingface/hub");
}

TEST(ResolveHfCache, DefaultsUnderHomeAndIgnoresEmptyVariables) {
  auto location = ResolveHfCache(FakeEnv({{"HF_HOME", ""}, {"HOME", "/home/u"}}));
  EXPECT_EQ(location.path, "/home/u/.cache/huggingface/hub");
  EXPECT_EQ(location.source, "default");
}

TEST(ResolveHfCache, RelativePathsAreMadeAbsolute) {
  auto location = ResolveHfCache(FakeEnv({{"HF_HOME", "cache/hf"}}));
  EXPECT_EQ(location.path, (std::filesystem::current_path() / "cache/hf/hub").string());
}

TEST(MeasureDiskSpace, MissingPathIsMeasuredAtItsNearestParent) {
  std::string tmp = std::filesystem::temp_directory_path().string();
  auto space = MeasureDiskSpace(tmp + "/labcheck-does-not-exist/a/b");
  ASSERT_TRUE(space.ok()) << space.status().message();
  EXPECT_FALSE(space->exists);
  EXPECT_EQ(space->measured_path, tmp);
  EXPECT_GT(space->total_bytes, 0u);
  EXPECT_LE(space->free_bytes, space->total_bytes);
}

TEST(MeasureDiskSpace, ExistingDirectoryIsMeasuredItself) {
  auto space = MeasureDiskSpace("/");
  ASSERT_TRUE(space.ok());
  EXPECT_TRUE(space->exists);
  EXPECT_EQ(space->measured_path, "/");
}

}  // namespace
}  // namespace labcheck::env

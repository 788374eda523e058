// Every data file cites sources a reader can open (the course page by title, a datasheet, a
// paper), never a path of this repository's development files such as shared/seeds/….
#include <gtest/gtest.h>

#include <filesystem>

#include "platform/files.h"

namespace labcheck {
namespace {

TEST(DataSources, NoDataFileCitesADevelopmentFile) {
  int files = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(std::string(LAB_CHECK_SOURCE_DIR) + "/data")) {
    if (!entry.is_regular_file()) continue;
    auto text = ReadFile(entry.path().string());
    ASSERT_TRUE(text.ok()) << entry.path();
    ++files;
    EXPECT_EQ(text->find("shared/"), std::string::npos) << entry.path();
    EXPECT_EQ(text->find("seeds/"), std::string::npos) << entry.path();
  }
  EXPECT_GE(files, 4);
}

}  // namespace
}  // namespace labcheck

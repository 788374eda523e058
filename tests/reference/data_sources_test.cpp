// Every data file cites sources a reader can open (the course page by title, a datasheet, a
// paper), never a path of this repository's development files such as shared/seeds/….
#include <gtest/gtest.h>

#include <filesystem>

#include "platform/files.h"
#include "reference/reference_data.h"

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

namespace labcheck {
namespace {

// Each top-level data file the reference library embeds is served whole: a table that lost its
// last entries (a count that disagreed with the files listed) hid data/compat.json once.
TEST(DataSources, EveryEmbeddedReferenceFileIsServedWhole) {
  for (const char* name : {"gpus.json", "hints.json", "xid_catalog.json", "compat.json", "finding_codes.json", "nvlink5_xid_decode.json"}) {
    auto text = ReadFile(std::string(LAB_CHECK_SOURCE_DIR) + "/data/" + name);
    ASSERT_TRUE(text.ok()) << name;
    EXPECT_EQ(reference::ReferenceFile(name), *text) << name;
  }
}

}  // namespace
}  // namespace labcheck

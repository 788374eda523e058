// Per-GPU table rows merged when they say the same: the GPU list, the order, and the rows that
// belong to no GPU.
#include <gtest/gtest.h>

#include "core/gpu_rows.h"

namespace labcheck {
namespace {

TEST(GpuRows, ListsRunsAndSaysAllOnlyForEveryCard) {
  EXPECT_EQ(GpuListText({0, 1, 2, 3}, 4).en, "all");
  EXPECT_EQ(GpuListText({0, 1, 2, 3}, 4).ru, "все");
  EXPECT_EQ(GpuListText({0}, 1).en, "0");  // one card: its number, not "all"
  EXPECT_EQ(GpuListText({0, 2}, 4).en, "0, 2");
  EXPECT_EQ(GpuListText({1, 2}, 4).en, "1, 2");
  EXPECT_EQ(GpuListText({0, 1, 2, 5, 6, 7}, 8).en, "0–2, 5–7");
}

TEST(GpuRows, VariantsOfAnItemStayTogetherAndGlobalLinesAreKept) {
  const Text ok("PASS"), warn("WARN");
  std::vector<GpuRow> rows;
  for (int gpu = 0; gpu < 3; ++gpu) {
    rows.push_back({"ecc", gpu, {Text("ECC"), ok}});
    rows.push_back({"power", gpu, {Text("Power"), gpu == 1 ? warn : ok}});
  }
  rows.push_back({"driver", std::nullopt, {Text("Driver"), ok}});
  Table table;
  AddRowsMergedByGpu(rows, 3, 0, table);
  ASSERT_EQ(table.rows.size(), 4u);
  EXPECT_EQ(table.rows[0][0].en, "all");
  EXPECT_EQ(table.rows[0][1].en, "ECC");
  EXPECT_EQ(table.rows[1][0].en, "0, 2");
  EXPECT_EQ(table.rows[1][2].en, "PASS");
  EXPECT_EQ(table.rows[2][0].en, "1");  // the odd card right below the others' power row
  EXPECT_EQ(table.rows[2][2].en, "WARN");
  EXPECT_EQ(table.rows[3][0].en, "—");
  // The GPU column can sit anywhere.
  Table second;
  AddRowsMergedByGpu(rows, 3, 1, second);
  EXPECT_EQ(second.rows[0][0].en, "ECC");
  EXPECT_EQ(second.rows[0][1].en, "all");
}

}  // namespace
}  // namespace labcheck

#include "report/display_width.h"

#include <gtest/gtest.h>

#include "core/table.h"
#include "report/terminal_writer.h"

namespace labcheck {
namespace {

TEST(DisplayWidth, CountsColumnsNotBytes) {
  EXPECT_EQ(DisplayWidth("abc"), 3u);
  EXPECT_EQ(DisplayWidth("Память"), 6u);  // 12 bytes
  EXPECT_EQ(DisplayWidth("ГБ/с"), 4u);
  EXPECT_EQ(DisplayWidth("日本"), 4u);
  EXPECT_EQ(DisplayWidth("\x1b[32mPASS\x1b[0m"), 4u);
  EXPECT_EQ(DisplayWidth("e\xcc\x81"), 1u);  // e + combining acute accent
}

TEST(DisplayWidth, PadsAndTruncatesByColumns) {
  EXPECT_EQ(PadRight("Да", 4), "Да  ");
  EXPECT_EQ(PadLeft("Да", 4), "  Да");
  EXPECT_EQ(TruncateToWidth("Пропускная", 6), "Пропу…");
  EXPECT_EQ(DisplayWidth(TruncateToWidth("Пропускная", 6)), 6u);
  EXPECT_EQ(TruncateToWidth("short", 10), "short");
}

TEST(TerminalTable, AlignsCyrillicColumns) {
  Table t;
  t.columns = {Text("Показатель"), Text("Value")};
  t.AddRow({Text("Память"), Text("1")});
  t.AddRow({Text("CPU"), Text("22")});
  const std::string out = TableToTerminal(t, Lang::Ru, TerminalStyle{});
  // The second column starts at the same screen column on the header and on both rows, although
  // "Показатель" and "Память" take twice as many bytes as columns.
  auto column_of = [&](const std::string& cell) {
    const size_t at = out.find(cell);
    const size_t line_start = out.rfind('\n', at) == std::string::npos ? 0 : out.rfind('\n', at) + 1;
    return DisplayWidth(out.substr(line_start, at - line_start));
  };
  EXPECT_EQ(column_of("Value"), column_of("1\n"));
  EXPECT_EQ(column_of("Value"), column_of("22"));
  EXPECT_EQ(column_of("Value"), DisplayWidth("  Показатель  "));
}

}  // namespace
}  // namespace labcheck

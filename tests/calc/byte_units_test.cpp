// How byte counts and ranges are printed.
#include <gtest/gtest.h>

#include "calc/byte_units.h"
#include "calc_cli.h"

namespace labcheck::calc {
namespace {

TEST(ByteUnitsTest, ARangeWhoseEndsPrintAlikeIsOneFigure) {
  EXPECT_EQ(FormatRange("70.91 GiB (76.14 GB)", "70.91 GiB (76.14 GB)"), "70.91 GiB (76.14 GB)");
  EXPECT_EQ(FormatRange("14.6 h", "29.1 h"), "14.6 h – 29.1 h");
  // Issue 52: vram 7B --method full printed "70.91 GiB (76.14 GB) – 70.91 GiB (76.14 GB)".
  const testing::CliRun run = testing::RunCalc({"vram", "7B", "--method", "full"}, Lang::En);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const size_t line = run.out.find("Size only: needed per GPU ");
  ASSERT_NE(line, std::string::npos) << run.out;
  const std::string size_only = run.out.substr(line, run.out.find('\n', line) - line);
  EXPECT_EQ(size_only.find(" – "), std::string::npos) << size_only;
}

}  // namespace
}  // namespace labcheck::calc

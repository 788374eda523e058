#include "report/anonymize.h"

#include <gtest/gtest.h>

namespace labcheck {
namespace {

const Identity kAnna{"/home/anna", "anna", "anna-desktop"};

TEST(Anonymize, HomeBecomesTilde) {
  EXPECT_EQ(Anonymize("/home/anna/venvs/ai/bin/python", kAnna), "~/venvs/ai/bin/python");
  EXPECT_EQ(Anonymize("cd /home/anna && ls", kAnna), "cd ~ && ls");
  // A longer name that only starts like the home directory is another path.
  EXPECT_EQ(Anonymize("/home/annabel/x", kAnna), "/home/annabel/x");
}

TEST(Anonymize, UserAndHostNamesDisappear) {
  EXPECT_EQ(Anonymize("host anna-desktop, user anna", kAnna), "host <host>, user <user>");
  // Parts of other words stay.
  EXPECT_EQ(Anonymize("Savannah", kAnna), "Savannah");
}

TEST(Anonymize, GenericNamesAreLeftAlone) {
  const Identity root{"/root", "root", "localhost"};
  EXPECT_EQ(Anonymize("/root/.cache/huggingface", root), "~/.cache/huggingface");
  EXPECT_EQ(Anonymize("running as root on localhost", root), "running as root on localhost");
}

TEST(Anonymize, WalksJsonStringsAndKeys) {
  nlohmann::json j = {{"path", "/home/anna/x"}, {"list", {"anna", 1}}, {"/home/anna", true}};
  nlohmann::json out = AnonymizeJson(j, kAnna);
  EXPECT_EQ(out["path"], "~/x");
  EXPECT_EQ(out["list"][0], "<user>");
  EXPECT_EQ(out["list"][1], 1);
  EXPECT_TRUE(out.contains("~"));
  EXPECT_EQ(out.dump().find("anna"), std::string::npos);
}

TEST(Anonymize, ReportTablesAreAnonymisedBeforeLayout) {
  Report r;
  CheckResult c;
  c.tables.push_back(Table{Text("t"), {Text("path")}, {{Text("/home/anna/venv")}}, {}});
  c.measurements.push_back(Measurement{"k", Text("k"), 1, "", Text("/home/anna/x")});
  c.data = {{"python", "/home/anna/venv/bin/python"}};
  r.checks.push_back(c);
  AnonymizeReport(r, kAnna);
  EXPECT_EQ(r.checks[0].tables[0].rows[0][0].ru, "~/venv");
  EXPECT_EQ(r.checks[0].measurements[0].method.en, "~/x");
  EXPECT_EQ(r.checks[0].data["python"], "~/venv/bin/python");
}

}  // namespace
}  // namespace labcheck

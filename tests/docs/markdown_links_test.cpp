// The checker of markdown_links.h on small texts and on a tree made for the test: it finds what is
// broken, and only that.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <unistd.h>

#include "markdown_links.h"

namespace labcheck::docs {
namespace {

namespace fs = std::filesystem;

TEST(GithubAnchorTest, FollowsGithubSlugger) {
  EXPECT_EQ(GithubAnchor("`serve` against vLLM's start-up logs"), "serve-against-vllms-start-up-logs");
  EXPECT_EQ(GithubAnchor("Architecture families (issue 21)"), "architecture-families-issue-21");
  // Each space is a hyphen, a run is not merged; the dot goes.
  EXPECT_EQ(GithubAnchor("Heading 2.0 - A Complex One"), "heading-20---a-complex-one");
  EXPECT_EQ(GithubAnchor("Expert parallelism in training (`--expert-parallel N`)"), "expert-parallelism-in-training---expert-parallel-n");
  EXPECT_EQ(GithubAnchor("snake_case and *emphasis*"), "snake_case-and-emphasis");
  EXPECT_EQ(GithubAnchor("[Linked](other.md#x) title"), "linked-title");
  // Cyrillic is lower-cased and kept; guillemets, dashes and × are dropped.
  EXPECT_EQ(GithubAnchor("Что делать: «Ожидалось» — у вас × 2"), "что-делать-ожидалось--у-вас--2");
}

TEST(HeadingsTest, RepeatsGetANumberAndCodeIsNoHeading) {
  const std::vector<Heading> h = Headings("# Title\n\n## Usage\n```\n# not a heading\n```\n## Usage ##\n    # indented code\n#hashtag\n");
  ASSERT_EQ(h.size(), 3u);
  EXPECT_EQ(h[0].anchor, "title");
  EXPECT_EQ(h[1].anchor, "usage");
  EXPECT_EQ(h[2].text, "Usage");
  EXPECT_EQ(h[2].anchor, "usage-1");
}

TEST(RelativeLinksTest, LeavesExternalLinksAndCodeOut) {
  const std::vector<Link> links = RelativeLinks(
      "See [a](docs/a.md#x), ![img](images/p.png \"title\") and [web](https://example.com).\n"
      "`[not](a-link.md)` and [mail](mailto:x@y.z)\n"
      "```\n[also not](b.md)\n```\n"
      "[ref]: ../c.md\n"
      "[self](#here) [paren](f(1).md)\n");
  ASSERT_EQ(links.size(), 5u);
  EXPECT_EQ(links[0].target, "docs/a.md#x");
  EXPECT_EQ(links[1].target, "images/p.png");
  EXPECT_EQ(links[2].target, "../c.md");
  EXPECT_EQ(links[2].line, 6);
  EXPECT_EQ(links[3].target, "#here");
  EXPECT_EQ(links[4].target, "f(1).md");
}

TEST(SectionCitationsTest, FindsEveryFormAndFoldsLines) {
  const std::vector<Citation> c = SectionCitations(
      "// as docs/a.md, \"First section\" says\n"
      "// docs/a.md\n// (\"Second\n// section\") walks through it\n"
      "  \"about\": \"see docs/a.md ('Third') and docs/a.md, \\\"Fourth\\\"\",\n"
      "# README.md's \"Platforms\"; `docs/b.md`, «Пятый раздел»; docs/a.md, 'torchtune's table'\n"
      "not citations: docs/a.md was read, docs/a.mdx, \"x\", lab.md, \"y\", https://h/README.md, \"z\"\n");
  ASSERT_EQ(c.size(), 7u);
  EXPECT_EQ(c[0].page, "docs/a.md");
  EXPECT_EQ(c[0].title, "First section");
  EXPECT_EQ(c[1].title, "Second section");
  EXPECT_EQ(c[1].line, 2);
  EXPECT_EQ(c[2].title, "Third");
  EXPECT_EQ(c[3].title, "Fourth");
  EXPECT_EQ(c[4].page, "README.md");
  EXPECT_EQ(c[5].page, "docs/b.md");
  EXPECT_EQ(c[5].title, "Пятый раздел");
  EXPECT_EQ(c[6].title, "torchtune's table");
}

TEST(CitationNamesHeadingTest, WholeHeadingOrItsStartAtAWordBoundary) {
  EXPECT_TRUE(CitationNamesHeading("Calibration", "Calibration against published measurements"));
  EXPECT_TRUE(CitationNamesHeading("serve on other cards", "`serve` on other cards"));
  EXPECT_TRUE(CitationNamesHeading("The non-offloaded twin", "The non-offloaded twin (issue 40, not a case)"));
  EXPECT_FALSE(CitationNamesHeading("Calib", "Calibration against published measurements"));
  EXPECT_FALSE(CitationNamesHeading("against published", "Calibration against published measurements"));
  EXPECT_FALSE(CitationNamesHeading("calibration", "Calibration"));
}

class TreeCheckTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::path(::testing::TempDir()) / ("docs-tree-" + std::to_string(::getpid()));
    fs::remove_all(root_);
  }
  void TearDown() override { fs::remove_all(root_); }
  void Write(const std::string& relative, const std::string& text) {
    fs::create_directories((root_ / relative).parent_path());
    std::ofstream(root_ / relative) << text;
  }
  fs::path root_;
};

TEST_F(TreeCheckTest, AWellLinkedTreePasses) {
  Write("README.md", "# Tool\n\n[Guide](docs/guide.md#usage), [evidence](docs/evidence.md), [top](#tool)\n");
  Write("docs/guide.md", "# Guide\n\n## Usage\n\nSee [the cases](evidence.md#the-cases-issue-3) and ![chart](images/c.svg).\n");
  Write("docs/images/c.svg", "<svg/>");
  Write("docs/evidence.md", "# Evidence\n\n## The cases (issue 3)\n");
  Write("src/calc/code.cpp", "// docs/evidence.md, \"The cases\" lists them; README.md, 'Tool'.\n");
  Write("build/generated.cpp", "// docs/evidence.md, \"Gone\": build outputs are not read\n");
  const TreeCheck check = CheckTree(root_);
  EXPECT_TRUE(check.problems.empty()) << ::testing::PrintToString(check.problems);
  EXPECT_EQ(check.pages, 3);
  EXPECT_EQ(check.links, 5);
  EXPECT_EQ(check.citations, 2);
}

TEST_F(TreeCheckTest, EveryBrokenLinkAndCitationIsFound) {
  Write("README.md", "# Tool\n\n[moved](docs/old.md) [anchor](docs/guide.md#usage-old) [self](#nothing)\n");
  Write("docs/guide.md", "# Guide\n\n## Usage\n\n![chart](lab-report-busbw.svg)\n");
  Write("tests/sim/README.md", "# Sim\n\n[ok](../../docs/guide.md#usage)\n");
  Write("data/constants.json", "{\"source\": \"docs/guide.md, 'Usage of the past'\"}\n");
  Write("src/a.h", "// docs/guide.md, \"Use\" is no word of a heading\n// docs/missing.md, \"Usage\"\n");
  const TreeCheck check = CheckTree(root_);
  const std::vector<std::string> expected = {
      "README.md:3: link to docs/old.md: no such file",
      "README.md:3: link to docs/guide.md#usage-old: docs/guide.md has no heading with the anchor #usage-old",
      "README.md:3: link to #nothing: README.md has no heading with the anchor #nothing",
      "docs/guide.md:5: link to lab-report-busbw.svg: no such file",
      "data/constants.json:1: cites docs/guide.md, \"Usage of the past\": the page has no heading of that name, nor one that starts with it",
      "src/a.h:1: cites docs/guide.md, \"Use\": the page has no heading of that name, nor one that starts with it",
      "src/a.h:2: cites docs/missing.md, \"Usage\": no such page",
  };
  EXPECT_EQ(check.problems, expected);
}

}  // namespace
}  // namespace labcheck::docs

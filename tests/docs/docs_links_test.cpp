// The repository's own pages (issue 52): no link to a file or a heading that is not there, and no
// citation of a section by a name that no heading has. A page split or a heading renamed fails here
// until every link and citation into it follows.
#include <gtest/gtest.h>

#include <iostream>

#include "markdown_links.h"

namespace labcheck::docs {
namespace {

TEST(DocsLinksTest, EveryLinkAndSectionCitationInTheRepositoryResolves) {
  const TreeCheck check = CheckTree(LAB_CHECK_SOURCE_DIR);
  std::cout << check.pages << " pages, " << check.links << " relative links, " << check.citations << " section citations\n";
  EXPECT_TRUE(check.problems.empty()) << "broken links or citations:\n" << ::testing::PrintToString(check.problems);
  // A scanner that finds nothing passes everything: the tree has a README, the docs pages and the
  // calculators' guide, whose links into its evidence page number well over 30, and citations of
  // sections by name in code and data.
  EXPECT_GE(check.pages, 12);
  EXPECT_GE(check.links, 40);
  EXPECT_GE(check.citations, 10);
}

}  // namespace
}  // namespace labcheck::docs

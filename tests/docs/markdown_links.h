// The checker behind docs_tests (issue 52): the repository's Markdown pages link only to files that
// exist and to headings those files have, and every citation of a page's section by name
// (`docs/<page>.md, "<title>"`) names a heading the page has. Test tooling, not product code.
//
// Anchors follow GitHub's rule for heading ids as github-slugger 2 implements it (github.com/Flet/
// github-slugger: script/generate-regex.mjs at commit 285fe87d lists the Unicode categories it
// drops; its slug() lower-cases, drops them and turns each space into a hyphen): the heading's
// text (its Markdown rendered: link targets, HTML tags, backticks and asterisks gone) in lower case;
// every punctuation mark, symbol and control character dropped except the hyphen and the underscore
// (letters, digits and combining marks stay, in any script); every space one hyphen (a run is not
// merged: "A - B" is "a---b"); a repeated id gets "-1", "-2"... in order. Lower case and the kept
// letters are worked out here for Latin, Greek and Cyrillic; a letter of another script would be
// dropped where GitHub keeps it (no page uses one).
//
// A citation is a page path (docs/NAME.md, README.md, README.ru.md, or a README.md under tests/ or
// src/), optionally in backticks, then ", " or " (" or "'s ", then a title in "…", '…', «…» or “…”,
// in any file of the tree (code, data, golden files, docs). The title may run over a line break
// and a comment leader (// # *). A title in single quotes ends at a quote that no letter follows,
// so "torchtune's" stays inside it. The citation must match a heading of the page (any level), the
// whole heading or its start up to a word boundary: "Calibration" names "Calibration against
// published measurements", "Calib" names nothing. Backticks and asterisks are ignored on both sides.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace labcheck::docs {

// GitHub's anchor for a heading's Markdown text, without the "-N" of a repeated heading.
std::string GithubAnchor(std::string_view heading_markdown);

struct Heading {
  std::string text;    // as written after the #s, trimmed
  std::string anchor;  // with "-N" where an earlier heading had the same anchor
};
// ATX headings (# to ######, up to three spaces in front) outside fenced code blocks.
std::vector<Heading> Headings(const std::string& markdown);
// Heading anchors plus explicit ones (<a id="…"> or <a name="…">).
std::vector<std::string> Anchors(const std::string& markdown);

struct Link {
  int line = 0;
  std::string target;  // as written: path, path#anchor or #anchor
};
// Inline links and images ([text](target), ![alt](target)) and reference definitions
// ([label]: target) outside code spans and fenced code blocks, external ones (a scheme such as
// https: or mailto:, or //host) left out.
std::vector<Link> RelativeLinks(const std::string& markdown);

// "%D0%B0" and the like decoded (a link's path and anchor may be written so).
std::string PercentDecoded(std::string_view s);

struct Citation {
  int line = 0;
  std::string page;   // as written, relative to the repository root
  std::string title;  // line breaks and comment leaders folded into one space
};
std::vector<Citation> SectionCitations(std::string_view text);

// Whether `title` names `heading` by the rule above.
bool CitationNamesHeading(std::string_view title, std::string_view heading);

struct TreeCheck {
  std::vector<std::string> problems;  // "file:line: what is wrong", empty when all is well
  int pages = 0;                      // Markdown pages whose links were checked
  int links = 0;                      // relative links checked
  int citations = 0;                  // section citations checked
};
// The pages whose links are checked: README.md, README.ru.md, docs/*.md, tests/**/README.md,
// src/**/README.md. The files searched for citations: every text file of the tree but .git, the
// top-level build*/, Testing/, journal/, shared/ and hidden folders other than .ci/ and .github/
// (build outputs, reports, other repositories, tools' caches) and tests/docs/, whose fixtures cite
// pages made up for the checker's own tests.
TreeCheck CheckTree(const std::filesystem::path& root);

}  // namespace labcheck::docs

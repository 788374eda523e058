// CheckTree: the rules of markdown_links.h applied to a whole source tree.
#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>

#include "markdown_links.h"

namespace labcheck::docs {
namespace {

namespace fs = std::filesystem;

constexpr std::uintmax_t kLargestTextFile = 4 << 20;  // data files are far smaller; larger is not text

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string Relative(const fs::path& path, const fs::path& root) { return path.lexically_relative(root).generic_string(); }

// The pages whose links are checked, sorted.
std::vector<fs::path> LinkedPages(const fs::path& root) {
  std::vector<fs::path> pages;
  for (const char* readme : {"README.md", "README.ru.md"}) {
    if (fs::is_regular_file(root / readme)) pages.push_back(root / readme);
  }
  if (fs::is_directory(root / "docs")) {
    for (const auto& entry : fs::directory_iterator(root / "docs")) {
      if (entry.is_regular_file() && entry.path().extension() == ".md") pages.push_back(entry.path());
    }
  }
  for (const char* tree : {"tests", "src"}) {
    if (!fs::is_directory(root / tree)) continue;
    for (const auto& entry : fs::recursive_directory_iterator(root / tree)) {
      if (entry.is_regular_file() && entry.path().filename() == "README.md") pages.push_back(entry.path());
    }
  }
  std::sort(pages.begin(), pages.end());
  return pages;
}

// Not searched for citations: git's store; at the top what builds, runs and tools leave (build*/,
// Testing/, journal/, a shared/ checkout of other repositories, hidden folders but .ci and .github:
// .gitignore names .whl, .gl and .device); tests/docs, whose fixtures cite made-up pages.
bool SkippedFolder(const fs::directory_entry& entry, int depth) {
  const std::string name = entry.path().filename().string();
  if (name == ".git") return true;
  if (depth == 1 && name == "docs" && entry.path().parent_path().filename() == "tests") return true;
  if (depth != 0) return false;
  if (name[0] == '.') return name != ".ci" && name != ".github";
  return name.rfind("build", 0) == 0 || name == "Testing" || name == "journal" || name == "shared";
}

// Every text file of the tree: read whole, none over kLargestTextFile, none with a NUL byte.
std::vector<fs::path> TextFiles(const fs::path& root) {
  std::vector<fs::path> files;
  for (auto it = fs::recursive_directory_iterator(root, fs::directory_options::skip_permission_denied); it != fs::recursive_directory_iterator(); ++it) {
    if (it->is_directory() && SkippedFolder(*it, it.depth())) {
      it.disable_recursion_pending();
      continue;
    }
    if (it->is_regular_file() && !it->is_symlink() && it->file_size() <= kLargestTextFile) files.push_back(it->path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

class PageCache {
 public:
  const std::string& Text(const fs::path& page) {
    auto [it, added] = text_.try_emplace(page.lexically_normal().string());
    if (added) it->second = ReadFile(page);
    return it->second;
  }

 private:
  std::map<std::string, std::string> text_;
};

void CheckLinks(const fs::path& root, const fs::path& page, PageCache& cache, TreeCheck& check) {
  for (const Link& link : RelativeLinks(cache.Text(page))) {
    ++check.links;
    const size_t hash = link.target.find('#');
    const std::string path = PercentDecoded(link.target.substr(0, hash));
    const std::string anchor = hash == std::string::npos ? "" : PercentDecoded(link.target.substr(hash + 1));
    const fs::path target = path.empty()       ? page
                            : path[0] == '/'   ? root / path.substr(1)
                                               : (page.parent_path() / path).lexically_normal();
    const std::string where = Relative(page, root) + ":" + std::to_string(link.line) + ": link to " + link.target;
    if (!fs::exists(target)) {
      check.problems.push_back(where + ": no such file");
      continue;
    }
    if (anchor.empty() || target.extension() != ".md" || !fs::is_regular_file(target)) continue;
    const std::vector<std::string> anchors = Anchors(cache.Text(target));
    if (std::find(anchors.begin(), anchors.end(), anchor) == anchors.end()) {
      check.problems.push_back(where + ": " + Relative(target, root) + " has no heading with the anchor #" + anchor);
    }
  }
}

void CheckCitations(const fs::path& root, const fs::path& file, PageCache& cache, TreeCheck& check) {
  const std::string text = ReadFile(file);
  if (text.find(".md") == std::string::npos || text.find('\0') != std::string::npos) return;
  for (const Citation& citation : SectionCitations(text)) {
    ++check.citations;
    const std::string where = Relative(file, root) + ":" + std::to_string(citation.line) + ": cites " + citation.page + ", \"" + citation.title + "\"";
    if (!fs::is_regular_file(root / citation.page)) {
      check.problems.push_back(where + ": no such page");
      continue;
    }
    const std::vector<Heading> headings = Headings(cache.Text(root / citation.page));
    const bool named = std::any_of(headings.begin(), headings.end(), [&](const Heading& h) { return CitationNamesHeading(citation.title, h.text); });
    if (!named) check.problems.push_back(where + ": the page has no heading of that name, nor one that starts with it");
  }
}

}  // namespace

TreeCheck CheckTree(const fs::path& root) {
  TreeCheck check;
  PageCache cache;
  for (const fs::path& page : LinkedPages(root)) {
    ++check.pages;
    CheckLinks(root, page, cache, check);
  }
  for (const fs::path& file : TextFiles(root)) CheckCitations(root, file, cache, check);
  return check;
}

}  // namespace labcheck::docs

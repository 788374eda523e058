// No function in src/ runs over 80 lines (issue 23): a longer one is several steps under comment
// headings, and the headings read better as function names (gpu/health/health_verdicts.cpp: one
// function per line of the table). The scan is a layout rule, not a C++ parser: the tree is
// written with namespaces unindented, so a free function or an out-of-line member starts at
// column 0 and its body ends at the next line that is a lone "}" at column 0. Raw strings (PTX,
// embedded Python) are data and skipped.
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include <gtest/gtest.h>

#include "core/regex_instances.h"  // <regex>, its code generated once

namespace labcheck {
namespace {

namespace fs = std::filesystem;

constexpr int kMaxFunctionLines = 80;

// A column-0 line that may begin a function definition: not a declaration keyword, a preprocessor
// line, a comment, a closing brace or a label.
bool MayStartFunction(const std::string& line) {
  static const std::regex kNotAFunction(
      R"(^(namespace|struct|class|enum|union|template|using|extern|typedef|static_assert|#|//|/\*|\}|\{|public:|private:|protected:))");
  return !line.empty() && line[0] != ' ' && line[0] != '\t' && !std::regex_search(line, kNotAFunction);
}

// The lines of `text` with raw string literals blanked, so "}" inside PTX or Python is not code.
std::vector<std::string> CodeLines(std::istream& in) {
  std::vector<std::string> lines;
  std::string line, closing;  // closing: the ")delim\"" that ends the raw string we are inside
  while (std::getline(in, line)) {
    std::string code;
    size_t at = 0;
    while (at < line.size()) {
      if (!closing.empty()) {
        const size_t end = line.find(closing, at);
        if (end == std::string::npos) { at = line.size(); break; }
        at = end + closing.size();
        closing.clear();
        continue;
      }
      const size_t raw = line.find("R\"", at);
      if (raw == std::string::npos || (raw > 0 && (std::isalnum(static_cast<unsigned char>(line[raw - 1])) || line[raw - 1] == '_'))) {
        code += line.substr(at, raw == std::string::npos ? std::string::npos : raw + 2 - at);
        at = raw == std::string::npos ? line.size() : raw + 2;
        continue;
      }
      code += line.substr(at, raw - at);
      const size_t paren = line.find('(', raw + 2);
      if (paren == std::string::npos) { at = line.size(); break; }
      closing = ")" + line.substr(raw + 2, paren - raw - 2) + "\"";
      at = paren + 1;
    }
    lines.push_back(code);
  }
  return lines;
}

// "src/a/b.cpp:12 Name(...) is 93 lines" for each function over the limit.
std::string LongFunctions(const fs::path& src) {
  std::ostringstream out;
  for (const fs::directory_entry& entry : fs::recursive_directory_iterator(src)) {
    const std::string ext = entry.path().extension().string();
    if (!entry.is_regular_file() || (ext != ".cpp" && ext != ".h")) continue;
    std::ifstream in(entry.path());
    const std::vector<std::string> lines = CodeLines(in);
    for (size_t i = 0; i < lines.size(); ++i) {
      if (!MayStartFunction(lines[i])) continue;
      // The signature runs until a line ending in "{"; a ";" first makes it a declaration.
      size_t open = i;
      while (open < lines.size() && lines[open].find(';') == std::string::npos &&
             (lines[open].empty() || lines[open].back() != '{'))
        ++open;
      if (open == lines.size() || lines[open].empty() || lines[open].back() != '{') continue;
      if (lines[i].find('(') == std::string::npos && lines[open].find('(') == std::string::npos &&
          (open == i || lines[i + 1].find('(') == std::string::npos))
        continue;  // an initialiser: "const Table kX = {"
      if (lines[open].find('=') != std::string::npos && lines[open].find(')') == std::string::npos) continue;
      size_t close = open + 1;
      while (close < lines.size() && lines[close] != "}") ++close;
      if (close == lines.size()) continue;
      const int length = static_cast<int>(close - i + 1);
      if (length > kMaxFunctionLines)
        out << fs::relative(entry.path(), src.parent_path()).string() << ":" << i + 1 << " "
            << lines[i].substr(0, 60) << " is " << length << " lines\n";
      i = close;
    }
  }
  return out.str();
}

TEST(FunctionLength, NoFunctionInSrcRunsOverEightyLines) {
  const fs::path src = fs::path(LAB_CHECK_SOURCE_DIR) / "src";
  ASSERT_TRUE(fs::is_directory(src)) << src;
  EXPECT_EQ(LongFunctions(src), "") << "split these along their own steps, one function per heading";
}

// The scan itself, on a tree of its own: a long function is caught with its file and line; a long
// raw string, a long initialiser and a long class body are not functions.
TEST(FunctionLength, TheScanCatchesALongFunctionAndNothingElse) {
  const fs::path dir = fs::temp_directory_path() / ("lab_check_length_" + std::to_string(::getpid()));
  fs::create_directories(dir / "src" / "gpu");
  std::string body;
  for (int i = 0; i < 85; ++i) body += "  x += " + std::to_string(i) + ";\n";
  std::ofstream(dir / "src" / "gpu" / "data.cpp")
      << "namespace labcheck {\nconst char* kPtx = R\"(\n" << body << "}\n)\";\n"
      << "const int kTable[] = {\n" << body << "};\n"
      << "class Big {\n" << body << "};\n"
      << "int Short(int x) {\n  return x;\n}\n}  // namespace labcheck\n";
  EXPECT_EQ(LongFunctions(dir / "src"), "");
  std::ofstream(dir / "src" / "gpu" / "long.cpp")
      << "namespace labcheck {\n\nint Long(int x,\n         int y) {\n" << body << "  return x;\n}\n}\n";
  EXPECT_EQ(LongFunctions(dir / "src"), "src/gpu/long.cpp:3 int Long(int x, is 89 lines\n");
  fs::remove_all(dir);
}

}  // namespace
}  // namespace labcheck

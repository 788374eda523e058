// Reading a terminal screen for figures parted from their units or phrases (issues 52 and 56):
// a line that ends in a figure whose next line, a continuation of it, starts with its unit or
// noun, or a line that ends in a count word whose next line starts with the count. Written apart
// from the wrapper's own rules (report/display_width.cpp), as a reader would see the screen.
#pragma once
#include <sstream>
#include <string>
#include <vector>

namespace labcheck::screen_check {

inline std::vector<std::string> Tokens(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> tokens;
  for (std::string token; in >> token;) tokens.push_back(token);
  return tokens;
}

inline size_t Indent(const std::string& line) { return line.find_first_not_of(' ') == std::string::npos ? 0 : line.find_first_not_of(' '); }

// A figure as the eye reads one: brackets and signs, then a digit ("716.8", "(-10.00", "≈4").
inline bool IsFigure(const std::string& token) {
  const size_t digit = token.find_first_of("0123456789");
  if (digit == std::string::npos) return false;
  for (size_t i = 0; i < digit; ++i) {
    if (std::string("([\"'-+~<>=$").find(token[i]) == std::string::npos && static_cast<unsigned char>(token[i]) < 0x80) return false;
  }
  // A multi-byte prefix (−, ≈, ≤, ×, «) is allowed only as a whole short one: "≈4", not "ГБ4".
  return digit <= 3;
}

inline bool EndsWithDigit(const std::string& token) { return !token.empty() && token.back() >= '0' && token.back() <= '9'; }

// The places where a line of `screen` ends in a figure and the next line, a continuation of it
// (indented deeper: a wrapped paragraph, a hint, a progress line, a table cell), starts with its
// unit or noun; or a line ends in a count word and the next starts with the count.
inline std::vector<std::string> PartedFigures(const std::string& screen) {
  std::vector<std::string> lines;
  std::istringstream in(screen);
  for (std::string line; std::getline(in, line);) {
    while (!line.empty() && line.back() == ' ') line.pop_back();
    lines.push_back(line);
  }
  std::vector<std::string> parted;
  for (size_t k = 0; k + 1 < lines.size(); ++k) {
    const std::vector<std::string> here = Tokens(lines[k]), next = Tokens(lines[k + 1]);
    if (here.empty() || next.empty() || Indent(lines[k + 1]) <= Indent(lines[k])) continue;
    const std::string& last = here.back();
    const std::string& first = next.front();
    // "    Fits: no" under a table row is a folded column, a line of its own, not a continuation.
    const bool label = first.back() == ':';
    const bool unit_after = IsFigure(last) && EndsWithDigit(last) && !IsFigure(first) && !label;
    const bool count_after = (last == "ещё" || last == "and") && IsFigure(first);
    if (unit_after || count_after) parted.push_back(lines[k] + "\n" + lines[k + 1]);
  }
  return parted;
}

}  // namespace labcheck::screen_check

#include "report/display_width.h"

#include <cstdint>

namespace labcheck {
namespace {

// Decodes one code point at s[i], advancing i; invalid bytes count as one column each.
char32_t Next(std::string_view s, size_t& i) {
  const auto b0 = static_cast<unsigned char>(s[i]);
  int len = b0 < 0x80 ? 1 : (b0 >> 5) == 0x6 ? 2 : (b0 >> 4) == 0xE ? 3 : (b0 >> 3) == 0x1E ? 4 : 0;
  if (len == 0 || i + len > s.size()) {
    ++i;
    return 0xFFFD;
  }
  char32_t cp = len == 1 ? b0 : len == 2 ? (b0 & 0x1F) : len == 3 ? (b0 & 0x0F) : (b0 & 0x07);
  for (int k = 1; k < len; ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
  i += len;
  return cp;
}

int Columns(char32_t cp) {
  if (cp == 0) return 0;
  // Combining marks, zero-width space/joiners, variation selectors.
  if ((cp >= 0x0300 && cp <= 0x036F) || (cp >= 0x200B && cp <= 0x200F) ||
      (cp >= 0xFE00 && cp <= 0xFE0F) || (cp >= 0x20D0 && cp <= 0x20FF)) {
    return 0;
  }
  // East Asian wide and fullwidth ranges, and emoji.
  if ((cp >= 0x1100 && cp <= 0x115F) || (cp >= 0x2E80 && cp <= 0xA4CF) ||
      (cp >= 0xAC00 && cp <= 0xD7A3) || (cp >= 0xF900 && cp <= 0xFAFF) ||
      (cp >= 0xFE30 && cp <= 0xFE4F) || (cp >= 0xFF00 && cp <= 0xFF60) ||
      (cp >= 0xFFE0 && cp <= 0xFFE6) || (cp >= 0x1F300 && cp <= 0x1FAFF) ||
      (cp >= 0x20000 && cp <= 0x3FFFD)) {
    return 2;
  }
  return 1;
}

// Skips an ANSI CSI sequence (ESC [ ... final byte) starting at s[i]; returns false if none.
bool SkipEscape(std::string_view s, size_t& i) {
  if (s[i] != '\x1b' || i + 1 >= s.size() || s[i + 1] != '[') return false;
  i += 2;
  while (i < s.size() && !(s[i] >= 0x40 && s[i] <= 0x7E)) ++i;
  if (i < s.size()) ++i;
  return true;
}

}  // namespace

size_t DisplayWidth(std::string_view utf8) {
  size_t width = 0;
  for (size_t i = 0; i < utf8.size();) {
    if (SkipEscape(utf8, i)) continue;
    width += Columns(Next(utf8, i));
  }
  return width;
}

std::string PadRight(std::string_view utf8, size_t width) {
  std::string out(utf8);
  size_t w = DisplayWidth(utf8);
  if (w < width) out.append(width - w, ' ');
  return out;
}

std::string PadLeft(std::string_view utf8, size_t width) {
  size_t w = DisplayWidth(utf8);
  std::string out = w < width ? std::string(width - w, ' ') : std::string();
  out.append(utf8);
  return out;
}

std::string TruncateToWidth(std::string_view utf8, size_t width) {
  if (DisplayWidth(utf8) <= width) return std::string(utf8);
  std::string out;
  size_t used = 0;
  for (size_t i = 0; i < utf8.size();) {
    size_t start = i;
    if (SkipEscape(utf8, i)) {
      out.append(utf8.substr(start, i - start));
      continue;
    }
    int cols = Columns(Next(utf8, i));
    if (used + cols + 1 > width) break;
    used += cols;
    out.append(utf8.substr(start, i - start));
  }
  return out + "…";
}

namespace {

// Appends the characters of `word` to `line` (of `used` columns) one by one, starting a new line
// in `lines` whenever the next character would not fit.
void SplitLongWord(std::string_view word, size_t width, std::vector<std::string>& lines, std::string& line,
                   size_t& used) {
  for (size_t i = 0; i < word.size();) {
    const size_t start = i;
    if (SkipEscape(word, i)) {
      line.append(word.substr(start, i - start));
      continue;
    }
    const size_t cols = static_cast<size_t>(Columns(Next(word, i)));
    if (used + cols > width && used > 0) {
      lines.push_back(std::move(line));
      line.clear();
      used = 0;
    }
    line.append(word.substr(start, i - start));
    used += cols;
  }
}

void WrapParagraph(std::string_view text, size_t width, std::vector<std::string>& lines) {
  std::string line;
  size_t used = 0;
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && text[i] == ' ') ++i;
    if (i >= text.size()) break;
    size_t end = text.find(' ', i);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view word = text.substr(i, end - i);
    const size_t cols = DisplayWidth(word);
    i = end;
    if (used > 0 && used + 1 + cols <= width) {
      line += ' ';
      line.append(word);
      used += 1 + cols;
      continue;
    }
    if (used > 0) {
      lines.push_back(std::move(line));
      line.clear();
      used = 0;
    }
    if (cols <= width) {
      line.append(word);
      used = cols;
    } else {
      SplitLongWord(word, width, lines, line, used);
    }
  }
  lines.push_back(std::move(line));
}

}  // namespace

std::string NoBreak(std::string_view text) {
  std::string out;
  for (char c : text) c == ' ' ? out.append(kNoBreakSpace) : out.append(1, c);
  return out;
}

std::vector<std::string> WrapToWidth(std::string_view utf8, size_t width) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (true) {
    const size_t end = utf8.find('\n', start);
    const std::string_view paragraph = utf8.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
    if (width == 0) {
      lines.emplace_back(paragraph);
    } else {
      WrapParagraph(paragraph, width, lines);
    }
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  for (std::string& line : lines) {
    for (size_t at = line.find(kNoBreakSpace); at != std::string::npos; at = line.find(kNoBreakSpace, at + 1)) {
      line.replace(at, kNoBreakSpace.size(), " ");
    }
  }
  return lines;
}

}  // namespace labcheck

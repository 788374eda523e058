#include "report/display_width.h"

#include <algorithm>
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

// One word of a paragraph and the space that follows it: a plain space may break the line, a
// no-break space (or a figure's rule below) may not.
struct Word {
  std::string_view text;
  bool glued_to_next = false;
};

// Code points that may stand before a figure's first digit: brackets, quotes, signs, comparisons.
bool IsFigurePrefix(char32_t cp) {
  switch (cp) {
    case '(': case '[': case '"': case '\'': case '-': case '+': case '~': case '<': case '>': case '=': case '$':
    case U'«': case U'−': case U'≈': case U'≤': case U'≥': case U'±': case U'×': case U'„': case U'“':
      return true;
    default:
      return false;
  }
}

// "716.8", "(-10.00", "≈4", "2026-12-07": after its brackets and signs the word begins with a digit.
bool StartsWithFigure(std::string_view word) {
  for (size_t i = 0; i < word.size();) {
    if (word[i] >= '0' && word[i] <= '9') return true;
    if (!IsFigurePrefix(Next(word, i))) return false;
  }
  return false;
}

// "716.8", "(-10.00", "85%", "4×": a figure that its unit or noun would follow.
bool EndsAFigure(std::string_view word) {
  constexpr std::string_view kTimes = "×";
  const bool times = word.size() > kTimes.size() && word.substr(word.size() - kTimes.size()) == kTimes;
  return StartsWithFigure(word) && ((word.back() >= '0' && word.back() <= '9') || word.back() == '%' || times);
}

bool IsDash(std::string_view word) { return word == "—" || word == "–"; }

// A word, not a sign: "ещё", "TP" and "of" are words; "/", "+" and "→" are not.
bool HasLetter(std::string_view word) {
  for (size_t i = 0; i < word.size();) {
    const char32_t cp = Next(word, i);
    if ((cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z') || (cp >= 0x00C0 && cp <= 0x024F) || (cp >= 0x0400 && cp <= 0x04FF)) return true;
  }
  return false;
}

// "≥", "×", "=", "→": a sign of one column; a dash, which parts clauses, is not one.
bool IsSign(std::string_view word) { return DisplayWidth(word) == 1 && !HasLetter(word) && !IsDash(word) && !StartsWithFigure(word); }

// "--max-model-len": a command-line option, which keeps its value.
bool IsOption(std::string_view word) { return word.size() > 1 && word[0] == '-' && HasLetter(word); }

// "и", "в", "a": the typesetter's rule for Russian prepositions and conjunctions keeps them off a
// line's end («и ещё 11» stays whole).
bool IsOneLetterWord(std::string_view word) { return DisplayWidth(word) == 1 && HasLetter(word); }

// Whether the space between `left` and `right` must not break the line (`before`: the word before
// `left`, empty at the start). This is the typesetter's no-break space in each such place, put
// once here rather than in every message:
// - a figure stays with the word after it, its unit or noun ("0.0 s", "(-10.00 GB)", "11 more"),
//   unless that word opens a bracket or is an option (the next thing: "68–83 (70–85%", "0.92 --x");
// - a figure stays with a short word before it, a count word or a label ("ещё 11", "TP 2"), unless
//   a clause ends there or that word is the unit of a figure before it ("9.32 GiB (-10.00 GB)");
// - and with a sign or an option before it ("≥ 70 GiB", "--max-model-len 48432");
// - a one-letter word never ends a line, a dash never starts one, and "N = 1024" stays whole.
bool MustNotBreak(std::string_view before, std::string_view left, std::string_view right) {
  if (EndsAFigure(left) && !IsOption(right) && right.front() != '(' && right.front() != '[') return true;
  constexpr size_t kShortWord = 3;
  if (StartsWithFigure(right) && DisplayWidth(left) <= kShortWord && HasLetter(left) && !EndsAFigure(before) &&
      std::string_view(".,;:!?").find(left.back()) == std::string_view::npos) {
    return true;
  }
  if (StartsWithFigure(right) && (IsSign(left) || IsOption(left))) return true;
  return IsOneLetterWord(left) || right == "=" || IsDash(right);
}

// The paragraph's words, split at plain and no-break spaces (runs of spaces count as one).
std::vector<Word> SplitWords(std::string_view text) {
  std::vector<Word> words;
  size_t i = 0;
  while (i < text.size()) {
    if (text[i] == ' ') {
      ++i;
      continue;
    }
    if (text.compare(i, kNoBreakSpace.size(), kNoBreakSpace) == 0) {
      if (!words.empty()) words.back().glued_to_next = true;
      i += kNoBreakSpace.size();
      continue;
    }
    size_t end = i;
    while (end < text.size() && text[end] != ' ' && text.compare(end, kNoBreakSpace.size(), kNoBreakSpace) != 0) ++end;
    words.push_back({text.substr(i, end - i)});
    i = end;
  }
  for (size_t k = 0; k + 1 < words.size(); ++k) {
    const std::string_view before = k > 0 ? words[k - 1].text : std::string_view();
    if (MustNotBreak(before, words[k].text, words[k + 1].text)) words[k].glued_to_next = true;
  }
  return words;
}

// Lines of at most `width` columns, filled word by word; only a word wider than a line is cut.
class LineFiller {
 public:
  LineFiller(size_t width, std::vector<std::string>& lines) : width_(width), lines_(lines) {}
  size_t room_left() const { return used_ == 0 ? width_ : (used_ + 1 < width_ ? width_ - used_ - 1 : 0); }
  bool empty() const { return used_ == 0; }
  void NewLine() {
    if (used_ == 0) return;
    lines_.push_back(std::move(line_));
    line_.clear();
    used_ = 0;
  }
  void Add(std::string_view word) {
    const size_t cols = DisplayWidth(word);
    if (used_ > 0 && used_ + 1 + cols <= width_) {
      line_ += ' ';
      line_.append(word);
      used_ += 1 + cols;
      return;
    }
    NewLine();
    if (cols <= width_) {
      line_.append(word);
      used_ = cols;
    } else {
      SplitLongWord(word, width_, lines_, line_, used_);
    }
  }
  void Finish() { lines_.push_back(std::move(line_)); }

 private:
  size_t width_;
  std::vector<std::string>& lines_;
  std::string line_;
  size_t used_ = 0;
};

// Greedy filling by groups of glued words: a group goes whole onto this line or the next. A group
// wider than a whole line (a long list of figures) falls back to breaking between its words.
void WrapParagraph(std::string_view text, size_t width, std::vector<std::string>& lines) {
  const std::vector<Word> words = SplitWords(text);
  LineFiller filler(width, lines);
  for (size_t first = 0; first < words.size();) {
    size_t last = first, cols = DisplayWidth(words[first].text);
    while (words[last].glued_to_next && last + 1 < words.size()) cols += 1 + DisplayWidth(words[++last].text);
    if (cols > filler.room_left() && cols <= width) filler.NewLine();
    for (size_t k = first; k <= last; ++k) filler.Add(words[k].text);
    first = last + 1;
  }
  filler.Finish();
}

}  // namespace

size_t WidestUnbreakable(std::string_view utf8) {
  size_t widest = 0;
  for (size_t start = 0; start <= utf8.size();) {
    size_t end = utf8.find('\n', start);
    if (end == std::string_view::npos) end = utf8.size();
    const std::vector<Word> words = SplitWords(utf8.substr(start, end - start));
    for (size_t first = 0; first < words.size();) {
      size_t last = first, cols = DisplayWidth(words[first].text);
      while (words[last].glued_to_next && last + 1 < words.size()) cols += 1 + DisplayWidth(words[++last].text);
      widest = std::max(widest, cols);
      first = last + 1;
    }
    start = end + 1;
  }
  return widest;
}

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

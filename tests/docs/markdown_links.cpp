// The rules are written down in markdown_links.h; this file only scans text.
#include "markdown_links.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <sstream>

namespace labcheck::docs {
namespace {

bool IsAsciiAlnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }

// One UTF-8 code point from `s` at `at` (advanced past it); a broken byte is returned as itself.
char32_t NextCodePoint(std::string_view s, size_t& at) {
  const auto byte = [&](size_t i) { return static_cast<unsigned char>(s[i]); };
  const unsigned char lead = byte(at);
  const int extra = lead < 0x80 ? 0 : (lead >> 5) == 0x6 ? 1 : (lead >> 4) == 0xE ? 2 : (lead >> 3) == 0x1E ? 3 : -1;
  if (extra <= 0 || at + extra >= s.size()) {  // ASCII, or a broken or cut sequence
    ++at;
    return lead;
  }
  char32_t cp = lead & (0x3F >> extra);
  for (int i = 1; i <= extra; ++i) cp = (cp << 6) | (byte(at + i) & 0x3F);
  at += extra + 1;
  return cp;
}

void AppendUtf8(std::string& out, char32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

// A non-ASCII code point GitHub keeps in an anchor, lower-cased; 0 for one it drops. Letters of
// Latin-1 and Latin Extended-A/B, Greek and Cyrillic, and combining marks, are kept; ×, ÷ and
// everything else here (dashes, quotes, arrows, math, symbols, emoji) are punctuation or symbols.
char32_t KeptLetter(char32_t cp) {
  if (cp == 0xD7 || cp == 0xF7) return 0;
  if (cp >= 0xC0 && cp <= 0xDE) return cp + 0x20;
  if (cp >= 0xDF && cp <= 0x24F) return cp;  // lower case, and Latin Extended kept as written
  if (cp >= 0x300 && cp <= 0x36F) return cp;  // combining marks
  if (cp >= 0x391 && cp <= 0x3A9) return cp + 0x20;
  if (cp >= 0x3AA && cp <= 0x3FF) return cp;
  if (cp >= 0x400 && cp <= 0x40F) return cp + 0x50;
  if (cp >= 0x410 && cp <= 0x42F) return cp + 0x20;
  if (cp >= 0x430 && cp <= 0x4FF) return cp;
  return 0;
}

// The heading's text as GitHub renders it: [text](target) and ![alt](src) keep their text, HTML
// tags go. Backticks and asterisks are punctuation and are dropped by the slug itself.
std::string RenderedText(std::string_view md) {
  std::string out;
  for (size_t i = 0; i < md.size(); ++i) {
    if (md[i] == '<') {
      const size_t close = md.find('>', i);
      if (close != std::string_view::npos) { i = close; continue; }
    }
    if (md[i] == ']' && i + 1 < md.size() && md[i + 1] == '(') {
      const size_t close = md.find(')', i);
      if (close != std::string_view::npos) { i = close; continue; }
    }
    if (md[i] == '[' || (md[i] == '!' && i + 1 < md.size() && md[i + 1] == '[')) continue;
    out += md[i];
  }
  return out;
}

std::string Trim(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return std::string(s.substr(b, e - b));
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// A fence line (``` or ~~~ after up to three spaces) opens or closes a code block.
bool IsFence(const std::string& line) {
  const size_t at = line.find_first_not_of(' ');
  return at != std::string::npos && at <= 3 && (line.compare(at, 3, "```") == 0 || line.compare(at, 3, "~~~") == 0);
}

// `line` with its code spans blanked (`…` and ``…``), so a link inside code is not a link.
std::string WithoutCodeSpans(const std::string& line) {
  std::string out = line;
  size_t at = 0;
  while ((at = out.find('`', at)) != std::string::npos) {
    size_t ticks = 0;
    while (at + ticks < out.size() && out[at + ticks] == '`') ++ticks;
    const size_t close = out.find(std::string(ticks, '`'), at + ticks);
    if (close == std::string::npos) break;
    std::fill(out.begin() + at, out.begin() + close + ticks, ' ');
    at = close + ticks;
  }
  return out;
}

bool IsExternal(const std::string& target) {
  if (target.rfind("//", 0) == 0) return true;
  const size_t colon = target.find(':');
  if (colon == std::string::npos || colon == 0) return false;
  return std::all_of(target.begin(), target.begin() + colon, [](char c) { return IsAsciiAlnum(c) || c == '+' || c == '.' || c == '-'; }) &&
         std::isalpha(static_cast<unsigned char>(target[0]));
}

// The destination of an inline link that starts at `at` (just after "("): <…>, or up to
// whitespace or the ")" that balances the ones opened inside it.
std::string LinkDestination(const std::string& line, size_t at) {
  while (at < line.size() && line[at] == ' ') ++at;
  if (at < line.size() && line[at] == '<') {
    const size_t close = line.find('>', at);
    return close == std::string::npos ? "" : line.substr(at + 1, close - at - 1);
  }
  int depth = 0;
  size_t end = at;
  for (; end < line.size() && !std::isspace(static_cast<unsigned char>(line[end])); ++end) {
    if (line[end] == '(') ++depth;
    if (line[end] == ')' && depth-- == 0) break;
  }
  return line.substr(at, end - at);
}

}  // namespace

std::string PercentDecoded(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() && std::isxdigit(static_cast<unsigned char>(s[i + 1])) &&
        std::isxdigit(static_cast<unsigned char>(s[i + 2]))) {
      out += static_cast<char>(std::stoi(std::string(s.substr(i + 1, 2)), nullptr, 16));
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

namespace {


}  // namespace

std::string GithubAnchor(std::string_view heading_markdown) {
  const std::string text = Trim(RenderedText(heading_markdown));
  std::string anchor;
  for (size_t at = 0; at < text.size();) {
    const char32_t cp = NextCodePoint(text, at);
    if (cp < 0x80) {
      const char c = static_cast<char>(cp);
      if (IsAsciiAlnum(c) || c == '_' || c == '-') anchor += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      if (c == ' ') anchor += '-';
    } else if (const char32_t kept = KeptLetter(cp)) {
      AppendUtf8(anchor, kept);
    }
  }
  return anchor;
}

std::vector<Heading> Headings(const std::string& markdown) {
  std::vector<Heading> headings;
  std::map<std::string, int> seen;
  bool in_fence = false;
  for (const std::string& line : Lines(markdown)) {
    if (IsFence(line)) { in_fence = !in_fence; continue; }
    if (in_fence) continue;
    const size_t hash = line.find_first_not_of(' ');
    if (hash == std::string::npos || hash > 3 || line[hash] != '#') continue;
    size_t level = 0;
    while (hash + level < line.size() && line[hash + level] == '#') ++level;
    const size_t after = hash + level;
    if (level > 6 || (after < line.size() && line[after] != ' ' && line[after] != '\t')) continue;
    std::string text = Trim(std::string_view(line).substr(after));
    const size_t closing = text.find_last_not_of('#');  // an optional closing run of #s
    if (closing != std::string::npos && closing + 1 < text.size() && text[closing] == ' ') text = Trim(text.substr(0, closing));
    std::string anchor = GithubAnchor(text);
    const int repeat = seen[anchor]++;
    if (repeat > 0) anchor += "-" + std::to_string(repeat);
    headings.push_back({text, anchor});
  }
  return headings;
}

std::vector<std::string> Anchors(const std::string& markdown) {
  std::vector<std::string> anchors;
  for (const Heading& h : Headings(markdown)) anchors.push_back(h.anchor);
  for (const char* attribute : {"<a id=\"", "<a name=\""}) {
    for (size_t at = markdown.find(attribute); at != std::string::npos; at = markdown.find(attribute, at + 1)) {
      const size_t begin = at + std::string_view(attribute).size();
      const size_t end = markdown.find('"', begin);
      if (end != std::string::npos) anchors.push_back(markdown.substr(begin, end - begin));
    }
  }
  return anchors;
}

std::vector<Link> RelativeLinks(const std::string& markdown) {
  std::vector<Link> links;
  bool in_fence = false;
  int number = 0;
  for (const std::string& raw : Lines(markdown)) {
    ++number;
    if (IsFence(raw)) { in_fence = !in_fence; continue; }
    if (in_fence || raw.rfind("    ", 0) == 0) continue;  // fenced or indented code
    const std::string line = WithoutCodeSpans(raw);
    std::vector<std::string> targets;
    for (size_t at = line.find("]("); at != std::string::npos; at = line.find("](", at + 2)) targets.push_back(LinkDestination(line, at + 2));
    const size_t label = line.find_first_not_of(' ');
    if (label != std::string::npos && label <= 3 && line[label] == '[') {  // [label]: target
      const size_t colon = line.find("]:", label);
      if (colon != std::string::npos) targets.push_back(LinkDestination(line, colon + 2));
    }
    for (const std::string& target : targets) {
      if (!target.empty() && !IsExternal(target)) links.push_back({number, target});
    }
  }
  return links;
}

namespace {

bool IsPathChar(char c) { return IsAsciiAlnum(c) || c == '_' || c == '.' || c == '/' || c == '-'; }

// docs/NAME.md, README.md, README.<lang>.md, or a README.md under tests/ or src/.
bool IsCitablePage(const std::string& path) {
  const auto ends_with = [&](std::string_view tail) { return path.size() >= tail.size() && path.compare(path.size() - tail.size(), tail.size(), tail) == 0; };
  if (path.rfind("docs/", 0) == 0) return path.find('/', 5) == std::string::npos;
  if (path.rfind("README", 0) == 0) return path.find('/') == std::string::npos;
  return (path.rfind("tests/", 0) == 0 || path.rfind("src/", 0) == 0) && ends_with("/README.md");
}

// Skips spaces and tabs, and at most one line break with the comment leader (// # *) after it.
size_t SkipGap(std::string_view s, size_t at) {
  const auto spaces = [&] { while (at < s.size() && (s[at] == ' ' || s[at] == '\t')) ++at; };
  spaces();
  if (at < s.size() && s[at] == '\n') {
    ++at;
    spaces();
    if (s.compare(at, 2, "//") == 0) at += 2;
    else if (at < s.size() && (s[at] == '#' || s[at] == '*')) ++at;
    spaces();
  }
  return at;
}

// The closing quote for the opening one at `at` (its length in `open_size`); empty if none.
std::string_view ClosingQuote(std::string_view s, size_t at, size_t& open_size) {
  static const std::pair<std::string_view, std::string_view> kQuotes[] = {
      {"\"", "\""}, {"'", "'"}, {"\u00ab", "\u00bb"}, {"\u201c", "\u201d"}};
  for (const auto& [open, close] : kQuotes) {
    if (s.compare(at, open.size(), open) == 0) {
      open_size = open.size();
      return close;
    }
  }
  return {};
}

// The title that starts at `at` and ends at `close`, folded onto one line; false if it does not end
// within a few lines (then it was no citation).
bool ReadTitle(std::string_view s, size_t at, std::string_view close, std::string& title) {
  title.clear();
  for (int breaks = 0; at < s.size() && title.size() < 300;) {
    if (s.compare(at, close.size(), close) == 0 && !(close == "'" && at + 1 < s.size() && std::isalpha(static_cast<unsigned char>(s[at + 1])))) return true;
    if (s[at] == '\n') {
      if (++breaks > 2) return false;
      const size_t next = SkipGap(s, at);
      if (next < s.size() && s[next] == '\n') return false;  // a blank line
      title += ' ';
      at = next;
      continue;
    }
    title += s[at++];
  }
  return false;
}

}  // namespace

std::vector<Citation> SectionCitations(std::string_view text) {
  std::string s(text);
  for (size_t at = s.find("\\\""); at != std::string::npos; at = s.find("\\\"", at)) s.erase(at, 1);  // JSON's \"
  std::vector<Citation> citations;
  for (size_t md = s.find(".md"); md != std::string::npos; md = s.find(".md", md + 3)) {
    size_t begin = md;
    while (begin > 0 && IsPathChar(s[begin - 1])) --begin;
    size_t at = md + 3;
    if (at < s.size() && IsPathChar(s[at])) continue;  // .mdx, or the path goes on
    const std::string page = s.substr(begin, at - begin);
    if (!IsCitablePage(page)) continue;
    if (at < s.size() && s[at] == '`') ++at;
    bool separated = false;
    if (s.compare(at, 2, "'s") == 0) { at += 2; separated = true; }
    at = SkipGap(s, at);
    if (!separated && at < s.size() && (s[at] == ',' || s[at] == '(')) { ++at; separated = true; at = SkipGap(s, at); }
    size_t open_size = 0;
    const std::string_view close = ClosingQuote(s, at, open_size);
    std::string title;
    if (!separated || close.empty() || !ReadTitle(s, at + open_size, close, title)) continue;
    const int line = 1 + static_cast<int>(std::count(s.begin(), s.begin() + begin, '\n'));
    citations.push_back({line, page, Trim(title)});
  }
  return citations;
}

bool CitationNamesHeading(std::string_view title, std::string_view heading) {
  const auto plain = [](std::string_view s) {
    std::string out;
    for (char c : s) {
      if (c == '`' || c == '*') continue;
      if (std::isspace(static_cast<unsigned char>(c))) {
        if (!out.empty() && out.back() != ' ') out += ' ';
        continue;
      }
      out += c;
    }
    return Trim(out);
  };
  const std::string t = plain(title), h = plain(heading);
  if (t.empty() || h.compare(0, t.size(), t) != 0) return false;
  return h.size() == t.size() || !IsAsciiAlnum(h[t.size()]) || !IsAsciiAlnum(t.back());
}

}  // namespace labcheck::docs

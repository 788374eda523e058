// Terminal columns of UTF-8 text: Cyrillic letters take one column but two bytes, CJK takes two
// columns, combining marks and ANSI colour sequences none. Tables align by this, never by bytes.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace labcheck {

size_t DisplayWidth(std::string_view utf8);
// Pads with spaces on the right (left-aligned) or the left (right-aligned) to `width` columns.
std::string PadRight(std::string_view utf8, size_t width);
std::string PadLeft(std::string_view utf8, size_t width);
// Cuts to at most `width` columns on a character boundary, ending with "…" when cut.
std::string TruncateToWidth(std::string_view utf8, size_t width);
// Breaks text into lines of at most `width` columns: at spaces where it can, inside a word only
// when the word alone is wider (a long path). Newlines in the text start a new line; an empty
// text gives one empty line. `width` 0 means no limit. A no-break space (U+00A0, kNoBreakSpace)
// keeps the words on each side on one line ("RTX A5000" in a list of cards) and comes out as a
// plain space, so what a user copies or greps is ordinary text. Figures keep their words without
// one, as a typesetter would: a figure stays with its unit or noun ("0.0 s", "(-10.00 GB)", "11
// more"), with a short word, sign or option before it ("ещё 11", "≥ 70", "--max-model-len 48432");
// a one-letter word never ends a line and a dash never starts one (display_width.cpp,
// MustNotBreak). Words held together move to the next line as one; only a group wider than a whole
// line breaks between its words.
std::vector<std::string> WrapToWidth(std::string_view utf8, size_t width);
// The widest group of words WrapToWidth keeps on one line (a table column need not be narrower).
size_t WidestUnbreakable(std::string_view utf8);
inline constexpr std::string_view kNoBreakSpace = "\xC2\xA0";
// `text` with every space a no-break space: a name WrapToWidth keeps on one line.
std::string NoBreak(std::string_view text);

}  // namespace labcheck

// Small helpers for bilingual text that text.h leaves out: appending, joining, and Russian
// plural forms (1 ядро, 2 ядра, 5 ядер), so counts read naturally in both languages.
#pragma once
#include <string>
#include <vector>

#include "core/text.h"

namespace labcheck {

// The same suffix (a number, a path, an error message) appended in both languages.
inline Text Append(const Text& text, const std::string& suffix) {
  return Text(text.ru + suffix, text.en + suffix);
}

inline Text Join(const std::vector<Text>& parts, const std::string& separator) {
  Text joined("", "");
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) joined = Append(joined, separator);
    joined = Text(joined.ru + parts[i].ru, joined.en + parts[i].en);
  }
  return joined;
}

// Russian plural form for n: one ("ядро": 1, 21), few ("ядра": 2–4, 22–24), many ("ядер": 0, 5–20).
inline const char* RuPlural(long n, const char* one, const char* few, const char* many) {
  long tens = n % 100, units = n % 10;
  if (tens >= 11 && tens <= 14) return many;
  if (units == 1) return one;
  if (units >= 2 && units <= 4) return few;
  return many;
}

}  // namespace labcheck

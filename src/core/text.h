// Text shown to the user in both report languages. Checks fill both; renderers pick one.
// Russian is the course's language and the default; English comes with --lang en.
#pragma once
#include <string>

namespace labcheck {

enum class Lang { Ru, En };

struct Text {
  std::string ru;
  std::string en;

  Text() = default;
  // The same text in both languages: numbers, names, paths, command lines.
  Text(std::string same) : ru(same), en(std::move(same)) {}  // NOLINT(google-explicit-constructor)
  Text(const char* same) : Text(std::string(same)) {}        // NOLINT(google-explicit-constructor)
  Text(std::string ru_text, std::string en_text) : ru(std::move(ru_text)), en(std::move(en_text)) {}

  const std::string& In(Lang lang) const { return lang == Lang::Ru ? ru : en; }
  bool empty() const { return ru.empty() && en.empty(); }
};

// Shorthand for bilingual literals: T("Память", "Memory").
inline Text T(std::string ru_text, std::string en_text) { return Text(std::move(ru_text), std::move(en_text)); }

}  // namespace labcheck

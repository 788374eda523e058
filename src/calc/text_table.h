// Plain aligned tables for the terminal, by display width (Cyrillic letters are one column but
// two bytes). Used until the report module's terminal renderer can be shared.
#pragma once
#include <cstdio>
#include <string>

#include "core/table.h"
#include "core/text.h"

namespace labcheck::calc {

size_t DisplayWidth(const std::string& utf8);
std::string RenderTextTable(const Table& table, Lang lang);

}  // namespace labcheck::calc

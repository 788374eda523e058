// The pieces of an HTML page the report writers share: the self-contained document (inline CSS,
// no scripts, no fonts or images to fetch: it reads the same with JavaScript off and offline),
// tables, and prose with the little Markdown the report's texts use (`code`, **bold**).
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "core/table.h"
#include "core/text.h"

namespace labcheck {

// Escaped for HTML text and attributes (the XML escaping: & < > " ').
std::string HtmlEscape(std::string_view text);
// Report prose → HTML: escaped, `code` and **bold** rendered, line breaks kept.
std::string HtmlProse(std::string_view text);
// A table; row_classes[i] (if given and non-empty) becomes the class of row i ("off2x").
std::string HtmlTable(const Table& table, Lang lang, const std::vector<std::string>& row_classes = {});
// <!DOCTYPE html> … with the style sheet, the title and the body as given.
std::string HtmlDocument(const std::string& title, Lang lang, const std::string& body);
// A chart: the inline SVG in a <figure> with an id for in-page links.
std::string HtmlFigure(const std::string& id, const std::string& title, const std::string& svg_element);

}  // namespace labcheck

#pragma once
// The text tables of `affix show`: columns left-aligned, two spaces apart,
// measured in terminal cells of printable() text.

#include <cstddef>
#include <string>
#include <vector>

namespace affix {

// Terminal cells of a printable() text: one per character (UTF-8
// continuation bytes take none).
size_t cells(const std::string& s);

// Left-aligned columns, two spaces apart, each row indented; the last
// column unpadded.
std::string table(const std::vector<std::vector<std::string>>& rows, const std::string& indent);

}  // namespace affix

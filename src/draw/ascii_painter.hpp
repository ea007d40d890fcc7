#pragma once
// The text painter (topo --ascii, explain --ascii; as lstopo's --of ascii):
// the laid-out boxes on a grid of character cells, one cell a character,
// drawn with box-drawing characters (UTF-8) or + - | (any other locale);
// each box's marks as signs on its top border, and a legend under it.

#include <optional>
#include <string>
#include <vector>

#include "machine_tree.hpp"

namespace affix {

enum class Charset { Utf8, Ascii };

// Lays `pic.root` out first. Names are printable() (terminal-safe).
std::string picture_ascii(Picture& pic, Charset charset);

// Lays `root` out and paints its boxes only (no legend): one string a row
// of cells, trailing blanks cut (what `top`'s picture view shows).
std::vector<std::string> boxes_ascii(Box& root, Charset charset);

// Utf8 where the locale's character set is UTF-8 (LC_ALL, else LC_CTYPE,
// else LANG names UTF-8 or utf8), else Ascii; `env` looks a variable up.
template <typename Env> Charset charset_of(Env&& env) {
  for (const char* v : {"LC_ALL", "LC_CTYPE", "LANG"}) {
    auto value = env(v);
    if (!value || value->empty()) continue;
    std::string s = *value;
    for (char& c : s) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    return s.find("utf-8") != std::string::npos || s.find("utf8") != std::string::npos ? Charset::Utf8
                                                                                         : Charset::Ascii;
  }
  return Charset::Ascii;
}

}  // namespace affix

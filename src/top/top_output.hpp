#pragma once
// `affix top --once`: a frame as text (CPU rows grouped by node, socket,
// LLC and core, then the process table) or as one JSON object (affix(1),
// TOP, "JSON").

#include <string>

#include "top_frame.hpp"

namespace affix {

std::string top_json(const TopFrame& frame);

// A process's remote share as the text and the screen show it: "12.5%";
// "multi" where its threads ran on several nodes (the share is not
// defined); "-" where its pages are unknown.
std::string top_remote_text(const TopProcess& p);
// `rows`: the most process rows (0: all).
std::string top_text(const TopFrame& frame, size_t rows = 0);

}  // namespace affix

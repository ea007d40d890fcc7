#pragma once
// Text that comes from outside (a process's comm, a file's content) is data,
// not text to trust. These turn it into something safe to print:
//   - printable(): for a terminal or a log, as ps does: every byte that is not
//     printable is shown escaped, so a name is one cell of one line;
//   - utf8_or_replacement(): valid UTF-8 for JSON (json.cpp uses it);
// the "did you mean" of the one voice (edit distance, as ninja's
// SpellcheckString); and the words every output shares (counts, ID lists,
// system error texts).

#include <sys/types.h>

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace affix {

// ASCII printable characters (0x20-0x7e) and valid UTF-8 sequences of
// printable code points are kept; a backslash becomes "\\"; \n, \t, \r and
// ESC become "\n", "\t", "\r", "\e"; any other control character (C0, DEL,
// the C1 controls U+0080-U+009F) and every byte that is not valid UTF-8
// becomes "\xHH" (one per byte).
std::string printable(std::string_view s);

// printable(s) in exactly `columns` columns (a table's cell): padded with
// spaces, or, where longer, cut after a whole character or escape and ended
// with '+' (as top(1) marks a cut name). Characters of East Asian wide
// forms count two columns.
std::string printable_cell(std::string_view s, size_t columns);

// `s` with every byte that is not part of a valid UTF-8 sequence replaced by
// U+FFFD (overlong forms, surrogates and code points above U+10FFFF are not
// valid).
std::string utf8_or_replacement(std::string_view s);

// `s` cut at every `sep`: n separators give n + 1 fields, empty ones kept
// (views into `s`).
std::vector<std::string_view> split(std::string_view s, char sep);

// Levenshtein distance (insert, delete, substitute; each 1).
size_t edit_distance(std::string_view a, std::string_view b);

// The candidate nearest to `word` within an edit distance of `max`
// (ties: the first in the list) that keeps at least two of the word's
// characters (distance <= length - 2); empty where none is that close.
std::string nearest(std::string_view word, const std::vector<std::string>& candidates,
                    size_t max = 2);

// "did you mean 'show'?" for the nearest candidate, or empty.
std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates,
                         size_t max = 2);

// "1-3,7" for a sorted list of IDs (thread IDs go beyond CpuSet's sizes).
// With a width, the list stops before the item that would make it longer
// (the first item is always shown) and says how many IDs it left out:
// "1-3,7 +40 more".
std::string format_id_list(const std::vector<pid_t>& ids, size_t width = std::string::npos);

// "1 thread", "2 threads": the count and the word, `many` where n is not 1
// (the word with an 's' where `many` is empty).
std::string plural(unsigned long long n, std::string_view one, std::string_view many = {});

// The system's text for an errno value (strerror): "Permission denied".
std::string errno_text(int err);

// "1,210": a count with its thousands grouped, for counts a person reads.
std::string grouped(unsigned long long n);

// "0:216 1:5": a count per node (pages per NUMA node), ascending node
// number; "none" where there is none. With drop_zero, nodes with a count
// of 0 are left out.
std::string format_node_counts(const std::map<unsigned, unsigned long long>& counts, bool drop_zero = false);

// "62.5 GiB", "512 MiB", "12 KiB" (topo, and the pictures' nodes).
std::string format_kb(unsigned long long kb);

// Where an ECMAScript regular expression has a number of more than 9
// digits after a backslash (a back-reference) or a '{' (a repetition, both
// of its counts): libstdc++ reads such a number into a long without a check
// (signed overflow from 19 digits; fuzz/rules found it), so it is refused
// before the library sees the pattern. 9 digits is far past any count the
// library accepts (100,000 states) and any group a pattern can have.
// Conservative: a bracket's literal '{' counts too. The reason, for an
// error message ("'\\8888888888...': a count or a back-reference of more
// than 9 digits"), or nullopt.
std::optional<std::string> regex_overlong_number(std::string_view re);

}  // namespace affix

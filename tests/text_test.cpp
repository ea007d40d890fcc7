#include <catch2/catch.hpp>

#include "json.hpp"
#include "text.hpp"

using namespace affix;

TEST_CASE("printable escapes every byte a terminal would act on") {
  CHECK(printable("nginx") == "nginx");
  CHECK(printable("\x1b[2J\x1b]0;pwn\a\n") == "\\e[2J\\e]0;pwn\\x07\\n");
  CHECK(printable("a\\b\tc\r") == "a\\\\b\\tc\\r");
  CHECK(printable("\xff") == "\\xff");
  CHECK(printable(std::string("a\0b", 3)) == "a\\x00b");
  CHECK(printable("\x7f") == "\\x7f");
  CHECK(printable("caf\xc3\xa9") == "caf\xc3\xa9");          // é stays
  CHECK(printable("\xc2\x9b" "31m") == "\\xc2\\x9b31m");      // C1 CSI escaped
  CHECK(printable("\xe2\x82") == "\\xe2\\x82");              // truncated sequence
  CHECK(printable("\xc0\xaf") == "\\xc0\\xaf");              // overlong
  CHECK(printable("\xed\xa0\x80") == "\\xed\\xa0\\x80");     // surrogate
}

TEST_CASE("printable_cell: a name in its columns, cut at a whole character or escape") {
  CHECK(printable_cell("nginx", 8) == "nginx   ");
  CHECK(printable_cell("kworker/15:0H-events_highpri", 15) == "kworker/15:0H-+");
  CHECK(printable_cell("exactly-fifteen", 15) == "exactly-fifteen");
  CHECK(printable_cell("\x1b[31m\xff" "evil\n", 15) == "\\e[31m\\xffevil+");  // 16 columns escaped
  CHECK(printable_cell("abcdefghijklm\n", 15) == "abcdefghijklm\\n");          // 15: not cut
  CHECK(printable_cell("abcdefghijklmn\n", 15) == "abcdefghijklmn+");          // never half an escape
  CHECK(printable_cell("caf\xc3\xa9", 5) == "caf\xc3\xa9 ");                   // a character, a column
  CHECK(printable_cell("\xe4\xb8\xad\xe6\x96\x87", 4) == "\xe4\xb8\xad\xe6\x96\x87");  // wide: two each
  CHECK(printable_cell("\xe4\xb8\xad\xe6\x96\x87x", 4) == "\xe4\xb8\xad+ ");
  CHECK(printable_cell("", 3) == "   ");
}

TEST_CASE("utf8_or_replacement makes any bytes valid UTF-8") {
  CHECK(utf8_or_replacement("abc") == "abc");
  CHECK(utf8_or_replacement("a\xff" "b") == "a\xef\xbf\xbd" "b");
  CHECK(utf8_or_replacement("\xf4\x90\x80\x80") == "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
  CHECK(utf8_or_replacement("\xf0\x9f\x98\x80") == "\xf0\x9f\x98\x80");
}

TEST_CASE("json strings are valid UTF-8 with control characters escaped") {
  CHECK(json_escape("\x1b[2J\n") == "\"\\u001b[2J\\n\"");
  CHECK(json_escape("\xff") == "\"\xef\xbf\xbd\"");
  CHECK(json_escape("\x7f") == "\"\\u007f\"");
  CHECK(json_escape("\xc2\x85") == "\"\\u0085\"");
  CHECK(json_escape("\xc2\xa0") == "\"\xc2\xa0\"");
  CHECK(json_escape("q\"\\") == "\"q\\\"\\\\\"");
}

TEST_CASE("did you mean: the nearest word within an edit distance of 2") {
  std::vector<std::string> commands{"run", "pin", "show", "topo", "explain"};
  CHECK(edit_distance("shwo", "show") == 2);
  CHECK(edit_distance("", "abc") == 3);
  CHECK(did_you_mean("shwo", commands) == "did you mean 'show'?");
  CHECK(did_you_mean("top", commands) == "did you mean 'topo'?");
  CHECK(did_you_mean("explian", commands) == "did you mean 'explain'?");
  CHECK(did_you_mean("ls", commands) == "");
  CHECK(nearest("xyzzy", commands) == "");
  // Within 2 but keeping fewer than two of the word's characters: no hint.
  CHECK(nearest("all", {"socket", "llc"}) == "");
  CHECK(nearest("l4", {"l3"}) == "");
  CHECK(nearest("sock", {"socket"}) == "socket");
}

TEST_CASE("ID lists") {
  CHECK(format_id_list({}) == "");
  CHECK(format_id_list({5}) == "5");
  CHECK(format_id_list({1, 2, 3, 7, 9, 10}) == "1-3,7,9-10");
  // With a width: whole items up to it, then how many IDs were left out.
  CHECK(format_id_list({1, 2, 3, 7, 9, 10}, 5) == "1-3,7 +2 more");
  CHECK(format_id_list({1, 2, 3, 7, 9, 10}, 10) == "1-3,7,9-10");
  CHECK(format_id_list({1000000, 2000000}, 3) == "1000000 +1 more");  // the first always shown
}

TEST_CASE("grouped: thousands separated by commas") {
  CHECK(grouped(0) == "0");
  CHECK(grouped(999) == "999");
  CHECK(grouped(1210) == "1,210");
  CHECK(grouped(9000) == "9,000");
  CHECK(grouped(1234567) == "1,234,567");
  CHECK(grouped(18446744073709551615ull) == "18,446,744,073,709,551,615");
}

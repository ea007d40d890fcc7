#include "cli_errors.hpp"

#include <algorithm>
#include <cstdio>
#include <optional>
#include <string_view>
#include <utility>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "error.hpp"
#include "text.hpp"

namespace affix {

namespace {

bool is_flag(const CLI::Option& o) { return o.get_items_expected_max() == 0; }
bool is_help(const CLI::Option& o) {
  const auto& l = o.get_lnames();
  return std::find(l.begin(), l.end(), "help") != l.end();
}

// "-i" or "--root": how the usage line names an option (the short name
// first, as a synopsis does).
std::string usage_name(const CLI::Option& o) {
  if (!o.get_snames().empty()) return "-" + o.get_snames().front();
  return "--" + o.get_lnames().front();
}

// "--interval": how a message names an option however it was written, as
// the hand parser does ("option '--count' given twice" for -n).
std::string message_name(const CLI::Option& o) {
  if (!o.get_lnames().empty()) return "--" + o.get_lnames().front();
  return "-" + o.get_snames().front();
}

// One word that looks like an option, split as the hand parser splits it.
struct OptionWord {
  CLI::Option* option = nullptr;  // nullptr: none of the app's
  std::string name;               // as written, without an attached value
  std::optional<std::string> value;
};

OptionWord split_option(CLI::App& app, std::string_view word) {
  OptionWord out;
  if (word.substr(0, 2) == "--") {
    std::string_view body = word.substr(2);
    auto eq = body.find('=');
    std::string name(body.substr(0, eq));
    out.name = "--" + name;
    if (eq != std::string_view::npos) out.value = std::string(body.substr(eq + 1));
    for (CLI::Option* o : app.get_options()) {
      const auto& l = o->get_lnames();
      if (o->nonpositional() && std::find(l.begin(), l.end(), name) != l.end()) out.option = o;
    }
    return out;
  }
  std::string letter(word.substr(1, 1));
  out.name = "-" + letter;
  for (CLI::Option* o : app.get_options()) {
    const auto& s = o->get_snames();
    if (o->nonpositional() && std::find(s.begin(), s.end(), letter) != s.end()) out.option = o;
  }
  if (word.size() > 2 && out.option) {
    if (is_flag(*out.option)) {  // "-hx": not one of ours (CLI11 would split it)
      out.option = nullptr;
    } else {
      out.value = std::string(word.substr(2));
    }
  }
  if (!out.option) out.name = std::string(word);
  return out;
}

std::vector<std::string> long_names(CLI::App& app) {
  std::vector<std::string> out;
  for (CLI::Option* o : app.get_options())
    for (const auto& l : o->get_lnames()) out.push_back("--" + l);
  return out;
}

struct Checker {
  CLI::App& app;
  const char* command;

  [[noreturn]] void fail(const std::string& what, std::string hint = {}) const {
    if (hint.empty()) hint = fmt::format("{}; see 'affix {} --help'", cli11_usage(app), command);
    throw Error(ErrorKind::Usage, what, hint);
  }

  struct Checked {
    std::vector<std::pair<CLI::Option*, std::string>> values;  // the value options given
    size_t used = 0;  // the words CLI11 is to see: all, or up to --help
  };

  // Every word in affix's rules.
  Checked check(const Args& args) const {
    Checked out;
    auto& values = out.values;
    size_t max_positionals = 0;
    for (CLI::Option* o : app.get_options())
      if (!o->nonpositional()) max_positionals += static_cast<size_t>(o->get_items_expected_max());
    size_t positionals = 0;
    bool options_done = false;
    for (size_t i = 0; i < args.size(); ++i) {
      const std::string& word = args[i];
      if (!options_done && word == "--") {
        options_done = true;
        continue;
      }
      if (!options_done && word.size() > 1 && word[0] == '-') {
        OptionWord ow = split_option(app, word);
        if (!ow.option) {
          std::string hint = word.substr(0, 2) == "--" ? did_you_mean(ow.name, long_names(app)) : "";
          fail(fmt::format("unknown option '{}' for '{}'", ow.name, command), hint);
        }
        if (is_help(*ow.option) && !ow.value) {  // --help wins over what follows
          out.used = i + 1;
          return out;
        }
        if (is_flag(*ow.option)) {
          if (ow.value) fail(fmt::format("option '{}' takes no value", ow.name));
          continue;
        }
        // A missing or empty value (`--root`, `--root=`, `--root ''`) is no
        // value; CLI11 would let `--root=` take the next word.
        std::string value;
        if (ow.value) value = *ow.value;
        else if (i + 1 < args.size()) value = args[++i];
        if (value.empty()) fail(fmt::format("option '{}' needs a value", ow.name));
        if (ow.option->get_items_expected_max() == 1)
          for (const auto& [o, v] : values)
            if (o == ow.option) fail(fmt::format("option '{}' given twice", message_name(*o)));
        values.emplace_back(ow.option, value);
        continue;
      }
      if (++positionals > max_positionals)
        fail(fmt::format("unexpected argument '{}' for '{}'", word, command));
    }
    out.used = args.size();
    return out;
  }
};

}  // namespace

std::string cli11_usage(const CLI::App& app) {
  std::string out = "usage: " + app.get_name();
  for (const CLI::Option* o : app.get_options()) {
    if (!o->nonpositional() || is_help(*o)) continue;
    out += " [" + usage_name(*o);
    if (!is_flag(*o)) out += " " + o->get_type_name();
    out += "]";
  }
  for (const CLI::Option* o : app.get_options()) {
    if (o->nonpositional()) continue;
    out += " [" + o->get_name(true) + (o->get_items_expected_max() > 1 ? "...]" : "]");
  }
  return out;
}

bool parse_cli11(CLI::App& app, const Args& args, const char* command) {
  Checker checker{app, command};
  auto checked = checker.check(args);
  // CLI11 takes the words in reverse order.
  std::vector<std::string> reversed(args.rend() - static_cast<std::ptrdiff_t>(checked.used), args.rend());
  try {
    app.parse(reversed);
  } catch (const CLI::CallForHelp&) {
    std::fputs(app.help().c_str(), stdout);
    return false;
  } catch (const CLI::ParseError&) {
    // The words are right but a value is not (a typed option CLI11 cannot
    // convert or a validator refuses): find which, in affix's words.
    for (auto& [option, value] : checked.values) {
      try {
        option->clear();
        option->add_result(value);
        option->run_callback();
      } catch (const CLI::ParseError&) {
        checker.fail(fmt::format("invalid value '{}' for option '{}'", value, message_name(*option)));
      }
    }
    checker.fail(fmt::format("invalid command line for '{}'", command));
  }
  return true;
}

}  // namespace affix

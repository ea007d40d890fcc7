#pragma once
// What the commands share of their pictures (affix(1), PICTURES): the
// machine as topo draws it (with its devices and GPUs, their warnings
// printed once), the options' rules, and the one writer of a picture:
// standard output, or FILE written whole under a temporary name and renamed
// (a reader never sees half a picture; a failed write leaves FILE as it was).

#include <string>

#include "command_line.hpp"
#include "sysroot.hpp"
#include "topology.hpp"

namespace affix {

// The topology with its devices, GPUs and displays; their warnings printed.
Topology read_drawn_machine(const SysRoot& root);
// Its devices, GPUs and displays added to `topo`; their warnings printed.
void read_drawn_devices(const SysRoot& root, Topology& topo);

// --svg to standard output (no FILE, or "-") with --json or --ascii, and
// --ascii with --json: Error(Usage).
void check_picture_options(const CommandLine& cl);

// Whether --svg writes to standard output.
bool svg_to_stdout(const CommandLine& cl);

// `text` to standard output where `file` is "" or "-", else to `file`
// (FILE.part, then renamed over FILE). Error(Runtime) "cannot write the
// picture to FILE: REASON" where it cannot.
void write_picture(const std::string& file, const std::string& text);

// Before a long watch: whether `file` can be written (FILE.part is created
// and removed); the same error where not.
void check_picture_file(const std::string& file);

// --ascii's characters for this process's locale (ascii_painter.hpp).
bool locale_is_utf8();

}  // namespace affix

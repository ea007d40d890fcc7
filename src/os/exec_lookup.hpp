#pragma once
// What execvp would find for a command, without executing it, for `run
// --dry-run` (which exits 127/126 where the real run would). The rules of
// glibc's execvp: a name with a '/' is the file itself; otherwise each
// directory of PATH in turn (an empty entry is the current directory;
// without PATH, glibc's default "/bin:/usr/bin"), the first executable
// regular file wins, and a file found but not executable makes the search
// end in EACCES where nothing later is found.

#include <string>

namespace affix {

// 0 where execvp would find an executable file; else the errno its exec
// would fail with (ENOENT, ENOTDIR, EACCES, ...). `path`: PATH's value, or
// nullptr where unset. `found`, where given, gets the file that would run.
int exec_lookup(const std::string& command, const char* path, std::string* found = nullptr);

}  // namespace affix

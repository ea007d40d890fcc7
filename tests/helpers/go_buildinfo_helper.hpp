// A stand-in for a Go program (tests/cli/pin_runtime_env.sh): no Go
// toolchain is needed to build it, yet affix finds what it finds in a real
// Go executable, an ELF section .go.buildinfo in Go 1.18's inline format:
// the 14-byte magic "\xff Go buildinf:", the pointer size, the flags (2:
// inline strings), padding to 32 bytes, then the version and the module
// lines, each a varint length and its bytes. (Checked against a program
// built here by Debian's go 1.19: `\xff Go buildinf:\x08\x02`, 16 zero
// bytes, `\x08go1.19.8`.) It prints "ready" and waits to be killed.
// Include after defining GO_BUILDINFO_BYTES (the section's bytes after the
// 32-byte header).
#include <unistd.h>

#include <cstdio>

#define GO_BUILDINFO_HEADER "\xff Go buildinf:" "\x08\x02" "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0"

__attribute__((section(".go.buildinfo"), used, aligned(16))) const char go_buildinfo[] =
    GO_BUILDINFO_HEADER GO_BUILDINFO_BYTES;

int main() {
  std::printf("ready %d\n", static_cast<int>(go_buildinfo[0]) & 0xff);
  std::fflush(stdout);
  for (;;) pause();
}

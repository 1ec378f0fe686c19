// Process spawning for the tests and multiauth-bench (never linked into the library), in C
// because the calls it needs (`pipe2`, `posix_spawn_file_actions_addclosefrom_np`) are
// glibc extensions that Swift's Glibc module does not declare. Docs/Testing.md, "Child
// processes", says why the tests do not use Foundation's `Process` on Linux.
#ifndef CMULTIAUTHSPAWN_H
#define CMULTIAUTHSPAWN_H
#include <sys/types.h>

/// A pipe whose two descriptors are close-on-exec (so no other child inherits them).
/// Returns 0, or -1 with errno set.
int mas_pipe(int descriptors[2]);

/// Starts `path` with `argv` and `envp` (both NULL-terminated) through `posix_spawn`. The
/// child's standard input, output and error are `input`, `output` and `error` (duplicated onto
/// 0, 1 and 2); every other descriptor is closed in the child; the child leads a process group
/// of its own, blocks no signal and has every signal at its default action. Writes the child's pid to `pid`. Returns 0, or the error number (the child was
/// not started: an `exec` failure is reported here too, glibc's `posix_spawn` waits for it).
int mas_spawn(pid_t *pid, const char *path, char *const argv[], char *const envp[], int input, int output,
              int error);

#endif

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "CMultiAuthSpawn.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <unistd.h>

int mas_pipe(int descriptors[2]) {
#if defined(__APPLE__)
    if (pipe(descriptors) != 0) return -1;
    for (int index = 0; index < 2; index++) {
        if (fcntl(descriptors[index], F_SETFD, FD_CLOEXEC) != 0) {
            int saved = errno;
            close(descriptors[0]);
            close(descriptors[1]);
            errno = saved;
            return -1;
        }
    }
    return 0;
#else
    return pipe2(descriptors, O_CLOEXEC);
#endif
}

int mas_spawn(pid_t *pid, const char *path, char *const argv[], char *const envp[], int input, int output,
              int error) {
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attributes;
    int result = posix_spawn_file_actions_init(&actions);
    if (result != 0) return result;
    result = posix_spawnattr_init(&attributes);
    if (result != 0) {
        posix_spawn_file_actions_destroy(&actions);
        return result;
    }
    // The child starts with no signal blocked and every signal at its default action: the
    // calling thread may be one of the runtime's workers, which block signals, and an ignored
    // SIGPIPE would otherwise be inherited across exec.
    short flags = POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF;
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    result = posix_spawnattr_setsigmask(&attributes, &none);
    if (result == 0) result = posix_spawnattr_setsigdefault(&attributes, &all);
    const int sources[3] = {input, output, error};
    for (int target = 0; target < 3 && result == 0; target++) {
        result = posix_spawn_file_actions_adddup2(&actions, sources[target], target);
    }
#if defined(__APPLE__)
    flags |= POSIX_SPAWN_CLOEXEC_DEFAULT;
#else
    // Every descriptor above the standard three is closed in the child (glibc 2.34 and later).
    if (result == 0) result = posix_spawn_file_actions_addclosefrom_np(&actions, 3);
#endif
    if (result == 0) result = posix_spawnattr_setflags(&attributes, flags);
    if (result == 0) result = posix_spawnattr_setpgroup(&attributes, 0);
    if (result == 0) result = posix_spawn(pid, path, &actions, &attributes, argv, envp);
    posix_spawnattr_destroy(&attributes);
    posix_spawn_file_actions_destroy(&actions);
    return result;
}

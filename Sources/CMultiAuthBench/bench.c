#include "CMultiAuthBench.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/file.h>  // flock
#include <sys/stat.h>
#include <unistd.h>
#include <stdio.h>  // rename

#if defined(__has_include)
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#define MAB_HAVE_CALLGRIND 1
#endif
#endif

int mab_running_on_valgrind(void) {
#ifdef MAB_HAVE_CALLGRIND
    return RUNNING_ON_VALGRIND ? 1 : 0;
#else
    return 0;
#endif
}

void mab_callgrind_zero(void) {
#ifdef MAB_HAVE_CALLGRIND
    CALLGRIND_ZERO_STATS;
#endif
}

void mab_callgrind_dump(void) {
#ifdef MAB_HAVE_CALLGRIND
    CALLGRIND_DUMP_STATS;
#endif
}

static int durable_write_locked(const char *path, const char *temp, const char *directory, const void *bytes,
                                size_t length) {
    int fd = open(temp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) return -1;
    const char *cursor = bytes;
    size_t left = length;
    while (left > 0) {
        ssize_t written = write(fd, cursor, left);
        if (written < 0) {
            if (errno == EINTR) continue;
            close(fd);
            unlink(temp);
            return -1;
        }
        cursor += written;
        left -= (size_t)written;
    }
    int synced = fsync(fd);
    int closed = close(fd);
    if (synced != 0 || closed != 0 || rename(temp, path) != 0) {
        unlink(temp);
        return -1;
    }
    int dir = open(directory, O_RDONLY | O_CLOEXEC);
    if (dir < 0) return -1;
    int dirSynced = fsync(dir);
    close(dir);
    return dirSynced;
}

int mab_durable_write(const char *lock, const char *path, const char *temp, const char *directory, const void *bytes,
                      size_t length) {
    int lockFD = open(lock, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (lockFD < 0) return -1;
    struct stat info;
    if (fstat(lockFD, &info) != 0 || !S_ISREG(info.st_mode) || info.st_uid != geteuid()) {
        close(lockFD);
        return -1;
    }
    while (flock(lockFD, LOCK_EX) != 0) {
        if (errno != EINTR) {
            close(lockFD);
            return -1;
        }
    }
    int status = durable_write_locked(path, temp, directory, bytes, length);
    close(lockFD);
    return status;
}

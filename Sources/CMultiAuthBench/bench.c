#include "CMultiAuthBench.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/file.h>  // flock
#include <sys/stat.h>
#include <unistd.h>
#include <stdio.h>  // rename, snprintf
#include <stdlib.h>  // calloc, free
#include <string.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <sys/socket.h>

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

int mab_redis_connect(int port) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) return -1;
    struct sockaddr_in address;
    memset(&address, 0, sizeof address);
    address.sin_family = AF_INET;
    address.sin_port = htons((unsigned short)port);
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, (struct sockaddr *)&address, sizeof address) != 0) {
        close(fd);
        return -1;
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return fd;
}

int mab_redis_setnx(int fd, const char *prefix, long index) {
    char key[256];
    int keyLength = snprintf(key, sizeof key, "%s%ld", prefix, index);
    if (keyLength <= 0 || keyLength >= (int)sizeof key) return -1;
    char command[512];
    int length = snprintf(command, sizeof command,
                          "*6\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$1\r\n1\r\n$2\r\nNX\r\n$2\r\nPX\r\n$5\r\n60000\r\n",
                          keyLength, key);
    if (length <= 0 || length >= (int)sizeof command) return -1;
    if (send(fd, command, (size_t)length, MSG_NOSIGNAL) != length) return -1;
    char reply[64];
    size_t have = 0;
    while (have < sizeof reply) {
        ssize_t got = recv(fd, reply + have, sizeof reply - have, 0);
        if (got <= 0) return -1;
        have += (size_t)got;
        if (have >= 2 && reply[have - 2] == '\r' && reply[have - 1] == '\n') break;
    }
    if (have >= 3 && reply[0] == '+') return 1;
    if (have >= 4 && reply[0] == '$' && reply[1] == '-') return 0;
    return -1;
}

void mab_redis_close(int fd) { close(fd); }

#if defined(__has_include)
#if __has_include(<openssl/sha.h>)
#define MAB_HAVE_LIBCRYPTO 1
// SHA1_Init/Update/Final are deprecated in OpenSSL 3 in favour of EVP; they are still the
// fastest way libcrypto offers to hash with a copied state, which is what this floor is.
#define OPENSSL_SUPPRESS_DEPRECATED 1
#include <openssl/crypto.h>
#include <openssl/sha.h>
#endif
#endif

#ifdef MAB_HAVE_LIBCRYPTO
struct mab_hmac_sha1 {
    SHA_CTX inner;
    SHA_CTX outer;
};

mab_hmac_sha1 *mab_hmac_sha1_new(const unsigned char *key, size_t length) {
    unsigned char hashed[SHA_DIGEST_LENGTH];
    if (length > SHA_CBLOCK) {
        SHA1(key, length, hashed);
        key = hashed;
        length = SHA_DIGEST_LENGTH;
    }
    mab_hmac_sha1 *state = calloc(1, sizeof *state);
    if (state == NULL) return NULL;
    unsigned char block[SHA_CBLOCK];
    memset(block, 0x36, sizeof block);
    for (size_t index = 0; index < length; index++) block[index] ^= key[index];
    SHA1_Init(&state->inner);
    SHA1_Update(&state->inner, block, sizeof block);
    memset(block, 0x5c, sizeof block);
    for (size_t index = 0; index < length; index++) block[index] ^= key[index];
    SHA1_Init(&state->outer);
    SHA1_Update(&state->outer, block, sizeof block);
    OPENSSL_cleanse(block, sizeof block);
    return state;
}

void mab_hmac_sha1_free(mab_hmac_sha1 *state) {
    if (state == NULL) return;
    OPENSSL_cleanse(state, sizeof *state);
    free(state);
}

void mab_hmac_sha1_counter(const mab_hmac_sha1 *state, unsigned long long counter, unsigned char out[20]) {
    unsigned char message[8];
    for (int index = 7; index >= 0; index--) {
        message[index] = (unsigned char)counter;
        counter >>= 8;
    }
    unsigned char inner[SHA_DIGEST_LENGTH];
    SHA_CTX context = state->inner;
    SHA1_Update(&context, message, sizeof message);
    SHA1_Final(inner, &context);
    context = state->outer;
    SHA1_Update(&context, inner, sizeof inner);
    SHA1_Final(out, &context);
}
#else
mab_hmac_sha1 *mab_hmac_sha1_new(const unsigned char *key, size_t length) {
    (void)key;
    (void)length;
    return NULL;
}

void mab_hmac_sha1_free(mab_hmac_sha1 *state) { (void)state; }

void mab_hmac_sha1_counter(const mab_hmac_sha1 *state, unsigned long long counter, unsigned char out[20]) {
    (void)state;
    (void)counter;
    memset(out, 0, 20);
}
#endif

// MARK: - Global enqueues

// The Swift runtime's hook (swift/Runtime/Concurrency.h): called for every job enqueued on the
// global executor, with the original implementation to call. Both use the Swift calling
// convention; declared weak so the bench still links against a runtime without it.
typedef void (*mab_swift_enqueue_original)(void *job) __attribute__((swiftcall));
typedef void (*mab_swift_enqueue_hook)(void *job, mab_swift_enqueue_original original) __attribute__((swiftcall));
extern mab_swift_enqueue_hook swift_task_enqueueGlobal_hook __attribute__((weak));

static _Atomic unsigned long long mab_enqueues;

__attribute__((swiftcall)) static void mab_counting_enqueue(void *job, mab_swift_enqueue_original original) {
    mab_enqueues += 1;
    original(job);
}

int mab_count_global_enqueues(void) {
    if (&swift_task_enqueueGlobal_hook == NULL) return -1;
    swift_task_enqueueGlobal_hook = mab_counting_enqueue;
    return 0;
}

unsigned long long mab_global_enqueues(void) { return mab_enqueues; }

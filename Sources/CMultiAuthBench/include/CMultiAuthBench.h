// C helpers for multiauth-bench (never linked into the library): callgrind client requests for
// the instruction-count mode, the bare-C durable write that FileSessionStore.save is compared
// with, and the HMAC-SHA1 floor of TOTP verification.
#ifndef CMULTIAUTHBENCH_H
#define CMULTIAUTHBENCH_H
#include <stddef.h>

/// 1 when the process runs under valgrind, else 0 (always 0 without valgrind's headers).
int mab_running_on_valgrind(void);

/// Zeroes callgrind's event counters (every thread). No effect outside callgrind.
void mab_callgrind_zero(void);

/// Writes callgrind's counters since the last zero to a new dump file. No effect outside callgrind.
void mab_callgrind_dump(void);

/// The durable atomic write of FileSessionStore.save in bare C: open the lock file `lock`
/// (O_RDWR|O_CREAT|O_NOFOLLOW, 0600), fstat it, flock(LOCK_EX); open `temp`
/// (O_CREAT|O_EXCL|O_NOFOLLOW, 0600), write all of `bytes`, fsync, close, rename over `path`,
/// open `directory`, fsync it, close; close the lock file (releasing the lock). Returns 0, or
/// -1 with errno set.
int mab_durable_write(const char *lock, const char *path, const char *temp, const char *directory, const void *bytes,
                      size_t length);

/// A blocking TCP connection to a Redis server on 127.0.0.1:`port` (TCP_NODELAY, like the
/// library's client). Returns the descriptor, or -1 with errno set.
int mab_redis_connect(int port);

/// One bare `SET key 1 NX PX 60000` round trip on `fd`, the key being `prefix` followed by the
/// decimal `index`: the command written in one send, the reply read up to its CRLF. Returns 1
/// for +OK, 0 for the null reply, -1 on any error.
int mab_redis_setnx(int fd, const char *prefix, long index);

/// Closes a connection of mab_redis_connect.
void mab_redis_close(int fd);

/// HMAC-SHA1 (RFC 2104) keyed once, as oathtool and every fast HMAC computes it: the SHA-1
/// states after the blocks K XOR ipad and K XOR opad, absorbed when the key is made with
/// libcrypto's SHA1_Init/SHA1_Update. The TOTP floor. Opaque; NULL when libcrypto is missing.
typedef struct mab_hmac_sha1 mab_hmac_sha1;

/// The keyed states of `key` (`length` bytes; hashed first when longer than 64 bytes), or NULL.
mab_hmac_sha1 *mab_hmac_sha1_new(const unsigned char *key, size_t length);

/// Frees the states of mab_hmac_sha1_new.
void mab_hmac_sha1_free(mab_hmac_sha1 *state);

/// HMAC-SHA1 of the 8-byte big-endian `counter` into `out` (20 bytes): the two keyed SHA-1
/// contexts copied (a struct copy, never re-keyed) and finished with SHA1_Update/SHA1_Final.
void mab_hmac_sha1_counter(const mab_hmac_sha1 *state, unsigned long long counter, unsigned char out[20]);

/// Installs a hook on the Swift concurrency runtime's global enqueue
/// (`swift_task_enqueueGlobal_hook`) that counts every job put on the global executor — a new
/// task's first run, a resumed task, a default actor's processing job — before passing it on.
/// Returns 0, or -1 when the runtime has no such hook. Call once, before the work to count.
int mab_count_global_enqueues(void);

/// The number of global enqueues counted since mab_count_global_enqueues (0 without the hook).
unsigned long long mab_global_enqueues(void);

#endif

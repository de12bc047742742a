/*
 * A slow disk for `npm run bench:checkpoint`: fsync and fdatasync sleep SLOW_FSYNC_MS (say 10, an
 * SD card's order) before they do the real call, in every thread of the process that loads this
 * (SQLite's checkpoints, the daemon's WAL sync on libuv's pool). Not part of the daemon or the tests.
 *
 *   gcc -shared -fPIC -O2 -o /tmp/slow-fsync.so bench/slow-fsync.c -ldl
 *   SLOW_FSYNC_MS=10 LD_PRELOAD=/tmp/slow-fsync.so npm run bench:checkpoint
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <time.h>

static void wait_like_a_slow_disk(void) {
  const char *ms = getenv("SLOW_FSYNC_MS");
  long ns = ms ? (long)(atof(ms) * 1e6) : 0;
  if (ns > 0) {
    struct timespec t = {ns / 1000000000L, ns % 1000000000L};
    nanosleep(&t, 0);
  }
}

int fsync(int fd) {
  static int (*real)(int);
  if (!real) real = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
  wait_like_a_slow_disk();
  return real(fd);
}

int fdatasync(int fd) {
  static int (*real)(int);
  if (!real) real = (int (*)(int))dlsym(RTLD_NEXT, "fdatasync");
  wait_like_a_slow_disk();
  return real(fd);
}

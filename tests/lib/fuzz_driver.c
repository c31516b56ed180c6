/* fuzz_driver.c: a stand-in for libFuzzer when the compiler is not clang:
 * mutates seed files (bit flips, interesting bytes and 64-bit fields,
 * truncation, chunk copies) and feeds them to LLVMFuzzerTestOneInput for a
 * bounded time. Deterministic per --seed. Any sanitizer report aborts the
 * process, which fails the test. Shared by every fuzz target (kwco-fuzz of
 * tests/codeobj, tests/fuzz's kwfuzz-*); messages and the crash file carry
 * the program's name.
 *
 *   PROGRAM [--seconds N] [--seed S] [--runs N] FILE... */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/kw_fs.h"

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/common_interface_defs.h>
#define HAVE_DEATH_CALLBACK 1
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The program's name, for messages. */
static const char *prog = "kwco-fuzz";

/* The input being run, written to PROGRAM-crash.bin if the process dies. */
static const uint8_t *cur_data;
static size_t cur_len;
static void save_current(void) {
    char name[256];
    snprintf(name, sizeof name, "%s-crash.bin", prog);
    FILE *f = fopen(name, "wb");
    if (f) {
        fwrite(cur_data, 1, cur_len, f);
        fclose(f);
        fprintf(stderr, "%s: the input is in %s\n", prog, name);
    }
}

/* A failed check of a target aborts: save the input, then die by the signal. */
static void on_abort(int sig) {
    save_current();
    signal(sig, SIG_DFL);
    raise(sig);
}

static uint64_t rng_state = 88172645463325252ull;
static uint64_t rnd(void) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static size_t mutate(uint8_t *buf, size_t len, size_t cap) {
    static const uint64_t interesting[] = {0, 1, 0x7f, 0x80, 0xff, 0xffff, 0x7fffffff,
                                           0xffffffff, 1ull << 32, 1ull << 62, UINT64_MAX};
    int rounds = 1 + (int)(rnd() % 4);
    for (int r = 0; r < rounds && len > 0; r++) {
        size_t at = rnd() % len;
        switch (rnd() % 6) {
        case 0:
            buf[at] ^= (uint8_t)(1u << (rnd() % 8));
            break;
        case 1:
            buf[at] = (uint8_t)interesting[rnd() % 5];
            break;
        case 2: /* a 64-bit little-endian field: offsets, sizes, counts */
            if (len >= 8) {
                at = (rnd() % (len / 8)) * 8;
                uint64_t v = interesting[rnd() % (sizeof interesting / sizeof interesting[0])];
                if (rnd() % 2)
                    v = len + rnd() % 64 - 32;
                for (int b = 0; b < 8; b++)
                    buf[at + b] = (uint8_t)(v >> (8 * b));
            }
            break;
        case 3:
            len = at + 1;
            break;
        case 4: { /* copy a chunk over another place */
            size_t from = rnd() % len, n = 1 + rnd() % 64;
            if (from + n > len)
                n = len - from;
            if (at + n > len)
                n = len - at;
            memmove(buf + at, buf + from, n);
            break;
        }
        default: /* grow with random bytes */
            while (len < cap && rnd() % 8)
                buf[len++] = (uint8_t)rnd();
            break;
        }
    }
    return len;
}

static double wall_seconds(void) {
    struct timespec ts;
    if (timespec_get(&ts, TIME_UTC) != TIME_UTC)
        return (double)clock() / CLOCKS_PER_SEC;
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
    double seconds = 10;
    unsigned long runs = 0; /* 0: no limit but the time */
    const char *slash = strrchr(argv[0], '/');
    prog = slash ? slash + 1 : argv[0];
    char **files = calloc((size_t)argc, sizeof *files);
    int nfiles = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--seconds") == 0 && i + 1 < argc)
            seconds = atof(argv[++i]);
        else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc)
            rng_state = strtoull(argv[++i], NULL, 0) | 1;
        else if (strcmp(argv[i], "--runs") == 0 && i + 1 < argc)
            runs = strtoul(argv[++i], NULL, 0);
        else
            files[nfiles++] = argv[i];
    }
    if (!nfiles) {
        fprintf(stderr, "usage: %s [--seconds N] [--seed S] [--runs N] FILE...\n", prog);
        return 2;
    }
    uint8_t **seeds = calloc((size_t)nfiles, sizeof *seeds);
    size_t *lens = calloc((size_t)nfiles, sizeof *lens);
    int nseeds = 0;
    for (int i = 0; i < nfiles; i++) {
        char *d;
        size_t n;
        kw_err err;
        if (kw_fs_read(files[i], &d, &n, &err) != KW_OK)
            continue;
        if (n > (1u << 20)) {
            free(d);
            continue;
        }
        seeds[nseeds] = (uint8_t *)d;
        lens[nseeds++] = n;
    }
    if (!nseeds) {
        fprintf(stderr, "%s: no usable seed (each must be at most 1 MiB)\n", prog);
        return 2;
    }
#ifdef HAVE_DEATH_CALLBACK
    __sanitizer_set_death_callback(save_current);
#endif
    signal(SIGABRT, on_abort);
    for (int i = 0; i < nseeds; i++) { /* the seeds themselves first */
        cur_data = seeds[i];
        cur_len = lens[i];
        LLVMFuzzerTestOneInput(seeds[i], lens[i]);
    }
    size_t cap = (1u << 20) + 4096;
    uint8_t *buf = malloc(cap);
    /* wall-clock time (C11 timespec_get), so that the test takes the time it
     * says on a loaded machine too (CPU time would stretch it) */
    double end = wall_seconds() + seconds;
    unsigned long iters = 0;
    while (wall_seconds() < end && (!runs || iters < runs)) {
        int s = (int)(rnd() % (uint64_t)nseeds);
        memcpy(buf, seeds[s], lens[s]);
        size_t len = mutate(buf, lens[s], cap);
        cur_data = buf;
        cur_len = len;
        LLVMFuzzerTestOneInput(buf, len);
        iters++;
    }
    printf("%s: %lu inputs in %.0f s, no crash\n", prog, iters, seconds - (end - wall_seconds()));
    (void)save_current;
    free(buf);
    for (int i = 0; i < nseeds; i++)
        free(seeds[i]);
    free(seeds);
    free(lens);
    free(files);
    return 0;
}

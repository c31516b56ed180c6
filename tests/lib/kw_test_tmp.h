/* kw_test_tmp.h: the unit tests' scratch folder: a new folder under
 * $TMPDIR (or /tmp) a test writes its files into, removed at its end.
 * The includer defines _POSIX_C_SOURCE 200809L (mkdtemp, getcwd, chdir). */
#ifndef KW_TEST_TMP_H
#define KW_TEST_TMP_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* A new folder "$TMPDIR/NAME-XXXXXX" into dir (n bytes): false, said on
 * stderr, when it cannot be made. */
static inline bool kw_test_tmp_make(char *dir, size_t n, const char *name) {
    snprintf(dir, n, "%s/%s-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", name);
    if (mkdtemp(dir))
        return true;
    perror("mkdtemp");
    return false;
}

/* The folder and all in it removed (a failure said on stderr). */
static inline void kw_test_tmp_remove(const char *dir) {
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
}

/* tests() run with a new folder "$TMPDIR/NAME-XXXXXX" as the working
 * directory, so that no file of an earlier run (or of a test run beside
 * it) is read as its own; the folder removed after. False, said on stderr,
 * when the folder cannot be made or entered (tests() not run). */
static inline bool kw_test_tmp_run(const char *name, void (*tests)(void)) {
    char dir[512], here[4096];
    if (!kw_test_tmp_make(dir, sizeof dir, name))
        return false;
    if (!getcwd(here, sizeof here) || chdir(dir) != 0) {
        perror("chdir");
        kw_test_tmp_remove(dir);
        return false;
    }
    tests();
    if (chdir(here) != 0)
        perror("chdir");
    kw_test_tmp_remove(dir);
    return true;
}

#endif

/* kw_test.h: the unit tests' few assertion macros. A failed check prints
 * file:line and the expression, counts, and the test goes on; main returns
 * kw_test_result(), non-zero when any check failed or none ran. */
#ifndef KW_TEST_H
#define KW_TEST_H

#include <stdio.h>
#include <string.h>

static int kw_test_failures;
static int kw_test_checks;

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        kw_test_checks++;                                                                          \
        if (!(cond)) {                                                                             \
            kw_test_failures++;                                                                    \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);               \
        }                                                                                          \
    } while (0)

#define CHECK_STR(a, b)                                                                            \
    do {                                                                                           \
        const char *kw_a_ = (a), *kw_b_ = (b);                                                     \
        kw_test_checks++;                                                                          \
        if (!kw_a_ || !kw_b_ || strcmp(kw_a_, kw_b_) != 0) {                                       \
            kw_test_failures++;                                                                    \
            fprintf(stderr, "%s:%d: %s == %s failed:\n  got:    %s\n  wanted: %s\n", __FILE__,     \
                    __LINE__, #a, #b, kw_a_ ? kw_a_ : "(null)", kw_b_ ? kw_b_ : "(null)");         \
        }                                                                                          \
    } while (0)

/* Non-zero when a check failed, and when none ran (a test that compared
 * nothing proved nothing, as kwcheck.py's finish() says too). */
static inline int kw_test_result(const char *name) {
    if (kw_test_failures)
        fprintf(stderr, "%s: %d of %d checks failed\n", name, kw_test_failures, kw_test_checks);
    else if (kw_test_checks == 0)
        fprintf(stderr, "%s: no check ran\n", name);
    else
        printf("%s: %d checks passed\n", name, kw_test_checks);
    return kw_test_failures != 0 || kw_test_checks == 0;
}

#endif

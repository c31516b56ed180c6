/* kw_fuzz.h: what the fuzz targets of tests/fuzz share: a check that stops
 * the run (abort, which libFuzzer and the sanitizers report with the input)
 * when a property of the readers does not hold. */
#ifndef KW_FUZZ_H
#define KW_FUZZ_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define KW_FUZZ_CHECK(cond, ...)                                                                   \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "kw-fuzz: %s:%d: ", __FILE__, __LINE__);                               \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

#endif

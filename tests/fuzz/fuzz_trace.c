/* fuzz_trace.c: the fuzz target of the profiler trace readers
 * of text (trace/kw_trace_csv.c, kw_trace_json.c over jansson): every input
 * goes through both,
 * as text ending in '\0' as their contract asks. Checked on what they accept:
 * every dispatch has a name, ends no earlier than it starts (kw_trace.h), and
 * its line is within the input (CSV: a line number, JSON: a dispatch index). */
#include <stdlib.h>
#include <string.h>

#include "kw_fuzz.h"
#include "trace/kw_trace.h"

typedef kw_status (*reader)(kw_trace *, const char *, const char *, size_t, kw_err *);

static void check(reader read, const char *text, size_t size, long lines) {
    kw_trace t;
    kw_err err;
    kw_trace_init(&t);
    if (read(&t, "fuzz", text, size, &err) == KW_OK) {
        for (size_t i = 0; i < t.d.n; i++) {
            const kw_dispatch *d = &t.d.v[i];
            KW_FUZZ_CHECK(d->name != NULL, "dispatch %zu has no name", i);
            KW_FUZZ_CHECK(d->end_ns >= d->start_ns, "dispatch %zu ends before it starts", i);
            KW_FUZZ_CHECK(d->line >= 1 && d->line <= lines, "dispatch %zu at line %ld of %ld", i,
                          d->line, lines);
        }
    } else {
        KW_FUZZ_CHECK(err.msg[0] != '\0', "a failure without a message");
    }
    kw_trace_free(&t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    long lines = 1; /* CSV lines; a JSON input has fewer dispatches than bytes */
    for (size_t i = 0; i < size; i++)
        lines += text[i] == '\n';
    check(kw_trace_parse_csv, text, size, lines);
    check(kw_trace_parse_json, text, size, (long)size + 1);
    free(text);
    return 0;
}

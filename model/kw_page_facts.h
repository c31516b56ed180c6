/* kw_page_facts.h: the sidecar record facts a page prints as recorded, handed
 * to render/ by the page model so that no printer calls into sidecar/: a
 * value's text as the sidecar writes it (a number, an expression or
 * "unknown"), and an arch's instruction classes as the bars of the site's
 * instruction-mix chart (which classes, their counts, the largest and the
 * sum). The record types themselves reach render/ through model/kw_page.h. */
#ifndef KW_PAGE_FACTS_H
#define KW_PAGE_FACTS_H

#include <stddef.h>

#include "model/kw_page.h"

/* v as the sidecar writes it: the number (printed into buf of n bytes), the
 * expression, or "unknown"; NULL when absent. */
const char *kw_page_facts_val(const kw_val *v, char *buf, size_t n);

/* One bar: a class counted (> 0) in the schema's order. */
typedef struct kw_page_facts_bar {
    const char *key; /* the class's sidecar key ("valu", "vmem_load", ...) */
    long long n;
} kw_page_facts_bar;

enum { KW_PAGE_FACTS_BARS = 32 };

/* An arch's instruction classes as bars: every class counted, besides the
 * total (insns) and the modifiers across classes (dpp, sdwa). */
typedef struct kw_page_facts_bars {
    kw_page_facts_bar v[KW_PAGE_FACTS_BARS];
    size_t n;
    long long max, total; /* the largest bar, the bars' sum */
} kw_page_facts_bars;

/* c's bars into out; false (out empty) when no class count is known. */
bool kw_page_facts_classes(const kw_isa_classes *c, kw_page_facts_bars *out);

#endif

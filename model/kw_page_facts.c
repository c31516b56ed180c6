/* kw_page_facts.c: the sidecar record facts a page prints as recorded
 * (kw_page_facts.h): a value's text and an arch's instruction-class bars,
 * read through sidecar/'s schema so that render/ need not. */
#include "model/kw_page_facts.h"

#include <string.h>

const char *kw_page_facts_val(const kw_val *v, char *buf, size_t n) {
    return kw_val_text(v, buf, n);
}

bool kw_page_facts_classes(const kw_isa_classes *c, kw_page_facts_bars *out) {
    memset(out, 0, sizeof(*out));
    if (!kw_isa_classes_known(c))
        return false;
    for (size_t i = 0; kw_isa_class_key(i) && out->n < KW_PAGE_FACTS_BARS; i++) {
        const char *k = kw_isa_class_key(i);
        long long n = kw_isa_class_count(c, i);
        if (n <= 0 || !strcmp(k, "insns") || !strcmp(k, "dpp") || !strcmp(k, "sdwa"))
            continue;
        out->v[out->n++] = (kw_page_facts_bar){k, n};
        out->max = n > out->max ? n : out->max;
        out->total += n;
    }
    return true;
}

/* kw_treport.c: the report model of `kwalk trace` (kw_treport.h) freed;
 * trace/kw_treport_build.c fills it. */
#include "model/kw_treport.h"

#include <string.h>

void kw_treport_free(kw_treport *rep) {
    kw_arena_free(&rep->arena);
    memset(rep, 0, sizeof(*rep));
}

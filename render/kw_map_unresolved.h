/* kw_map_unresolved.h: the part of `kwalk map` after its rows, with two
 * --python-root or more: per op of the rows, the Python calls not resolved
 * statically that could lead to it (python/kwalk_pyscan.py's `@unresolved`
 * rows: getattr, attribute calls named like a function reaching the op,
 * dispatch tables holding one), and, said once for all of them, how many
 * others were left out, by reason. As Markdown, as TSV rows of their own
 * kind (`@unresolved`, `@left-out`) or as two keys of the JSON document
 * (docs/render.md, docs/json.md). */
#ifndef KW_MAP_UNRESOLVED_H
#define KW_MAP_UNRESOLVED_H

#include <stdbool.h>
#include <stddef.h>

#include "common/kw_arena.h"
#include "common/kw_buf.h"
#include "common/kw_jansson.h"
#include "model/kw_python_chains.h"
#include "render/kw_map_link.h"

typedef struct kw_map_unres {
    const kw_py_chains *pc;
    const size_t *ops; /* the helper's ops with rows in the map (into pc->ops), each once */
    size_t nops;
    /* the calls listed only for ops without a row here, each once (the
     * map's model counted them: kw_map_shown.elsewhere) */
    size_t elsewhere;
    const char *root;          /* --root: paths printed relative to it; NULL or "" for none */
    kw_arena *arena;           /* scratch */
    const kw_map_links *links; /* map.html's links of code spans; NULL: none */
} kw_map_unres;

/* path relative to root when it lies under it (root "" or NULL: path);
 * "?" for NULL. */
const char *kw_map_unres_path(const char *root, const char *path);

/* By r's printer (Markdown or HTML) into r->out: a list per op with calls
 * listed (up to eight each, "and N more"), then a paragraph counting the
 * calls left out, by reason. Nothing when there is neither. */
void kw_map_unres_md(const kw_map_unres *u, kw_render *r);
/* TSV: `@unresolved OP FUNCTION AT CALLEE WHY NAMES` per call listed,
 * `@left-out COUNT REASON` per reason. */
void kw_map_unres_tsv(const kw_map_unres *u, kw_buf *b);
/* JSON: doc["unresolved"] (per op: op, file, line, calls[]) and
 * doc["unresolved_left_out"] ([{count, reason}]); *oom when out of memory. */
void kw_map_unres_json(const kw_map_unres *u, json_t *doc, bool *oom);

#endif

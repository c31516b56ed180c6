/* kw_yaml_share.h: the hooks of a sharing write (kw_yaml_emit_shared in
 * kw_yaml_emit.h), called by kw_yaml_emit.c's event functions when e->sh is
 * set. Pass 1 only hashes (nothing is written); pass 2 writes, putting an
 * anchor on the first occurrence of a shared node and an alias in place of
 * each later one (whose events are then dropped). Internal to sidecar/. */
#ifndef KW_YAML_SHARE_H
#define KW_YAML_SHARE_H

#include <stdbool.h>
#include <stddef.h>

#include "sidecar/kw_yaml_emit.h"

typedef struct kw_yaml_share kw_yaml_share;

kw_yaml_share *kw_yaml_share_new(void);
void kw_yaml_share_free(kw_yaml_share *sh);
/* After pass 1: decide which nodes are anchored and aliased, start pass 2.
 * false: out of memory. */
bool kw_yaml_share_plan(kw_yaml_share *sh);

/* A collection starts (map: a mapping; style: its yaml_*_style_t). true:
 * write it, with *anchor (NULL or a name valid until the next call). */
bool kw_yaml_share_start(kw_yaml_emitter *e, bool map, int style, const char **anchor);
/* A collection ends. true: write its end event. */
bool kw_yaml_share_end(kw_yaml_emitter *e);
/* After kw_yaml_share_start or kw_yaml_share_scalar refused a node in pass
 * 2: the anchor name the writer writes an alias of instead, NULL when the
 * node is simply left out (pass 1, or inside an aliased collection). */
const char *kw_yaml_share_alias(kw_yaml_share *sh);
/* A scalar. true: write it, with *anchor as above. */
bool kw_yaml_share_scalar(kw_yaml_emitter *e, const char *s, size_t n, int style,
                          const char **anchor);

#endif

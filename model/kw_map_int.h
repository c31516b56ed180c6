/* kw_map_int.h: internal to model/: the step of kw_map_build that
 * kw_map_lines.c holds. */
#ifndef KW_MAP_INT_H
#define KW_MAP_INT_H

#include "model/kw_map.h"

/* The map's lines, the ops they show and the ops bound to no entry point,
 * from its sorted rows. False when out of memory. */
bool kw_map_lines_build(kw_map *m);

#endif

/* kw_pick_write.h: the candidates a `kwalk render KERNEL` name matched,
 * listed after its error line: the kernels it names (with how many of
 * their instantiations match), or one symbol's translation units. */
#ifndef KW_PICK_WRITE_H
#define KW_PICK_WRITE_H

#include <stdio.h>

#include "model/kw_kfamily.h"
#include "model/kw_model.h"

/* A line per kernel of h (the first 50): its name, kind and matches. */
void kw_pick_write_kernels(FILE *f, const kw_model *m, const kw_kfams *fams, const kw_kfam_hits *h);
/* A line per instantiation of h: name, symbol and its unit. */
void kw_pick_write_units(FILE *f, const kw_model *m, const kw_kfam_hits *h);

#endif

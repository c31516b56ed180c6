/* kw_isa_notes.h: one-line explanations of instructions and DPP controls
 * (annotations/isa/notes.txt), matched by mnemonic, mnemonic prefix ("v_mfma_*")
 * or DPP control ("dpp:row_shr:*"). */
#ifndef KW_ISA_NOTES_H
#define KW_ISA_NOTES_H

#include "model/kw_annot.h"
#include "common/kw_symmap.h"

typedef struct kw_isa_note {
    const char *pattern;
    const char *text;
} kw_isa_note;

typedef struct kw_isa_notes {
    kw_arena arena;
    KW_ARRAY(kw_isa_note) v; /* first match wins */
    /* for kw_isa_note_for, called per instruction of every listing: the
     * first exact pattern of each text, and the prefix patterns in order */
    kw_symmap exact;
    KW_ARRAY(size_t) prefix;
} kw_isa_notes;

kw_status kw_isa_notes_load(kw_isa_notes *n, const kw_annot *a, kw_err *err);
void kw_isa_notes_free(kw_isa_notes *n);
/* The note for a mnemonic ("v_rsq_f32") or a DPP control given as
 * "dpp:row_shr:1"; NULL when none matches. */
const char *kw_isa_note_for(const kw_isa_notes *n, const char *what);

#endif

/* kw_dtype.h: the element types a dispatch condition compares (a tensor's
 * dtype against AITER_DTYPE_bf16, at::ScalarType::BFloat16, torch.bfloat16,
 * ...) and the one table of their spellings, so that --shape dtype=bf16 can
 * decide `out.dtype() == AITER_DTYPE_bf16`. Each spelling names exactly one
 * type; a spelling not in the table names none (the condition stays "not
 * evaluated"), never a guess. docs/render.md lists the table. */
#ifndef KW_DTYPE_H
#define KW_DTYPE_H

#include <stddef.h>

/* The canonical name of the type spelled s[0..n) ("bf16", "fp16", "fp32",
 * "fp8", "fp8_e4m3fnuz", ...), or NULL when the table has no such spelling. */
const char *kw_dtype_canon(const char *s, size_t n);

typedef enum kw_dtype_eq {
    KW_DTYPE_DIFFER = 0,
    KW_DTYPE_SAME = 1,
    KW_DTYPE_UNDECIDED = 2, /* aiter's `fp8` against one fp8 format: it is
                             * e4m3fnuz or e4m3fn by the GPU it runs on */
} kw_dtype_eq;

/* Whether two canonical names are one type. */
kw_dtype_eq kw_dtype_same(const char *a, const char *b);

/* The table itself, row by row (the site's kernel pages carry it, so that
 * their script reads the same spellings): the number of rows, a row's
 * canonical name and its spellings (NULL-terminated); NULL past the end. */
size_t kw_dtype_count(void);
const char *kw_dtype_name(size_t row);
const char *const *kw_dtype_spellings(size_t row);

#endif

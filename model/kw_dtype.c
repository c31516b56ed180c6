/* kw_dtype.c: the spellings of the element types dispatch conditions
 * compare (kw_dtype.h): what a user writes (bf16, bfloat16), aiter's
 * AiterDtype enumerators, PyTorch's C++ and Python names, HIP's and the
 * compiler's type names. One row per type; docs/render.md repeats it. */
#include "model/kw_dtype.h"

#include <string.h>

typedef struct kw_dtype_row {
    const char *canon;
    const char *const *spell; /* NULL-terminated */
} kw_dtype_row;

#define KW_SCALAR(x) "at::ScalarType::" x, "c10::ScalarType::" x, "ScalarType::" x
#define KW_K(x) "at::k" x, "torch::k" x, "c10::k" x

static const char *const kw_bf16[] = {
    "bf16", "bfloat16", "BFloat16", "__hip_bfloat16", "hip_bfloat16", "__bf16",
    "AITER_DTYPE_bf16", KW_SCALAR("BFloat16"), KW_K("BFloat16"), "torch.bfloat16", NULL};
static const char *const kw_fp16[] = {
    "fp16", "half", "Half", "float16", "__half", "_Float16", "AITER_DTYPE_fp16",
    KW_SCALAR("Half"), KW_K("Half"), "torch.float16", "torch.half", NULL};
static const char *const kw_fp32[] = {
    "fp32", "float", "Float", "float32", "AITER_DTYPE_fp32", KW_SCALAR("Float"), KW_K("Float"),
    "torch.float32", "torch.float", NULL};
/* aiter's fp8: e4m3fnuz on gfx94x, e4m3fn on gfx950 (kw_dtype_same) */
static const char *const kw_fp8[] = {"fp8", "AITER_DTYPE_fp8", NULL};
static const char *const kw_e4m3fnuz[] = {
    "fp8_e4m3fnuz", "float8_e4m3fnuz", "Float8_e4m3fnuz", KW_SCALAR("Float8_e4m3fnuz"),
    KW_K("Float8_e4m3fnuz"), "torch.float8_e4m3fnuz", "__hip_fp8_e4m3_fnuz", NULL};
static const char *const kw_e4m3fn[] = {
    "fp8_e4m3fn", "float8_e4m3fn", "Float8_e4m3fn", KW_SCALAR("Float8_e4m3fn"),
    KW_K("Float8_e4m3fn"), "torch.float8_e4m3fn", "__hip_fp8_e4m3", NULL};
static const char *const kw_e5m2fnuz[] = {
    "fp8_e5m2fnuz", "float8_e5m2fnuz", "Float8_e5m2fnuz", KW_SCALAR("Float8_e5m2fnuz"),
    KW_K("Float8_e5m2fnuz"), "torch.float8_e5m2fnuz", "__hip_fp8_e5m2_fnuz", NULL};
static const char *const kw_e5m2[] = {
    "fp8_e5m2", "float8_e5m2", "Float8_e5m2", KW_SCALAR("Float8_e5m2"), KW_K("Float8_e5m2"),
    "torch.float8_e5m2", "__hip_fp8_e5m2", NULL};
static const char *const kw_i8[] = {
    "i8", "int8", "int8_t", "AITER_DTYPE_i8", KW_SCALAR("Char"), KW_K("Char"), "torch.int8", NULL};
static const char *const kw_u8[] = {
    "u8", "uint8", "uint8_t", "AITER_DTYPE_u8", KW_SCALAR("Byte"), KW_K("Byte"), "torch.uint8",
    NULL};
static const char *const kw_i32[] = {
    "i32", "int32", "int32_t", "AITER_DTYPE_i32", KW_SCALAR("Int"), KW_K("Int"), "torch.int32",
    NULL};

static const kw_dtype_row kw_dtypes[] = {
    {"bf16", kw_bf16},           {"fp16", kw_fp16},         {"fp32", kw_fp32},
    {"fp8", kw_fp8},             {"fp8_e4m3fnuz", kw_e4m3fnuz}, {"fp8_e4m3fn", kw_e4m3fn},
    {"fp8_e5m2fnuz", kw_e5m2fnuz}, {"fp8_e5m2", kw_e5m2},     {"i8", kw_i8},
    {"u8", kw_u8},               {"i32", kw_i32},
};

const char *kw_dtype_canon(const char *s, size_t n) {
    for (size_t r = 0; r < sizeof kw_dtypes / sizeof kw_dtypes[0]; r++)
        for (const char *const *p = kw_dtypes[r].spell; *p; p++)
            if (strlen(*p) == n && !memcmp(*p, s, n))
                return kw_dtypes[r].canon;
    return NULL;
}

size_t kw_dtype_count(void) {
    return sizeof kw_dtypes / sizeof kw_dtypes[0];
}

const char *kw_dtype_name(size_t row) {
    return row < kw_dtype_count() ? kw_dtypes[row].canon : NULL;
}

const char *const *kw_dtype_spellings(size_t row) {
    return row < kw_dtype_count() ? kw_dtypes[row].spell : NULL;
}

static int kw_dtype_e4m3(const char *c) {
    return !strcmp(c, "fp8_e4m3fnuz") || !strcmp(c, "fp8_e4m3fn");
}

kw_dtype_eq kw_dtype_same(const char *a, const char *b) {
    if (!strcmp(a, b))
        return KW_DTYPE_SAME;
    if ((!strcmp(a, "fp8") && kw_dtype_e4m3(b)) || (!strcmp(b, "fp8") && kw_dtype_e4m3(a)))
        return KW_DTYPE_UNDECIDED;
    return KW_DTYPE_DIFFER;
}

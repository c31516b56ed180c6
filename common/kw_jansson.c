/* kw_jansson.c: loading JSON through jansson with kwalk's one-line errors,
 * and reading its integers, strings and scalars (kw_jansson.h). */
#include "common/kw_jansson.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

kw_status kw_jansson_load(const char *name, const char *text, size_t len, json_t **root,
                          kw_err *err) {
    if (len >= 3 && !memcmp(text, "\xEF\xBB\xBF", 3)) {
        text += 3;
        len -= 3;
    }
    json_error_t je;
    *root = json_loadb(text, len, JSON_DECODE_ANY, &je);
    if (*root)
        return KW_OK;
    char msg[JSON_ERROR_TEXT_LENGTH];
    snprintf(msg, sizeof msg, "%s", je.text);
    for (char *p = msg; *p; p++) /* the message quotes the input: keep it one line */
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            *p = '?';
    enum json_error_code code = json_error_code(&je);
    return kw_fail(err, "%s: line %d, column %d: %s%s", name, je.line, je.column, msg,
                   code == json_error_premature_end_of_input ? " (truncated?)"
                   : code == json_error_numeric_overflow     ? " (an integer beyond 64 bits)"
                                                             : "");
}

bool kw_jansson_int(const json_t *v, long long *out) {
    if (json_is_integer(v)) {
        *out = (long long)json_integer_value(v);
        return true;
    }
    if (json_is_real(v)) {
        double d = json_real_value(v);
        if (d == floor(d) && fabs(d) <= 9e15) {
            *out = (long long)d;
            return true;
        }
    }
    return false;
}

const char *kw_jansson_str(const json_t *v) {
    const char *s = json_string_value(v);
    return s && *s ? s : NULL;
}

/* The shortest %.Ng form of d that reads back as d, with ".0" added to an
 * integral value written without an exponent (as Python's repr writes it). */
static void kw_jansson_real(double d, char *buf, size_t n) {
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(buf, n, "%.*g", prec, d);
        if (strtod(buf, NULL) == d)
            break;
    }
    if (!strpbrk(buf, ".eninf") && strlen(buf) + 3 <= n)
        strcat(buf, ".0");
}

char *kw_jansson_scalar(kw_arena *arena, const json_t *v) {
    char buf[40];
    if (!v)
        return NULL;
    switch (json_typeof(v)) {
    case JSON_STRING:
        return kw_arena_strndup(arena, json_string_value(v), json_string_length(v));
    case JSON_TRUE:
        return kw_arena_strdup(arena, "true");
    case JSON_FALSE:
        return kw_arena_strdup(arena, "false");
    case JSON_INTEGER:
        return kw_arena_printf(arena, "%lld", (long long)json_integer_value(v));
    case JSON_REAL:
        kw_jansson_real(json_real_value(v), buf, sizeof buf);
        return kw_arena_strdup(arena, buf);
    default:
        return NULL;
    }
}

/* The length of the valid UTF-8 sequence at p (1 to 4 bytes), 0 if none. */
static size_t kw_jansson_utf8(const unsigned char *p) {
    if (p[0] < 0x80)
        return 1;
    size_t n = p[0] >= 0xF0 && p[0] <= 0xF4 ? 4 : p[0] >= 0xE0 ? 3 : p[0] >= 0xC2 ? 2 : 0;
    if (!n || (p[0] >= 0xF0 && n != 4))
        return 0;
    for (size_t i = 1; i < n; i++)
        if ((p[i] & 0xC0) != 0x80)
            return 0;
    unsigned cp = p[0] & (0x7F >> n);
    for (size_t i = 1; i < n; i++)
        cp = cp << 6 | (p[i] & 0x3F);
    bool overlong = (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000);
    return overlong || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF) ? 0 : n;
}

json_t *kw_jansson_text(const char *s) {
    if (!s)
        return json_null();
    json_t *v = json_string(s);
    if (v)
        return v;
    size_t len = strlen(s), o = 0;
    char *fix = malloc(3 * len + 1);
    if (!fix)
        return NULL;
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        size_t n = kw_jansson_utf8(p);
        if (n) {
            memcpy(fix + o, p, n);
            o += n;
            p += n;
        } else {
            memcpy(fix + o, "\xEF\xBF\xBD", 3);
            o += 3;
            p++;
        }
    }
    fix[o] = '\0';
    v = json_string(fix);
    free(fix);
    return v;
}

void kw_jansson_set(json_t *obj, const char *key, json_t *value, bool *oom) {
    if (!value || json_object_set_new(obj, key, value) != 0)
        *oom = true;
}

void kw_jansson_push(json_t *arr, json_t *value, bool *oom) {
    if (!value || json_array_append_new(arr, value) != 0)
        *oom = true;
}

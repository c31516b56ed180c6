/* kw_err.c: building error messages. */
#include "common/kw_err.h"

#include <stdarg.h>
#include <stdio.h>

kw_status kw_fail(kw_err *err, const char *fmt, ...) {
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
        va_end(ap);
    }
    return KW_ERR;
}

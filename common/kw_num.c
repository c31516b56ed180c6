/* kw_num.c: the number formatter (kw_num.h). */
#include "common/kw_num.h"

#include <math.h>
#include <stdio.h>

void kw_num_bytes(kw_buf *o, double bytes) {
    static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    double x = bytes;
    while (fabs(x) >= 1024 && u < 4) {
        x /= 1024;
        u++;
    }
    if (u == 0) {
        kw_buf_printf(o, "%.0f B", bytes);
    } else if (fabs(x) < 999.5) {
        kw_buf_printf(o, "%.3g %s", x, unit[u]);
    } else if (fabs(round(x)) < 1024 || u == 4) { /* "%.3g" would write "1e+03" */
        kw_buf_printf(o, "%.0f %s", x, unit[u]);
    } else { /* rounds to 1024 of this unit: one of the next */
        kw_buf_printf(o, "%d %s", x < 0 ? -1 : 1, unit[u + 1]);
    }
}

void kw_num_value_to(char *buf, size_t n, double v) {
    if (v == trunc(v) && fabs(v) < 1e18)
        snprintf(buf, n, "%.0f", v);
    else
        snprintf(buf, n, "%.4g", v);
}

void kw_num_value(kw_buf *o, double v) {
    char b[32];
    kw_num_value_to(b, sizeof b, v);
    kw_buf_puts(o, b);
}

void kw_num_us(kw_buf *o, double ns) {
    kw_buf_printf(o, "%.3f us", ns / 1000.0);
}

void kw_num_f1(kw_buf *o, double v) {
    if (v >= 0 && v < 1e15 && v == (double)(long long)v && !(v == 0 && signbit(v))) {
        kw_buf_int(o, (long long)v);
        kw_buf_puts(o, ".0");
    } else {
        kw_buf_printf(o, "%.1f", v);
    }
}

/* kw_num.h: the one formatter of the numbers kwalk prints, one function per
 * kind of number: byte counts with a binary unit, values in prose (shape
 * bindings, launch geometry, work), durations, and the one-decimal
 * coordinates of the site's charts. Integers in decimal are kw_buf_int /
 * kw_dec (kw_buf.h). Every output is what a printf conversion named below
 * writes, so the tests compare against printf itself. */
#ifndef KW_NUM_H
#define KW_NUM_H

#include <stddef.h>

#include "common/kw_buf.h"

/* Bytes for prose: exact below 1 KiB ("768 B", printf "%.0f B"), else three
 * significant digits of KiB, MiB, GiB or TiB ("%.3g KiB": 1024 B is "1 KiB",
 * 1536 B "1.5 KiB", never "1.54 KB"), and from 999.5 of a unit on, the whole
 * number ("1000 KiB", where "%.3g" writes "1e+03"), or 1 of the next unit
 * when that rounds to 1024 (1048575 B is "1 MiB"). */
void kw_num_bytes(kw_buf *o, double bytes);

/* A value in prose: a whole number in full ("%.0f": "4096", below 1e18),
 * anything else to four significant digits ("%.4g": "2.5", "0.3333"). */
void kw_num_value(kw_buf *o, double v);
/* The same into buf[0, n), NUL-terminated. */
void kw_num_value_to(char *buf, size_t n, double v);

/* A duration given in nanoseconds, in microseconds to three decimals
 * ("%.3f us": 1500 ns is "1.500 us"). */
void kw_num_us(kw_buf *o, double ns);

/* One decimal ("%.1f"): the coordinates of the site's charts; a whole
 * number (most of them) is written without printf. */
void kw_num_f1(kw_buf *o, double v);

#endif

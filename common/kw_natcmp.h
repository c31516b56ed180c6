/* kw_natcmp.h: "natural" string order for names people read: runs of digits
 * compare by their value, so rk<2> sorts before rk<10>. */
#ifndef KW_NATCMP_H
#define KW_NATCMP_H

/* <0, 0, >0 as strcmp. Digit runs compare by value (leading zeros ignored;
 * equal values: the shorter run first); other bytes compare as unsigned
 * chars. A total order: 0 only for equal strings. */
int kw_natcmp(const char *a, const char *b);

#endif

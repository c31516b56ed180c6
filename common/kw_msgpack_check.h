/* kw_msgpack_check.h: a bounds check of msgpack bytes before msgpack-c reads
 * them. msgpack-c allocates for the element count a container header claims;
 * checking first that every count fits in the bytes left keeps a damaged or
 * hostile input from making it allocate for elements that are not there. */
#ifndef KW_MSGPACK_CHECK_H
#define KW_MSGPACK_CHECK_H

#include <stdbool.h>
#include <stddef.h>

/* Skip one msgpack value at d[*pos] (n bytes in all), nested at most
 * max_depth containers deep: true with *pos past it when it is well-formed
 * and fits, false otherwise. */
bool kw_msgpack_skip(const unsigned char *d, size_t n, size_t *pos, int max_depth);

#endif

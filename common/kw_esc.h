/* kw_esc.h: text from the inputs (names, paths, source lines, doc comments)
 * made safe for an HTML page: the one HTML escaper of the project (render/'s
 * Markdown writer and HTML site use it; docs/security.md says where each
 * output context is escaped), and the SHA-256 digest the site's
 * Content-Security-Policy names its inline script by. */
#ifndef KW_ESC_H
#define KW_ESC_H

#include <stdbool.h>
#include <stddef.h>

#include "common/kw_buf.h"

/* s[0, n) as HTML text or as a double-quoted attribute's value: & < > "
 * escaped (as libcmark-gfm escapes text), and ' too when apos (a value that
 * may also go into a single-quoted attribute). Nothing else changes: the
 * result never holds a tag, an entity it did not escape or a quote that
 * ends the attribute. */
void kw_esc_html(kw_buf *b, const char *s, size_t n, bool apos);

/* The SHA-256 digest (FIPS 180-4) of data[0, n). */
void kw_sha256(const void *data, size_t n, unsigned char out[32]);
/* The digest as CSP writes it: "sha256-" and its base64 (RFC 4648), NUL
 * terminated (51 bytes with the NUL). */
void kw_sha256_csp(const void *data, size_t n, char out[52]);

#endif

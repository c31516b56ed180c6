/* kw_err.h: errors as values. Functions that can fail return KW_OK or
 * KW_ERR and fill a kw_err with a one-line message for the user. */
#ifndef KW_ERR_H
#define KW_ERR_H

typedef enum kw_status { KW_OK = 0, KW_ERR = 1 } kw_status;

typedef struct kw_err {
    char msg[512];
} kw_err;

/* Fill err (if non-NULL) with a formatted message and return KW_ERR. */
kw_status kw_fail(kw_err *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif

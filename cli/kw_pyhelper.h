/* kw_pyhelper.h: running python/kwalk_pyscan.py (`chains --format tsv`) for
 * `kwalk map` and `kwalk render` over their --python-root directories, with
 * $KWALK_PYTHON or the python3 on PATH, and reading its model-entry table
 * (docs/python-chains.md). */
#ifndef KW_PYHELPER_H
#define KW_PYHELPER_H

#include <stdbool.h>
#include <stddef.h>

#include "common/kw_err.h"
#include "model/kw_python_chains.h"

typedef enum kw_pyhelper_status {
    KW_PYHELPER_OK,    /* chains read */
    KW_PYHELPER_NONE,  /* no python3 or no helper: why in err, not an error */
    KW_PYHELPER_FAILED /* the helper failed or wrote a damaged table: err */
} kw_pyhelper_status;

/* Run the helper over roots[0..n) and read its table into out (initialized);
 * with from (a package name, e.g. "atom"), only chains that start in it;
 * decorators[0..ndec): the decorators of the entry-point rules; package: the
 * roots are package folders, their modules named by the packages they sit
 * in (`--package-root`) rather than PYTHONPATH entries (`--root`).
 * It has $KWALK_PYTHON_TIMEOUT seconds (a positive whole number; default
 * 300) to write its table and exit; past that it and every process it started
 * (its process group) are killed and the result is KW_PYHELPER_FAILED. */
kw_pyhelper_status kw_pyhelper_chains(const char *const *roots, size_t n, const char *from,
                                      const char *const *decorators, size_t ndec, bool package,
                                      kw_py_chains *out, kw_err *err);

#endif

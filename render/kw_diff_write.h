/* kw_diff_write.h: `kwalk diff`'s rows (model/kw_diff.h) as a Markdown table
 * a CI job can post on a pull request, or as one JSON document
 * (docs/diff.md). */
#ifndef KW_DIFF_WRITE_H
#define KW_DIFF_WRITE_H

#include <stdbool.h>

#include "common/kw_buf.h"
#include "common/kw_jansson.h"
#include "model/kw_diff.h"

/* A summary line and one table row per change, appended to out; nothing
 * when there are no rows. old_name, new_name: the inputs as given. */
void kw_diff_write_md(const kw_diff *d, const char *old_name, const char *new_name, kw_buf *out);
/* {"kwalk_diff": 1, "old", "new", "compared", "failed": [kinds], "changes": [...]};
 * failed[k]: --fail-on named kind k and it occurred (NULL: none). *oom set
 * when out of memory. */
json_t *kw_diff_json(const kw_diff *d, const char *old_name, const char *new_name,
                     const bool *failed, bool *oom);

#endif

/* kw_pysrc.h: extents of Python source a Triton page quotes, found in the
 * source file as read (kw_src.h): a function from its `def` line to the end
 * of its body, and a statement (a kernel[grid](...) call) from its first line
 * to the line that closes its brackets. Brackets inside strings and comments
 * do not count; triple-quoted strings may span lines. */
#ifndef KW_PYSRC_H
#define KW_PYSRC_H

#include "model/kw_src.h"

/* The last line of the body of the function whose `def` keyword starts line
 * def_line (after indentation): the last line that is not blank or a comment
 * before the first code line indented no deeper than the def. 0 when line
 * def_line is not a `def` (*why says so). */
int kw_py_def_end(const kw_src_file *f, int def_line, const char **why);

/* The last line of the statement that starts on line: the first line, from
 * it on, where every bracket opened since is closed and the line does not
 * end with a backslash. 0 when the file ends first. */
int kw_py_stmt_end(const kw_src_file *f, int line);

#endif

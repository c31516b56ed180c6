"""kwmd.py: Markdown text as a reader sees it, for tests that look for an
input string (a temporary path, a file name) in kwalk's Markdown: kwalk
escapes such strings where they could make Markdown (an '_' that could open
emphasis), so a path under a random temporary folder reads back only after
the escapes are removed.
"""
import re

# CommonMark: a backslash before any ASCII punctuation character is an escape.
_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")


def md_plain(s):
    """s with its Markdown backslash escapes removed."""
    return _ESCAPE.sub(r"\1", s)

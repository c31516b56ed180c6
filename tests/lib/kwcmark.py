"""kwcmark.py: libcmark-gfm's HTML of a Markdown text, through ctypes: GFM
tables on, raw HTML kept (CMARK_OPT_UNSAFE), as a permissive viewer shows a
page. The tests' reference for what kwalk's HTML printer writes: the library
is Debian's (libcmark-gfm-dev, libcmark-gfm-extensions-dev in
scripts/install-deps.sh), not kwalk's."""
import ctypes

CMARK_OPT_UNSAFE = 1 << 17
_lib = None


def _load():
    global _lib
    if _lib is None:
        core = ctypes.CDLL("libcmark-gfm.so")
        ext = ctypes.CDLL("libcmark-gfm-extensions.so")
        ext.cmark_gfm_core_extensions_ensure_registered()
        core.cmark_find_syntax_extension.restype = ctypes.c_void_p
        core.cmark_find_syntax_extension.argtypes = [ctypes.c_char_p]
        core.cmark_parser_new.restype = ctypes.c_void_p
        core.cmark_parser_new.argtypes = [ctypes.c_int]
        core.cmark_parser_attach_syntax_extension.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
        core.cmark_parser_feed.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t]
        core.cmark_parser_finish.restype = ctypes.c_void_p
        core.cmark_parser_finish.argtypes = [ctypes.c_void_p]
        core.cmark_parser_get_syntax_extensions.restype = ctypes.c_void_p
        core.cmark_parser_get_syntax_extensions.argtypes = [ctypes.c_void_p]
        core.cmark_render_html.restype = ctypes.c_void_p
        core.cmark_render_html.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p]
        core.cmark_node_free.argtypes = [ctypes.c_void_p]
        core.cmark_parser_free.argtypes = [ctypes.c_void_p]
        _lib = core
    return _lib


def html(md, tables=True):
    """The HTML of md (str), with GFM's table extension when tables."""
    lib = _load()
    p = lib.cmark_parser_new(CMARK_OPT_UNSAFE)
    if tables:
        lib.cmark_parser_attach_syntax_extension(p, lib.cmark_find_syntax_extension(b"table"))
    b = md.encode()
    lib.cmark_parser_feed(p, b, len(b))
    doc = lib.cmark_parser_finish(p)
    out = lib.cmark_render_html(doc, CMARK_OPT_UNSAFE, lib.cmark_parser_get_syntax_extensions(p))
    text = ctypes.string_at(out).decode()
    ctypes.CDLL(None).free(ctypes.c_void_p(out))
    lib.cmark_node_free(doc)
    lib.cmark_parser_free(p)
    return text

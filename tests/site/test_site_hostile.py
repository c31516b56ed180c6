#!/usr/bin/env python3
"""test_site_hostile.py (site.hostile): every string kwalk takes from the
compiled code is hostile HTML, and the site and the Markdown pages show each
one as text (issue 41; docs/security.md).

Inputs, all written here or compiled here:
  - HIP: src/kw_hostile.hip copied to a file named
    kwh<img src=y onerror=top.kwHit(4)>.hip and compiled with the plugin and
    device line tables: a doc comment with <script>, a javascript: link and an
    <img onerror>; kernels whose printed names hold tags (kwh_tmpl<script>,
    kwh_tmpl<img>, a string template argument); parameters named img and
    script; a source line holding </script><script>; a dispatch condition, a
    macro and a launch expression holding HTML strings; an ASM launch whose
    kernel name and code-object path are HTML;
  - Triton: a hook sidecar (kwalk_triton's format) of a @triton.jit kernel in
    a Python file written here whose name, source lines, constexpr value and
    call-chain function are HTML;
  - a rocprofv3 CSV trace whose kernel names are the demangled name
    (llvm-nm + llvm-cxxfilt of the object: void kwh_tmpl<script>(...)) and
    an HTML string.
Every payload calls top.kwHit(N).

Checks:
  - Python's html.parser over every file of `kwalk site`, and over
    libcmark-gfm's HTML (ctypes, raw HTML allowed,
    as a permissive Markdown viewer shows them) of every page of `kwalk render
    --all`: no element a payload makes (script other than the site's own,
    img, iframe, object, embed, form, base, meta other than the site's), no
    on* attribute, no javascript:/vbscript:/data: URL; and each payload's text
    (top.kwHit(N), the trace's demangled name) is in the text of some page;
  - every site page has a Content-Security-Policy without 'unsafe-inline'
    whose script hash is the SHA-256 (hashlib) of the page's inline script;
  - headless chromium, every page of both sites framed at once in a harness
    page that defines kwHit: the same DOM checks on the live DOM, no payload
    ran (kwHit never called, no script error in a page), each page's own
    scripts ran under its policy (data-kw-loaded, the ISA listing written by
    the page script), and the payloads' text is in the pages' text.
Exit 77 only when chromium cannot start."""
import argparse
import base64
import ctypes
import hashlib
import html
import html.parser
import json
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import kwbrowser  # noqa: E402
from kwcheck import Checker  # noqa: E402
from kwrun import run  # noqa: E402

HIP_NAME = "kwh<img src=y onerror=top.kwHit(4)>.hip"
PY_NAME = "kwh_triton<img src=y onerror=top.kwHit(12)>.py"
# payloads whose text a page must show, by where they come from (2 is a
# javascript: URL, which must not survive as a URL: it is not text; 5, a line
# of the kernel's body, is shown by the source <-> ISA view alone, which the
# page script writes from its data: checked in chromium)
HIP_TEXT = {1: "doc comment <script>", 3: "doc comment <img onerror>", 4: "HIP file name",
            5: "kernel source line", 6: "macro text", 7: "dispatch condition",
            8: "launch expression",
            9: "string template argument", 10: "ASM code-object path", 11: "ASM kernel name"}
TRITON_TEXT = {12: "Python file name", 13: "Triton constexpr value", 14: "Python source line",
               15: "Python source line (a string)", 16: "Python call-chain function"}
DANGEROUS_TAGS = {"img", "iframe", "frame", "object", "embed", "form", "base", "audio", "video",
                  "source", "style", "math", "template", "svg-script"}
URL_ATTRS = {"href", "src", "action", "formaction", "xlink:href", "data", "poster", "srcdoc",
             "background"}

PY_SOURCE = '''# kwalk site.hostile: a Triton kernel whose source lines are hostile HTML.
import triton
import triton.language as tl


@triton.jit
def kwh_triton(x_ptr, MODE: tl.constexpr):  # KWH:triton_def
    # <script>top.kwHit(14)</script>
    tl.store(x_ptr, tl.load(x_ptr) + len("<img src=x onerror=top.kwHit(15)>"))


def kwh_op(x):
    kwh_triton[(1,)](x, MODE="<img src=x onerror=top.kwHit(13)>")  # KWH:triton_launch
'''


def marker_line(text, marker):
    for i, line in enumerate(text.splitlines(), 1):
        if marker in line:
            return i
    raise SystemExit("FAIL: marker %s not found" % marker)


def yq(s):
    """s as a YAML double-quoted scalar (JSON's escapes are YAML's)."""
    return json.dumps(s)


def triton_sidecar(py, side):
    """A hook sidecar of kwh_triton in py (the format of
    tests/corpus/triton/sidecars), its constexpr and call chain hostile."""
    src = open(py).read()
    d, l = marker_line(src, "KWH:triton_def"), marker_line(src, "KWH:triton_launch")
    h = hashlib.sha256(b"kwh_triton").hexdigest()
    sym = "kwh_triton@" + h
    loc = lambda line, col: "{file: %s, line: %d, column: %d}" % (yq(py), line, col)
    text = """kwalk_schema: 1
producer: {name: kwalk_triton, version: "0.1.0"}
translation_unit: {source: %(py)s, offload_archs: [gfx942]}
kernels:
- symbol: %(sym)s
  name: kwh_triton
  language: triton
  location: %(def)s
  params:
  - {name: x_ptr, type: "*fp32"}
  - {name: MODE, type: constexpr}
  triton:
    hash: %(h)s
    triton_version: "3.6.0"
    backend: hip
    warp_size: 64
    options: [{name: num_warps, value: 4}]
    constexprs:
    - {name: MODE, value: %(val)s, from: hook}
    cache_hit: false
  archs:
    gfx942: {}
launches:
- kernel: %(sym)s
  kernel_name: kwh_triton
  kind: triton
  location: %(launch)s
  function: kwh_op
  config:
    grid: {expr: "(1,)", value: [1, 1, 1]}
  args:
  - {param: x_ptr, expr: x}
  - {param: MODE, expr: %(valexpr)s}
  call_chain:
  - {function: %(fn)s, location: %(launch)s}
entries: []
host_calls: []
...
""" % {"py": yq(py), "sym": yq(sym), "def": loc(d, 1), "h": yq(h),
       "val": yq("<img src=x onerror=top.kwHit(13)>"), "launch": loc(l, 5),
       "valexpr": yq('"<img src=x onerror=top.kwHit(13)>"'),
       "fn": yq("<img src=x onerror=top.kwHit(16)>")}
    with open(side, "w") as f:
        f.write(text)


class Scan(html.parser.HTMLParser):
    """The elements, attributes and text of an HTML document as a browser's
    parser would make them (Python's parser, a second opinion beside
    chromium's live DOM): what a payload could have made."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.bad, self.text, self.scripts, self.csp = [], [], [], []
        self._in_script = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag in DANGEROUS_TAGS:
            self.bad.append("<%s %r>" % (tag, attrs))
        if tag == "meta" and a.get("http-equiv", "").lower() == "content-security-policy":
            self.csp.append(a.get("content", ""))
        elif tag == "meta" and "http-equiv" in a:
            self.bad.append("<meta %r>" % attrs)
        for k, v in attrs:
            if k.startswith("on"):
                self.bad.append("<%s %s=%r>" % (tag, k, v))
            if k in URL_ATTRS and v is not None:
                u = re.sub(r"[\x00-\x20]", "", v).lower()
                if re.match(r"(javascript|vbscript|data):", u):
                    self.bad.append("<%s %s=%r>" % (tag, k, v))
        if tag == "script":
            self._in_script = [a, ""]

    def handle_endtag(self, tag):
        if tag == "script" and self._in_script is not None:
            self.scripts.append(tuple(self._in_script))
            self._in_script = None

    def handle_data(self, data):
        if self._in_script is not None:
            self._in_script[1] += data
        else:
            self.text.append(data)


def site_script_ok(attrs, body):
    """The site's own script elements: its four script files, the view's, a
    kernel page's and a Triton IR view's data blocks and the inline error
    collector."""
    if attrs.get("src") is not None:
        return attrs["src"] in ("kwalk-page.js", "kwalk-index.js", "kwalk-kernel.js",
                                "kwalk-ir.js") and \
            not body.strip()
    t = attrs.get("type")
    if t == "application/json":
        return attrs.get("id") in ("kw-data", "kw-kdata", "kw-ir-data")
    if t == "text/plain":
        return re.match(r"kw-isa-\d+$", attrs.get("id", "")) is not None
    return t is None and body.startswith("window.kwErrors=[];")


def scan_html(c, what, text, site_page):
    s = Scan()
    s.feed(text)
    s.close()
    c.check(not s.bad, "%s: injected markup: %s" % (what, s.bad[:4]))
    if site_page:
        bad = [(a, b[:80]) for a, b in s.scripts if not site_script_ok(a, b)]
        c.check(not bad, "%s: a script element that is not the site's: %r" % (what, bad[:3]))
        c.check(len(s.csp) == 1, "%s: %d Content-Security-Policy meta tags" % (what, len(s.csp)))
        if s.csp:
            pol = s.csp[0]
            c.check("'unsafe-inline'" not in pol and "'unsafe-eval'" not in pol,
                    "%s: the policy allows inline code: %s" % (what, pol))
            inline = [b for a, b in s.scripts if a.get("src") is None and a.get("type") is None]
            for b in inline:
                h = "sha256-" + base64.b64encode(hashlib.sha256(b.encode()).digest()).decode()
                c.check(("'%s'" % h) in pol, "%s: the inline script's hash %s is not in the "
                        "policy %s" % (what, h, pol))
            c.check(re.search(r"script-src [^;]*'self'", pol) is not None and "default-src 'none'" in pol,
                    "%s: the policy does not limit scripts to the site's: %s" % (what, pol))
    else:
        c.check(not s.scripts, "%s: script elements %r" % (what, s.scripts[:2]))
    return html.unescape("".join(s.text))


def cmark_html(md):
    """libcmark-gfm's HTML of a Markdown page, raw HTML allowed (as a
    permissive viewer shows it)."""
    lib = ctypes.CDLL("libcmark-gfm.so")  # libcmark-gfm-dev (scripts/install-deps.sh)
    lib.cmark_markdown_to_html.restype = ctypes.c_void_p
    lib.cmark_markdown_to_html.argtypes = [ctypes.c_char_p, ctypes.c_size_t, ctypes.c_int]
    b = md.encode()
    p = lib.cmark_markdown_to_html(b, len(b), 1 << 17)  # CMARK_OPT_UNSAFE
    out = ctypes.string_at(p).decode()
    ctypes.CDLL(None).free(ctypes.c_void_p(p))
    return out


HARNESS = """<!doctype html><meta charset="utf-8"><title>harness</title>
<script>
window.kwHits = [];
window.kwHit = function (n) { window.kwHits.push(n); };
var DANGER = %(danger)s, URLS = %(urls)s;
function siteScript(s) {
  var src = s.getAttribute('src'), t = s.getAttribute('type');
  if (src !== null) return src === 'kwalk-page.js' || src === 'kwalk-index.js' ||
    src === 'kwalk-kernel.js' || src === 'kwalk-ir.js';
  if (t === 'application/json') return s.id === 'kw-data' || s.id === 'kw-kdata' ||
    s.id === 'kw-ir-data';
  if (t === 'text/plain') return /^kw-isa-\\d+$/.test(s.id);
  return t === null && s.textContent.indexOf('window.kwErrors=[];') === 0;
}
function scan(d) {
  var bad = [];
  [].forEach.call(d.querySelectorAll('*'), function (e) {
    var tag = e.localName;
    if (DANGER.indexOf(tag) >= 0) bad.push(tag + ': ' + e.outerHTML.slice(0, 100));
    if (tag === 'script' && !siteScript(e)) bad.push('script: ' + e.outerHTML.slice(0, 100));
    [].forEach.call(e.attributes, function (a) {
      if (a.name.indexOf('on') === 0) bad.push(tag + ' ' + a.name + '=' + a.value);
      if (URLS.indexOf(a.name) >= 0 &&
          /^(javascript|vbscript|data):/.test(a.value.replace(/[\\x00-\\x20]/g, '').toLowerCase()))
        bad.push(tag + ' ' + a.name + '=' + a.value);
    });
  });
  return bad;
}
window.addEventListener('load', function () {
  var out = {hits: window.kwHits, title: document.title, frames: {}};
  [].forEach.call(document.querySelectorAll('iframe'), function (f) {
    var w = f.contentWindow, d = f.contentDocument;
    var lst = d ? d.querySelectorAll('.kw-listing-text code') : [];
    out.frames[f.getAttribute('src')] = {
      loaded: !!(d && d.body && d.body.getAttribute('data-kw-loaded') === '1'),
      errors: w && w.kwErrors ? w.kwErrors : null,
      title: d ? d.title : null,
      bad: d ? scan(d) : ['no document'],
      listings: [].map.call(lst, function (x) { return x.textContent.length; }),
      text: d && d.body ? d.body.textContent : ''};
  });
  var p = document.createElement('pre');
  p.id = 'harness';
  p.textContent = JSON.stringify(out);
  document.body.appendChild(p);
});
</script>
%(frames)s
"""


def chromium(a):
    return kwbrowser.chromium(a.chromium, "kwhostile-chromium-", log=True)


def framed(chrome, site, pages):
    frames = "".join('<iframe src="%s" width="900" height="300"></iframe>\n' % html.escape(u)
                     for u in pages)
    harness = os.path.join(site, "zz-harness.html")
    with open(harness, "w") as f:
        f.write(HARNESS % {"danger": json.dumps(sorted(DANGEROUS_TAGS)),
                           "urls": json.dumps(sorted(URL_ATTRS)), "frames": frames})
    p = subprocess.run(chrome + ["--allow-file-access-from-files", "--dump-dom",
                                 "file://" + harness], capture_output=True, text=True,
                       errors="replace", timeout=300)
    os.unlink(harness)
    m = re.search(r'<pre id="harness">(.*?)</pre>', p.stdout, re.S)
    return (json.loads(html.unescape(m.group(1))) if m else None), p.stderr


def want_text(c, what, texts, want):
    """Each payload's text is in some page's text (the fields were exercised)."""
    for n, where in sorted(want.items(), key=lambda kv: str(kv[0])):
        needle = "top.kwHit(%d)" % n if isinstance(n, int) else n
        c.check(any(needle in t for t in texts),
                "%s: the %s (%s) is nowhere in the pages' text" % (what, where, needle))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kwalk", required=True)
    ap.add_argument("--src", required=True, help="tests/site/src/kw_hostile.hip")
    ap.add_argument("--clangxx", required=True)
    ap.add_argument("--plugin", required=True)
    ap.add_argument("--llvm-bindir", required=True)
    ap.add_argument("--cflag", action="append", default=[], help="one flag of the corpus compile")
    ap.add_argument("--out", required=True)
    ap.add_argument("--chromium")
    a = ap.parse_args()
    c = Checker("site.hostile")
    shutil.rmtree(a.out, ignore_errors=True)
    srcdir, objdir = os.path.join(a.out, "src"), os.path.join(a.out, "obj")
    os.makedirs(srcdir)
    os.makedirs(objdir)
    hip = os.path.join(srcdir, HIP_NAME)
    shutil.copyfile(a.src, hip)
    obj = os.path.join(objdir, "kwh.o")
    env = dict(os.environ, KWALK_COMPRESS="none")
    for k in ("KWALK_OUT", "KWALK_FAULT"):
        env.pop(k, None)
    rc, out, err = run([a.clangxx] + a.cflag + ["-cuid=kwh", "-Xarch_device", "-gline-tables-only",
                                                "-fplugin=" + a.plugin, "-c", hip, "-o", obj],
                       env=env)
    if rc or not os.path.exists(obj + ".kwalk.yaml"):
        sys.exit("FAIL: compiling %s: exit %d %s" % (hip, rc, err[-2000:]))
    c.check("kwalk: warning" not in err, "the plugin warned: %s" % err[-500:])
    py = os.path.join(srcdir, PY_NAME)
    with open(py, "w") as f:
        f.write(PY_SOURCE)
    triton_sidecar(py, os.path.join(objdir, "kwh_triton.kwalk.yaml"))
    # the trace: kwh_tmpl<script>'s demangled name (llvm-nm + llvm-cxxfilt)
    _, nm, _ = run([os.path.join(a.llvm_bindir, "llvm-nm"), obj])
    syms = [l.split()[-1] for l in nm.splitlines() if l.split() and l.split()[-1].startswith("_Z8kwh_tmpl")]
    _, dem, _ = run([os.path.join(a.llvm_bindir, "llvm-cxxfilt")] + syms)
    demangled = [d for d in dem.splitlines() if "kwh_tmpl<script>" in d]
    if not c.check(len(demangled) == 1, "llvm-nm + llvm-cxxfilt: no single kwh_tmpl<script> in %r" % dem):
        c.finish()
    trace = os.path.join(a.out, "trace.csv")
    with open(trace, "w") as f:
        f.write("Kind,Kernel_Name,Start_Timestamp,End_Timestamp,Workgroup_Size_X,Workgroup_Size_Y,"
                "Workgroup_Size_Z,Grid_Size_X,Grid_Size_Y,Grid_Size_Z\n")
        for i, name in enumerate([demangled[0], demangled[0], "<img src=x onerror=top.kwHit(17)>"]):
            f.write('KERNEL_DISPATCH,"%s",%d,%d,256,1,1,65536,1,1\n'
                    % (name.replace('"', '""'), 1000 + 20000 * i, 11000 + 20000 * i))
    db = os.path.join(a.out, "kw.db")
    rc, _, err = run([a.kwalk, "index", objdir, "-o", db])
    if not c.check(rc == 0, "kwalk index: exit %d %s" % (rc, err)):
        c.finish()
    sites = {}
    for name, extra in (("site", []),):
        sites[name] = os.path.join(a.out, name)
        rc, _, err = run([a.kwalk, "site", "--db", db, "-o", sites[name], "--trace", trace,
                          "--gpu", "MI300X", "--root", srcdir] + extra)
        c.check(rc == 0, "kwalk site %s: exit %d %s" % (" ".join(extra), rc, err))
    mdout = os.path.join(a.out, "md")
    rc, _, err = run([a.kwalk, "render", "--all", "-o", mdout, "--db", db, "--trace", trace,
                      "--gpu", "MI300X", "--root", srcdir])
    c.check(rc == 0, "kwalk render --all: exit %d %s" % (rc, err))

    # the files as written: html.parser, and the Markdown through libcmark-gfm
    want = dict(HIP_TEXT)
    want.update(TRITON_TEXT)
    want[demangled[0]] = "trace's demangled kernel name"
    for name, site in sorted(sites.items()):
        texts = []
        for fn in sorted(os.listdir(site)):
            if fn.endswith(".html"):
                texts.append(scan_html(c, "%s/%s" % (name, fn),
                                       open(os.path.join(site, fn), encoding="utf-8").read(), True))
        want_text(c, name, texts, {k: v for k, v in want.items() if k != 5})
    texts = []
    for fn in sorted(os.listdir(mdout)) if os.path.isdir(mdout) else []:
        if fn.endswith(".md"):
            md = open(os.path.join(mdout, fn), encoding="utf-8").read()
            texts.append(scan_html(c, "md/%s (libcmark-gfm)" % fn, cmark_html(md), False))
    want_text(c, "render --all", texts, {k: v for k, v in want.items() if k != 5})

    # the live DOM in chromium
    chrome = chromium(a)
    for name, site in sorted(sites.items()):
        pages = sorted(f for f in os.listdir(site) if f.endswith(".html"))
        got, log = framed(chrome, site, pages)
        if not c.check(got is not None, "%s: the harness wrote no result (chromium: %s)"
                       % (name, log[-400:])):
            continue
        c.check(got["hits"] == [], "%s: injected code ran: kwHit(%r)" % (name, got["hits"]))
        c.check(got["title"] == "harness", "%s: the harness's title changed" % name)
        texts = []
        listings = 0
        for p in pages:
            r = got["frames"].get(p)
            if not c.check(r is not None, "%s/%s: not framed" % (name, p)):
                continue
            c.check(r["loaded"], "%s/%s: its scripts did not finish (no data-kw-loaded)" % (name, p))
            c.check(r["errors"] == [], "%s/%s: script errors %r" % (name, p, r["errors"]))
            c.check(not r["bad"], "%s/%s: injected markup in the DOM: %r" % (name, p, r["bad"][:4]))
            listings += sum(1 for n in r["listings"] if n > 0)
            texts.append(r["text"])
        # the page script wrote the ISA listings under the policy
        c.check(listings > 0, "%s: no ISA listing was written by the page script" % name)
        want_text(c, name + " (chromium)", texts, want)
        refused = [l for l in log.splitlines() if "Content Security Policy" in l]
        c.check(not refused, "%s: chromium refused the site's own content: %r" % (name, refused[:3]))
    c.finish()


if __name__ == "__main__":
    main()

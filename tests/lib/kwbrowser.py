"""kwbrowser.py: headless Chromium for the site tests that load pages in it.

  chromium(exe, prefix, log=False) -> the command line (without the URL):
      exe, or chromium / chromium-browser on PATH; a profile of its own
      (tempfile, named PREFIX...); with log, Chromium's console on stderr.
      Exits 77 (ctest SKIP) when there is none or it cannot render a page.
  profile(chrome) -> the profile folder of such a command line (to remove).
  framed(chrome, site, srcs) -> ({src: {loaded, errors, result}} or None,
      Chromium's stderr): the pages srcs (URLs relative to the folder site)
      loaded at once, each in an iframe of a harness page written into site
      (one start; --allow-file-access-from-files lets it read the frames):
      whether each finished loading (data-kw-loaded), its error list
      (window.kwErrors) and its test hook's #kw-test-result as JSON.
"""
import html
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile


def chromium(exe, prefix, log=False):
    exe = exe or shutil.which("chromium") or shutil.which("chromium-browser")
    if not exe:
        print("SKIP: chromium is not installed (Debian: apt-get install chromium)")
        sys.exit(77)
    prof = tempfile.mkdtemp(prefix=prefix)
    chrome = [exe, "--headless", "--disable-gpu", "--no-sandbox", "--no-first-run",
              "--disable-extensions", "--user-data-dir=" + prof]
    if log:
        chrome += ["--enable-logging=stderr", "--v=0"]
    try:
        p = subprocess.run(chrome + ["--dump-dom", "data:text/html,<p id=ok>ok</p>"],
                           capture_output=True, text=True, errors="replace", timeout=120)
        ok = 'id="ok"' in p.stdout
    except subprocess.TimeoutExpired:
        ok, p = False, None
    if not ok:
        print("SKIP: chromium cannot start: %s" % (p.stderr.strip().splitlines()[-1:] if p else "timeout"))
        sys.exit(77)
    return chrome


def profile(chrome):
    return next(a.split("=", 1)[1] for a in chrome if a.startswith("--user-data-dir="))


HARNESS = """<!doctype html><meta charset="utf-8"><title>harness</title>
<script>
window.addEventListener('load', function () {
  var out = {};
  [].forEach.call(document.querySelectorAll('iframe'), function (f) {
    var w = f.contentWindow, d = f.contentDocument;
    var r = d && d.getElementById('kw-test-result');
    out[f.getAttribute('src')] = {
      loaded: !!(d && d.body && d.body.getAttribute('data-kw-loaded') === '1'),
      errors: w && w.kwErrors ? w.kwErrors : null,
      result: r ? JSON.parse(r.textContent) : null};
  });
  var p = document.createElement('pre');
  p.id = 'harness';
  p.textContent = JSON.stringify(out);
  document.body.appendChild(p);
});
</script>
%s
"""


def framed(chrome, site, srcs):
    frames = "".join('<iframe src="%s" width="900" height="300"></iframe>\n' % html.escape(u)
                     for u in srcs)
    harness = os.path.join(site, "zz-harness.html")
    with open(harness, "w") as f:
        f.write(HARNESS % frames)
    try:
        p = subprocess.run(chrome + ["--allow-file-access-from-files", "--dump-dom",
                                     "file://" + harness], capture_output=True, text=True,
                           errors="replace", timeout=300)
        dom, err = p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        dom, err = "", "timeout"
    os.unlink(harness)
    m = re.search(r'<pre id="harness">(.*?)</pre>', dom, re.S)
    return (json.loads(html.unescape(m.group(1))) if m else None), err

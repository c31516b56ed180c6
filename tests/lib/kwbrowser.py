"""kwbrowser.py: headless Chromium for the site tests that load pages in it.

  chromium(exe, prefix, log=False) -> the command line (without the URL):
      exe, or chromium / chromium-browser on PATH; a profile of its own
      (tempfile, named PREFIX...); with log, Chromium's console on stderr.
      Exits 77 (ctest SKIP) when there is none or it cannot render a page.
  profile(chrome) -> the profile folder of such a command line (to remove).
"""
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

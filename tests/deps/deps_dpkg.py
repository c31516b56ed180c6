"""deps_dpkg.py: the Debian side of deps.closure. Which installed package owns
a file (dpkg -S, trying the /lib <-> /usr/lib twin of a merged-/usr path too),
which packages scripts/install-deps.sh lists (its PACKAGES array), and which
packages a fresh machine gets from that list: the listed ones, the Essential
ones, and everything apt pulls in with them through Depends and Pre-Depends
(Recommends are not followed: install-deps.sh passes --no-install-recommends).
"""
import os
import re
import subprocess

# Merged /usr: /bin, /sbin, /lib* are links to /usr/...; dpkg records a file
# under the path its package shipped it at, which may be either one.
_MERGED = ("/bin/", "/sbin/", "/lib/", "/lib32/", "/lib64/", "/libx32/")


def usr_twin(path):
    """The other spelling of a merged-/usr path, or None."""
    for d in _MERGED:
        if path.startswith("/usr" + d):
            return path[len("/usr"):]
        if path.startswith(d):
            return "/usr" + path
    return None


def listed_packages(install_deps):
    """The package names of install-deps.sh's PACKAGES=( ... ) array."""
    with open(install_deps, encoding="utf-8") as f:
        text = f.read()
    m = re.search(r"^PACKAGES=\((.*?)^\)", text, re.S | re.M)
    if not m:
        raise ValueError("%s: no PACKAGES=( ... ) array" % install_deps)
    names = []
    for line in m.group(1).splitlines():
        names += line.split("#", 1)[0].split()
    if not names:
        raise ValueError("%s: the PACKAGES array is empty" % install_deps)
    return names


def _strip_name(token):
    """'libc6:amd64 (>= 2.34)' -> 'libc6'."""
    return token.strip().split(" ", 1)[0].split(":", 1)[0]


class Installed:
    """Every installed package: its Depends, Pre-Depends, Provides and
    whether it is Essential (one dpkg-query call)."""

    def __init__(self):
        fmt = ("${Package}\t${db:Status-Abbrev}\t${Essential}\t${Priority}\t${Pre-Depends}\t"
               "${Depends}\t${Provides}\n")
        out = subprocess.run(["dpkg-query", "-W", "-f", fmt], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, check=True).stdout
        self.deps = {}
        self.essential = set()
        self.providers = {}
        for line in out.splitlines():
            fields = (line.split("\t") + [""] * 7)[:7]
            name, status, essential, prio, predeps, deps, provides = fields
            if not status.startswith("ii"):
                continue
            groups = []
            for field in (predeps, deps):
                for group in filter(None, (g.strip() for g in field.split(","))):
                    groups.append([_strip_name(a) for a in group.split("|")])
            self.deps[name] = groups
            # on every Debian system: debootstrap's minimal base is the
            # Essential and the Priority: required packages
            if essential == "yes" or prio == "required":
                self.essential.add(name)
            for p in filter(None, (p.strip() for p in provides.split(","))):
                self.providers.setdefault(_strip_name(p), set()).add(name)

    def closure(self, roots):
        """Package name -> the root it came in with (itself for a root)."""
        via = {}
        todo = [(r, r) for r in roots]
        while todo:
            name, root = todo.pop()
            if name in via:
                continue
            via[name] = root
            for group in self.deps.get(name, []):
                # apt takes the first alternative; a virtual one is satisfied by
                # whichever installed package provides it.
                first = group[0]
                if first in self.deps:
                    todo.append((first, root))
                for prov in sorted(self.providers.get(first, ())):
                    todo.append((prov, root))
        return via


def owners(paths):
    """path -> [package, ...] for each path some installed package ships
    (under that spelling or its merged-/usr twin); unowned paths are absent."""
    asked = {}
    for p in paths:
        asked.setdefault(p, set()).add(p)
        twin = usr_twin(p)
        if twin:
            asked.setdefault(twin, set()).add(p)
    found = {}
    names = sorted(asked)
    for i in range(0, len(names), 500):
        out = subprocess.run(["dpkg", "-S"] + names[i:i + 500], stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, text=True).stdout
        for line in out.splitlines():
            if line.startswith("diversion by") or ": " not in line:
                continue
            pkgs, path = line.split(": ", 1)
            for orig in asked.get(path, ()):  # else a pattern match on another file
                for pkg in pkgs.split(","):
                    found.setdefault(orig, set()).add(_strip_name(pkg))
    return {p: sorted(s) for p, s in found.items()}


def real(path):
    return os.path.realpath(path)

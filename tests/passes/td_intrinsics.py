"""td_intrinsics.py: reads IntrinsicsAMDGPU.td (the one of the LLVM under
test) without llvm-tblgen: every `def int_amdgcn_*` written as a def (not
through a multiclass), its result and operand types (class templates
resolved, default template arguments substituted), the comment next to each
operand (the .td documents each operand's role there: rsrc, offset, soffset,
vindex, vdata, ...), its attributes, and AMDGPURsrcIntrinsic's resource
operand index. Used by check_intrinsics.py to generate IR for every memory
intrinsic independently of the analysis' own decoding table."""
import re

INTRINSIC_BASES = ("Intrinsic", "DefaultAttrsIntrinsic", "PureIntrinsic")


def _code_only(text):
    """The text with every // comment blanked (same length, same offsets)."""
    return re.sub(r"//[^\n]*", lambda m: " " * len(m.group(0)), text)


def _match(code, i, open_ch, close_ch):
    """Index just past the bracket closing the one at code[i]."""
    depth = 0
    pairs = {"<": ">", "[": "]", "(": ")", "{": "}"}
    closers = {v: k for k, v in pairs.items()}
    stack = []
    j = i
    while j < len(code):
        c = code[j]
        if c in pairs:
            stack.append(c)
        elif c in closers:
            if not stack:
                return -1
            stack.pop()
            if not stack:
                return j + 1
        j += 1
    return -1


def _split_top(code, lo, hi):
    """(start, end) spans of the comma-separated items of code[lo:hi] at depth 0."""
    items, depth, start = [], 0, lo
    for j in range(lo, hi):
        c = code[j]
        if c in "<[({":
            depth += 1
        elif c in ">])}":
            depth -= 1
        elif c == "," and depth == 0:
            items.append((start, j))
            start = j + 1
    if code[start:hi].strip():
        items.append((start, hi))
    return items


class Record:
    """A class or def: template parameters, and its parents (name, args text)."""

    def __init__(self, kind, name, params, parents, text, code):
        self.kind, self.name, self.params, self.parents = kind, name, params, parents
        self.text, self.code = text, code  # original text of the body and the comment-free one


def parse(path):
    with open(path) as f:
        text = f.read()
    code = _code_only(text)
    recs = {}
    for m in re.finditer(r"\b(class|def)\s+(\w+)\s*", code):
        kind, name, i = m.group(1), m.group(2), m.end()
        # skip defs inside a multiclass body (their names are suffixes like _x)
        params = []
        if i < len(code) and code[i] == "<":
            e = _match(code, i, "<", ">")
            for s, t in _split_top(code, i + 1, e - 1):
                p = code[s:t].strip()
                pm = re.match(r"[\w<>\s]+?\s(\w+)\s*(?:=\s*(.+))?$", p, re.S)
                if pm:
                    params.append((pm.group(1), (pm.group(2) or "").strip()))
            i = e
        while i < len(code) and code[i].isspace():
            i += 1
        if i >= len(code) or code[i] != ":":
            continue
        # the parents run to the ';' (or the '{' of a body) at depth 0
        j, depth = i + 1, 0
        while j < len(code):
            c = code[j]
            if c in "<[(":
                depth += 1
            elif c in ">])":
                depth -= 1
            elif depth == 0 and c in ";{":
                break
            j += 1
        parents = []
        for s, t in _split_top(code, i + 1, j):
            pm = re.match(r"\s*(\w+)\s*", code[s:t])
            if not pm:
                continue
            a = s + pm.end()
            if a < t and code[a] == "<":
                e = _match(code, a, "<", ">")
                parents.append((pm.group(1), (a + 1, e - 1)))
            else:
                parents.append((pm.group(1), None))
        recs.setdefault(name, Record(kind, name, params, parents, text, code))
    return recs, text, code


def _subst(s, env):
    if not env:
        return s
    return re.sub(r"\b(\w+)\b", lambda m: env.get(m.group(1), m.group(1)), s)


class Intr:
    """One intrinsic: name (dotted, after llvm.amdgcn.), ret [types], args
    [(type, comment)], attrs text, rsrc index or None."""

    def __init__(self, name):
        self.name = name
        self.ret, self.args, self.attrs, self.rsrc = [], [], "", None


def _items_with_comments(text, code, lo, hi, env):
    """Items of a [...] list (code[lo:hi]) with the comments that follow each:
    from the item's end to the next item's first character (the comment after
    its comma and any comment-only lines), for the last one up to the next
    code after the closing bracket."""
    spans = _split_top(code, lo, hi)
    starts = []
    for s, t in spans:
        k = s
        while k < t and code[k].isspace():
            k += 1
        starts.append(k)
    out = []
    for k, (s, t) in enumerate(spans):
        if k + 1 < len(spans):
            seg = text[t:starts[k + 1]]
        else:
            e = hi + 1
            while e < len(code) and (code[e].isspace() or code[e] == ","):
                e += 1
            seg = text[t:e]
        comments = " ".join(c.strip() for c in re.findall(r"//([^\n]*)", seg))
        out.append((_subst(code[starts[k]:t].strip(), env), comments))
    return out


def resolve(recs, text, code, name):
    """The Intr of def int_amdgcn_<name with _>, or None when it cannot be read."""
    rec = recs.get(name)
    if rec is None or rec.kind != "def":
        return None
    it = Intr(name[len("int_amdgcn_"):].replace("_", "."))
    found = False
    todo = [(rec, {})]
    while todo:
        r, env = todo.pop()
        for pname, span in r.parents:
            args = []
            if span:
                args = [_subst(code[s:t].strip(), env) for s, t in _split_top(code, span[0], span[1])]
            if pname == "AMDGPURsrcIntrinsic" and it.rsrc is None and args:
                if re.fullmatch(r"\d+", args[0]):
                    it.rsrc = int(args[0])
            elif pname in INTRINSIC_BASES and span:
                items = _split_top(code, span[0], span[1])
                if len(items) < 2:
                    return None
                found = True
                rs, re_ = items[0]
                a0 = code.index("[", rs)
                it.ret = [_subst(x.strip(), env) for s, t in _split_top(code, a0 + 1, _match(code, a0, "[", "]") - 1)
                          for x in [code[s:t]]]
                as_, ae = items[1]
                a1 = code.index("[", as_)
                it.args = _items_with_comments(text, code, a1 + 1, _match(code, a1, "[", "]") - 1, env)
                if len(items) > 2:
                    it.attrs = _subst(code[items[2][0]:items[2][1]], env)
            elif pname in recs and recs[pname].kind == "class":
                cls = recs[pname]
                cenv = {}
                for k, (p, default) in enumerate(cls.params):
                    cenv[p] = args[k] if k < len(args) else _subst(default, env)
                todo.append((cls, cenv))
    return it if found else None


def defset_members(code, setname):
    """Def names inside `defset ... setname = { ... }`."""
    m = re.search(r"defset\s+list<\w+>\s+" + setname + r"\s*=\s*\{", code)
    if not m:
        return []
    e = _match(code, m.end() - 1, "{", "}")
    return re.findall(r"\bdef\s+(int_amdgcn_\w+)", code[m.end():e])

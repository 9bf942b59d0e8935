#!/usr/bin/env python3
"""Import cycles among src/'s top-level modules and among the files of chosen folders.

Usage: .ci/layers.py [SRC] [--allow a,b] ...   (default SRC: src; folders: gateway, server)

Every path a file names is read: `use crate::…;` and `use super::…;` with grouped
forms (`use crate::{a, b::{c, d}}`), and inline `crate::a::b` / `super::a` paths.
Comments and `#[cfg(test)] mod … { … }` blocks are skipped, and so are test files
(`tests.rs`, `tests/`). A path is resolved to the deepest module file it names;
a name a `mod.rs` re-exports (`pub use child::Name`) is resolved to that child.
Exits 1 when a cycle is found that is not allowed.
"""
import os
import re
import sys

args = sys.argv[1:]
ALLOWED = set()
while "--allow" in args:
    i = args.index("--allow")
    ALLOWED.add(frozenset(args[i + 1].split(",")))
    del args[i : i + 2]
ROOT = args[0] if args else "src"
FOLDERS = ["gateway", "server"]


def strip(text):
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    text = "\n".join(re.sub(r"//.*", "", line) for line in text.splitlines())
    out, i = [], 0
    for m in re.finditer(r"#\[cfg\(test\)\]\s*mod\s+\w+\s*\{", text):
        if m.start() < i:
            continue
        out.append(text[i : m.start()])
        depth, j = 1, m.end()
        while j < len(text) and depth:
            depth += {"{": 1, "}": -1}.get(text[j], 0)
            j += 1
        i = j
    out.append(text[i:])
    return "".join(out)


def expand(tree):
    """`a::{b, c::{d}}` -> [`a::b`, `a::c::d`]."""
    k = tree.find("{")
    if k < 0:
        return [tree]
    prefix, inner = tree[:k], tree[k + 1 : tree.rindex("}")]
    parts, depth, cur = [], 0, ""
    for c in inner:
        if c == "," and depth == 0:
            parts.append(cur)
            cur = ""
            continue
        depth += (c == "{") - (c == "}")
        cur += c
    parts.append(cur)
    return [prefix + e for p in parts if p.strip() for e in expand(p.strip())]


def module_of(path):
    """src/a/b.rs -> (a, b); src/a/mod.rs -> (a,); src/lib.rs -> ()."""
    rel = os.path.relpath(path, ROOT)[:-3].split(os.sep)
    if rel[-1] in ("mod", "lib", "main"):
        rel = rel[:-1]
    return tuple(rel)


files, is_dir_module = {}, {}
for d, _, names in os.walk(ROOT):
    if "tests" in os.path.relpath(d, ROOT).split(os.sep):
        continue
    for n in names:
        if n.endswith(".rs") and n != "tests.rs":
            p = os.path.join(d, n)
            files[module_of(p)] = strip(open(p, encoding="utf-8").read())
            # A `mod.rs` (or the crate root) is its folder's module: `super` in it
            # names the parent, and it only gathers its children.
            is_dir_module[module_of(p)] = n in ("mod.rs", "lib.rs", "main.rs")

# Names a folder module re-exports from one of its children.
reexports = {}
for m, text in files.items():
    if not is_dir_module.get(m):
        continue
    for u in re.finditer(r"\bpub(?:\([^)]*\))?\s+use\s+(self::)?(\w+)::(.*?);", text, flags=re.S):
        child = u.group(2)
        if m + (child,) not in files:
            continue
        for p in expand(re.sub(r"\s+", "", u.group(3))):
            name = p.split("::")[-1].split(" as ")[-1]
            reexports[m + (name,)] = m + (child,)


def resolve(segments):
    """The deepest module file a path names."""
    best = ()
    for n in range(1, len(segments) + 1):
        prefix = tuple(segments[:n])
        if prefix in files:
            best = prefix
        elif prefix in reexports:
            best = reexports[prefix]
            break
        else:
            break
    return best


def paths(m, text):
    found = []
    for u in re.finditer(r"\buse\s+((?:crate|super)(?:::super)*)::(.*?);", text, flags=re.S):
        found += [u.group(1) + "::" + p for p in expand(re.sub(r"\s+", "", u.group(2)))]
    rest = re.sub(r"\buse\s+(?:crate|super)\b.*?;", "", text, flags=re.S)
    found += re.findall(r"\b(?:crate|super)(?:::super)*(?:::\w+)+", rest)
    out = []
    for p in found:
        segs = p.split("::")
        if segs[0] == "crate":
            out.append(segs[1:])
            continue
        base = list(m if is_dir_module.get(m) else m[:-1])
        while segs and segs[0] == "super":
            segs.pop(0)
            base = base[:-1] if segs and segs[0] == "super" else base
        # `super` from a file names its folder's module; from a mod.rs, the parent's.
        out.append(base + segs)
    return out


top, within = {}, {f: {} for f in FOLDERS}
for m, text in files.items():
    if not m:
        continue
    for segs in paths(m, text):
        target = resolve(segs)
        if not target:
            continue
        if target[0] != m[0]:
            top.setdefault(m[0], set()).add(target[0])
        elif m[0] in within and target != m and not is_dir_module.get(m) \
                and not is_dir_module.get(target) and target[: len(m)] != m:
            within[m[0]].setdefault("/".join(m[1:]), set()).add("/".join(target[1:]))


def cycles(graph):
    index, low, stack, on, found, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


bad = 0


def report(title, graph):
    global bad
    print(f"== {title} ==")
    for comp in cycles(graph):
        allowed = frozenset(comp) in ALLOWED
        bad += not allowed
        print("cycle:", " ".join(comp), "(allowed)" if allowed else "")
        for a in comp:
            for b in sorted(graph.get(a, ())):
                if b in comp:
                    print(f"    {a} -> {b}")


report("top-level modules of src/", top)
for f in FOLDERS:
    report(f"files of src/{f}", within[f])
print("cycles not allowed:", bad)
sys.exit(1 if bad else 0)

#!/usr/bin/env python3
"""The house rules of issue 20 (docs/layout.md), checked on the sources and the built objects.

Layers, lowest first, are given on the command line (CMake passes SR_LAYERS); src/<layer>/*.c
belong to their folder.  A header's layer is (1) its tag `/* layer: NAME */`, else (2) the one
folder whose object files define the functions it declares (nm), else (3) for a header of types
and inline functions only, the highest layer of the headers it includes.

Fails (exit 1, one line per finding) when
  - a header declares functions defined in two folders (it belongs to no single layer),
  - a source file or a header includes a header of a higher layer,
  - an object file references a symbol defined in a higher layer (nm),
  - a file-level circle exists: a cycle in the graph with an arrow A -> B when A's object
    references a symbol B's object defines, or when A includes B's own header (X.h or
    X_impl.h for src/<layer>/X.c),
  - with --max-lines N: a source file src/<layer>/X.c has more than N lines (one concern per
    file, no source file over ~700 lines),
  - with --layout FILE (docs/layout.md): the page does not name a folder src/<layer>/ or a
    source file X.c of the tree.
Usage: check_layers.py [--max-lines N] [--layout FILE] SRCDIR INCLUDEDIR OBJDIR[:OBJDIR...] LAYER [LAYER ...]
(OBJDIR: where the objects of src/<layer>/<file>.c are, as <layer>/<file>.c.o)
"""
import collections
import glob
import os
import re
import subprocess
import sys


def read(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read()


def code(text):
    """The text without its comments (names in comments are not declarations)."""
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    return re.sub(r"//[^\n]*", " ", text)


def main(argv):
    argv = list(argv)
    max_lines, layout = None, None
    while len(argv) > 2 and argv[1] in ("--max-lines", "--layout"):
        if argv[1] == "--max-lines":
            max_lines = int(argv[2])
        else:
            layout = argv[2]
        del argv[1:3]
    if len(argv) < 5:
        sys.exit(__doc__)
    srcdir, incdir, objdir, layers = argv[1], argv[2], argv[3], argv[4:]
    rank = {name: i for i, name in enumerate(layers)}
    bad = []

    # the sources: src/<layer>/<file>.c -> "layer/file"
    sources = {}
    for path in sorted(glob.glob(os.path.join(srcdir, "*", "*.c"))):
        folder = os.path.basename(os.path.dirname(path))
        if folder not in rank:
            bad.append(f"{os.path.relpath(path, srcdir)}: folder {folder} is not a layer ({' '.join(layers)})")
            continue
        sources[f"{folder}/{os.path.basename(path)[:-2]}"] = path
    if not sources:
        sys.exit(f"no sources under {srcdir}")

    # the size of a file and the page that lists the folders and their files
    if max_lines is not None:
        for name, path in sorted(sources.items()):
            nlines = read(path).count("\n")
            if nlines > max_lines:
                bad.append(f"src/{name}.c: {nlines} lines, over the {max_lines} of the house rule (cut it by concern)")
    if layout is not None:
        page = read(layout)
        for folder in sorted({n.split("/")[0] for n in sources}, key=lambda f: rank[f]):
            if f"src/{folder}/" not in page:
                bad.append(f"{os.path.basename(layout)}: misses the folder src/{folder}/")
        for name in sorted(sources):
            if not re.search(r"(?<![\w.])" + re.escape(name.split("/")[1]) + r"\.c\b", page):
                bad.append(f"{os.path.basename(layout)}: misses the source file src/{name}.c")

    # the objects: what each defines and references (nm)
    defined, refs = {}, {}
    for name in sources:
        objs = [os.path.join(d, name + ".c.o") for d in objdir.split(":")]
        objs = [o for o in objs if os.path.exists(o)]
        if not objs:
            bad.append(f"{name}.c: no object file {name}.c.o under {objdir} (build first)")
            continue
        obj = objs[0]
        out = subprocess.run(["nm", obj], capture_output=True, text=True, check=True).stdout
        defined[name], refs[name] = set(), set()
        for line in out.splitlines():
            parts = line.split()
            if len(parts) == 3 and parts[1] in "TDRBCVWG":
                defined[name].add(parts[2])
            elif len(parts) == 2 and parts[0] == "U":
                refs[name].add(parts[1])
    owner = {}
    for name, syms in defined.items():
        for s in syms:
            owner[s] = name

    # the headers: includes, declared functions, layer
    headers = {}
    for path in sorted(glob.glob(os.path.join(incdir, "**", "*.h"), recursive=True)):
        headers[os.path.relpath(path, incdir)] = path
    includes = {h: re.findall(r'^\s*#\s*include\s*<(simreach[^>]*)>', read(p), re.M) for h, p in headers.items()}
    for n, p in sources.items():
        includes[n + ".c"] = re.findall(r'^\s*#\s*include\s*<(simreach[^>]*)>', read(p), re.M)
    hlayer, why = {}, {}
    for h, p in headers.items():
        text = read(p)
        tag = re.search(r"/\*\s*layer:\s*(\w+)\s*\*/", text)
        declared = set(re.findall(r"\b([A-Za-z_]\w*)\s*\(", code(text)))
        folders = sorted({owner[s].split("/")[0] for s in declared if s in owner}, key=lambda f: rank[f])
        if tag:
            if tag.group(1) not in rank:
                bad.append(f"include/{h}: tagged layer {tag.group(1)} is not a layer")
                continue
            hlayer[h], why[h] = tag.group(1), "tagged"
            if any(rank[f] > rank[tag.group(1)] for f in folders):
                bad.append(f"include/{h}: tagged {tag.group(1)} but declares functions defined in {', '.join(folders)}")
        elif len(folders) > 1:
            impl = sorted({owner[s] for s in declared if s in owner})
            bad.append(f"include/{h}: declares functions of several layers ({', '.join(impl)}): split it so that it belongs to one")
            hlayer[h], why[h] = folders[-1], "implemented in " + ", ".join(folders)
        elif folders:
            hlayer[h], why[h] = folders[0], "implemented in " + folders[0]

    def header_layer(h, seen=()):
        if h in hlayer:
            return hlayer[h]
        if h not in headers or h in seen:
            return layers[0]
        inc = [header_layer(i, seen + (h,)) for i in includes[h] if i in headers]
        hlayer[h] = max(inc, key=lambda f: rank[f]) if inc else layers[0]
        why[h] = "types only, above what it includes"
        return hlayer[h]

    for h in headers:
        header_layer(h)

    # rule: includes never go up
    for f, incs in sorted(includes.items()):
        mine = f.split("/")[0] if f.endswith(".c") else hlayer[f]
        where = f"src/{f}" if f.endswith(".c") else f"include/{f}"
        for i in incs:
            if i not in headers:
                bad.append(f"{where}: includes <{i}>, which does not exist")
            elif rank[hlayer[i]] > rank[mine]:
                bad.append(f"{where} ({mine}) includes <{i}> of the higher layer {hlayer[i]} ({why[i]})")

    # rule: calls never go up; the file graph
    graph = collections.defaultdict(set)
    for a, syms in refs.items():
        for s in sorted(syms):
            b = owner.get(s)
            if b is None or b == a:
                continue
            graph[a].add(b)
            if rank[b.split("/")[0]] > rank[a.split("/")[0]]:
                bad.append(f"src/{a}.c ({a.split('/')[0]}) calls {s} of src/{b}.c, a higher layer")
    # a header that declares the functions of exactly one file is that file's interface:
    # including it depends on that file
    impl = {}
    for h, p in headers.items():
        declared = set(re.findall(r"\b([A-Za-z_]\w*)\s*\(", code(read(p))))
        files = {owner[s] for s in declared if s in owner}
        if len(files) == 1:
            impl[h] = files.pop()
    for f, incs in includes.items():
        if not f.endswith(".c"):
            continue
        a = f[:-2]
        for i in incs:
            b = impl.get(i)
            if b and b != a:
                graph[a].add(b)

    # file-level circles: strongly connected components of more than one file
    index, low, stack, onstack, sccs = {}, {}, [], set(), []
    sys.setrecursionlimit(100000)

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        onstack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in onstack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                onstack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                sccs.append(sorted(comp))

    for v in sorted(sources):
        if v not in index:
            visit(v)
    for comp in sccs:
        bad.append("file-level circle: " + " <-> ".join(f"src/{c}.c" for c in comp))

    for line in bad:
        print("check_layers:", line)
    nedges = sum(len(v) for v in graph.values())
    print(f"check_layers: {len(sources)} source files in {len(layers)} layers, {len(headers)} headers, {nedges} file arrows: {len(bad)} finding(s)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

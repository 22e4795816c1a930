#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Host unit test: module/ has no call circle, so its files stack in layers.
#
# A unit is a file name without its extension (clusters.c + clusters.h).
# Unit A depends on unit B when A's code uses a function or an object that
# B's .c file defines (non-static, at the start of a line, as kernel style
# writes definitions); comments and strings are ignored.  That is the call
# graph: using another file's struct through its header (every face reads
# struct thpswap_dev from device.h) is a type, not a call, and is allowed
# both ways.  The #include lines must back every call (A includes B.h,
# directly or through another local header), so a grep of them shows the
# same picture.  A circle fails the test and is printed with the names
# that make each step.
#
# Usage: tests/unit/module-layers.sh [DIR]   (default: module/)
# Prints TAP.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
exec python3 - "${1:-$top/module}" <<'PY'
import glob, os, re, sys

d = sys.argv[1]
n = 0
rc = 0


def ok(cond, desc, notes=()):
    global n, rc
    n += 1
    print(("ok %d - %s" if cond else "not ok %d - %s") % (n, desc))
    for line in notes:
        print("# " + line)
    if not cond:
        rc = 1


def strip(src):
    """The source without comments, string and character literals."""
    return re.sub(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'',
                  lambda m: '\n' * m.group(0).count('\n') if m.group(0)[0] == '/' else '""',
                  src, flags=re.S)


print("TAP version 13")
files = sorted(glob.glob(os.path.join(d, "*.[ch]")))
unit = lambda f: os.path.splitext(os.path.basename(f))[0]
units = sorted({unit(f) for f in files})
text = {f: strip(open(f, encoding="utf-8").read()) for f in files}
raw = {f: open(f, encoding="utf-8").read() for f in files}

# Definitions: non-static functions and objects at the start of a line.
defs = {}
fn_re = re.compile(r'^(?!static\b|extern\b|#)[A-Za-z_][\w \t*]*?\b(thpswap_\w+)\s*\([^;]*?\)\s*\{', re.M | re.S)
obj_re = re.compile(r'^(?!static\b|extern\b|#|typedef\b)(?:const\s+)?(?:struct\s+\w+|\w+)[\s*]+(?:const\s+)?(thpswap_\w+)\s*(?:\[\w*\])?[^(;\n]*(?:=|;)', re.M)
macro_re = re.compile(r'^(?!static\b)[A-Z_]+\((thpswap_\w+)\b', re.M)
for f in files:
    if not f.endswith(".c"):
        continue
    for r in (fn_re, obj_re, macro_re):
        for m in r.finditer(text[f]):
            defs.setdefault(m.group(1), unit(f))
# static inline functions in a header belong to that header's unit.
for f in files:
    if f.endswith(".h"):
        for m in re.finditer(r'^static inline\b[^(]*?\b(thpswap_\w+)\s*\(', text[f], re.M):
            defs.setdefault(m.group(1), unit(f))

ok(len(units) > 1 and len(defs) > 0,
   "%s/: %d files, %d units, %d definitions found" %
   (os.path.basename(d.rstrip("/")), len(files), len(units), len(defs)))

# Local includes: each must exist; the closure gives what a unit can see.
inc = {u: set() for u in units}
missing = []
for f in files:
    for h in re.findall(r'^\s*#\s*include\s*"([^"]+)\.h"', raw[f], re.M):
        if not os.path.exists(os.path.join(d, h + ".h")):
            missing.append("%s includes %s.h" % (os.path.basename(f), h))
        elif h != unit(f):
            inc[unit(f)].add(h)
ok(not missing, "every local #include names a header of the directory",
   ["missing: " + m for m in missing])


def closure(u):
    seen, todo = set(), [u]
    while todo:
        for v in inc.get(todo.pop(), ()):
            if v not in seen:
                seen.add(v)
                todo.append(v)
    return seen


# Calls: A -> B with the names that make the edge.
calls = {u: {} for u in units}
for f in files:
    a = unit(f)
    for name in set(re.findall(r'\b(thpswap_\w+)\b', text[f])):
        b = defs.get(name)
        if b and b != a:
            calls[a].setdefault(b, set()).add(name)

unbacked = ["%s uses %s of %s.c without including %s.h" %
            (a, ", ".join(sorted(names)), b, b)
            for a in units for b, names in sorted(calls[a].items())
            if b not in closure(a)]
ok(not unbacked, "every call is backed by an #include of the callee's header", unbacked)

# A circle: depth-first search for a back edge.
state, stack, cycle = {}, [], None


def dfs(u):
    global cycle
    state[u] = 1
    stack.append(u)
    for v in sorted(calls[u]):
        if cycle:
            return
        if state.get(v) == 1:
            cycle = stack[stack.index(v):] + [v]
            return
        if not state.get(v):
            dfs(v)
    stack.pop()
    state[u] = 2


for u in units:
    if not state.get(u) and not cycle:
        dfs(u)
if cycle:
    steps = ["%s -> %s (%s)" % (a, b, ", ".join(sorted(calls[a][b])))
             for a, b in zip(cycle, cycle[1:])]
    ok(False, "no call circle among the files", ["circle: " + " -> ".join(cycle)] + steps)
else:
    # Layers: a unit sits one above the highest unit it calls.
    level = {}

    def lvl(u):
        if u not in level:
            level[u] = 1 + max((lvl(v) for v in calls[u]), default=-1)
        return level[u]

    for u in units:
        lvl(u)
    notes = ["layer %d: %s" % (i, " ".join(sorted(u for u in units if level[u] == i)))
             for i in range(max(level.values()) + 1)]
    ok(True, "no call circle among the files", notes)

print("1..%d" % n)
sys.exit(rc)
PY

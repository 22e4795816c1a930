#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Host unit test: thpswapctl --help, the man page (userctl/thpswapctl.8),
# the bash completion and README.md agree on every command and option.
#
# Nothing is listed here: the commands and each command's options come from
# the command table in userctl/main.c (name and argument synopsis), the
# options from its long_opts[] (names sharing one value are aliases: one
# of them must be documented).  Then:
#   --help        the same commands, each with the table's options, and
#                 every option in its options list, none unknown;
#   man page      SYNOPSIS: the same commands with the same options;
#                 COMMANDS: an entry per command; OPTIONS: every option;
#   completion    the same command list;
#   README.md     "thpswapctl CMD" for every command and every option
#                 spelled out, and no unknown command or option in a line
#                 that runs thpswapctl.
# Usage: tests/unit/cli-docs.sh [TOP]   (default: this tree).  Prints TAP.
set -u
top=${1:-$(cd "$(dirname "$0")/../.." && pwd)}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# --help from the real sources, with the fake transport (no libnl needed).
srcs=$(make -s -C "$top/userctl" print-core-sources | tr ' ' '\n' | sed "s|^|$top/userctl/|")
# shellcheck disable=SC2086
if ${CC:-cc} -O0 -w -std=gnu11 -I"$top/userctl" -I"$top/uapi" -o "$tmp/thpswapctl" \
	$srcs "$top/tests/unit/cli/fake.c" 2> "$tmp/cc.err"; then
	"$tmp/thpswapctl" --help > "$tmp/help" 2>&1
else
	: > "$tmp/help"
fi

exec python3 - "$top" "$tmp/help" "$tmp/cc.err" <<'PY'
import os, re, sys

top, help_file, cc_err = sys.argv[1:4]
n = rc = 0


def ok(cond, desc, notes=()):
    global n, rc
    n += 1
    print(("ok %d - %s" if cond else "not ok %d - %s") % (n, desc))
    for line in list(notes)[:30]:
        print("# " + line)
    if not cond:
        rc = 1


def read(p):
    with open(os.path.join(top, p), encoding="utf-8") as f:
        return f.read()


def opts_in(s):
    return set(re.findall(r'--([a-z][a-z-]*)', s))


def diff(what, want, got):
    return ["%s: missing %s" % (what, " ".join(sorted(want - got)))] * bool(want - got) + \
           ["%s: unknown %s" % (what, " ".join(sorted(got - want)))] * bool(got - want)


print("TAP version 13")

# --- the sources --------------------------------------------------------
main = read("userctl/main.c")
m = re.search(r'commands\[\]\s*=\s*\{(.*?)\n\};', main, re.S)
table = {}
order = []
if m:
    for e in re.finditer(r'\{\s*"(\w+)",\s*cmd_\w+,[^"]*?"([^"]*)"', m.group(1), re.S):
        table[e.group(1)] = opts_in(e.group(2))
        order.append(e.group(1))
m = re.search(r'struct option long_opts\[\]\s*=\s*\{(.*?)\n\};', main, re.S)
longs = {}
if m:
    for e in re.finditer(r'\{\s*"([a-z-]+)",\s*\w+,\s*\w+,\s*([^ }]+)\s*\}', m.group(1)):
        longs.setdefault(e.group(2), []).append(e.group(1))
groups = list(longs.values())          # each a list of aliases
options = {g[0] for g in groups}
alias = {a: g[0] for g in groups for a in g}
ok(len(table) > 3 and len(options) > 3,
   "userctl/main.c: %d commands (%s), %d options and %d aliases" %
   (len(table), " ".join(order), len(options), len(alias) - len(options)))
canon = lambda s: {alias.get(o, o) for o in s}

# --- --help -------------------------------------------------------------
h = open(help_file, encoding="utf-8").read()
if not h:
    ok(False, "thpswapctl --help runs", open(cc_err).read().splitlines())
else:
    hc, bad = {}, []
    part = h.split("\noptions")[0]
    for line in part.splitlines():
        mm = re.match(r'^  ([a-z]+)\b(.*)$', line)
        if mm:
            hc[mm.group(1)] = opts_in(mm.group(2))
    notes = diff("commands", set(table), set(hc))
    for c in sorted(set(table) & set(hc)):
        notes += diff("help " + c, table[c], hc[c])
    ok(not notes, "--help lists every command with its options", notes)
    ho = opts_in(h.split("\noptions", 1)[1]) if "\noptions" in h else set()
    ok(not diff("--help options", options, canon(ho)),
       "--help's options list has every option and no other",
       diff("--help options", options, canon(ho)))

# --- the man page -------------------------------------------------------
man = read("userctl/thpswapctl.8").replace("\\-", "-")
parts = re.split(r'^\.SH\s+"?([A-Z ]+?)"?\s*$', man, flags=re.M)
secs = {parts[i]: parts[i + 1] for i in range(1, len(parts) - 1, 2)}
syn, notes = {}, []
for block in secs.get("SYNOPSIS", "").split(".br"):
    mm = re.search(r'^\.B thpswapctl(?:\s+([a-z]+))?', block, re.M)
    if not mm:
        continue
    cmd = mm.group(1)
    if cmd is None:
        # "thpswapctl [OPTIONS] [list]": the default command
        mm = re.search(r'\\fB([a-z]+)\\fR', block)
        cmd = mm.group(1) if mm else "?"
    syn[cmd] = opts_in(block)
notes = diff("SYNOPSIS commands", set(table), set(syn))
for c in sorted(set(table) & set(syn)):
    notes += diff("SYNOPSIS " + c, table[c], syn[c])
ok(not notes, "man page SYNOPSIS: every command with its options", notes)
entries = set(re.findall(r'^\.TP\n\.BR? ([a-z]+)\b', secs.get("COMMANDS", ""), re.M))
ok(not diff("COMMANDS", set(table), entries),
   "man page COMMANDS: an entry per command, none other",
   diff("COMMANDS", set(table), entries))
mo = set()
for tag in re.findall(r'^\.TP\n(\.[A-Z]+ .*)$', secs.get("OPTIONS", ""), re.M):
    mo |= opts_in(tag)
ok(not diff("OPTIONS", options, canon(mo)),
   "man page OPTIONS: an entry per option, none other",
   diff("OPTIONS", options, canon(mo)))

# --- bash completion ----------------------------------------------------
comp = "".join(read(os.path.join("userctl/completion", f))
               for f in sorted(os.listdir(os.path.join(top, "userctl/completion"))))
mm = re.search(r'local commands="([^"]*)"', comp)
cc = mm.group(1).split() if mm else []
ok(cc == order, "bash completion offers the commands, in the table's order",
   [] if cc == order else
   ["completion: %s" % " ".join(cc), "table:      %s" % " ".join(order)])

# --- README.md ----------------------------------------------------------
readme = read("README.md")
runs = [l for l in readme.splitlines() if re.match(r'^\s*(sudo\s+)?thpswapctl\b', l)]
said = set()
unknown_c, unknown_o = [], []
for l in runs:
    code = l.split("#", 1)[0]
    words = [w for w in code.split() if w != "sudo"][1:]
    # the first word that is not an option or an option's value
    i = 0
    while i < len(words) and words[i].startswith("-"):
        i += 1 + (alias.get(words[i].lstrip("-").split("=")[0]) in
                  ("size", "memmap", "node", "index", "range", "interval",
                   "count", "width", "config"))
    if i < len(words) and re.match(r'^[a-z]+$', words[i]):
        if words[i] in table:
            said.add(words[i])
        else:
            unknown_c.append(l.strip())
    for o in opts_in(code):
        if o not in alias:
            unknown_o.append("--%s in: %s" % (o, l.strip()))
notes = diff("README commands", set(table), said) + \
        ["not a command: " + u for u in unknown_c] + unknown_o
ok(not notes, "README.md runs every command and no unknown command or option", notes)
ro = canon(o for o in opts_in(readme) if o in alias)
ok(options <= ro, "README.md names every option",
   ["README: missing --" + " --".join(sorted(options - ro))] if options - ro else [])

print("1..%d" % n)
sys.exit(rc)
PY

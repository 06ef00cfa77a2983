#!/usr/bin/env bash
# SPEC §13: the defaults that -help prints are the defaults the README's option table documents.
# Every table row whose options and backticked defaults pair up one to one is compared with
# `simreach study -help` (a study prints every run option too).
# Usage: readme_defaults.sh README.md WORKDIR   (environment: see study_common.sh)
. "$(dirname "$0")/study_common.sh"
readme=$1 dir=$2
rm -rf "$dir" && mkdir -p "$dir" || fail "cannot create $dir"
# -help prints the options as they are read; the study then stops at its output (no such directory)
sr_run 1 study -help -output "$dir/no/such/dir/x.h5" > "$dir/help.log" 2>&1
grep -q -- "-model <" "$dir/help.log" || { cat "$dir/help.log"; fail "simreach study -help printed no options"; }
"$PY" - "$readme" "$dir/help.log" <<'PYEOF'
import re, sys
readme, helplog = sys.argv[1], sys.argv[2]
helpdef = {}
for line in open(helplog):
    m = re.match(r"^\s+-(\w+) <(.*?)>: ", line)
    if not m or m.group(1) in helpdef:
        continue
    v = m.group(2)
    m2 = re.match(r"now (.*) : formerly (.*)$", v) or re.match(r"(.*) : (.*)$", v)
    helpdef[m.group(1)] = (m2.group(2) if m2 else v).strip()
def same(doc, code):
    if doc == code:
        return True
    try:
        return float(doc) == float(code)
    except ValueError:
        pass
    # arrays: -help prints the first entry only
    return "," in doc and doc.split(",")[0] == code
rows, checked, bad = 0, 0, []
in_table = False
for line in open(readme):
    if line.startswith("| option | meaning | default |"):
        in_table = True
        continue
    if in_table and not line.startswith("|"):
        break
    if not in_table or line.startswith("|---"):
        continue
    cells = [c.strip() for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]
    if len(cells) != 3:
        continue
    rows += 1
    opts = re.findall(r"`-(\w+)", cells[0])
    defs = re.findall(r"`([^`]*)`", cells[2])
    if not opts or len(opts) != len(defs):
        continue
    for o, d in zip(opts, defs):
        if o not in helpdef:
            bad.append(f"-{o}: in the README table but not printed by -help")
            continue
        checked += 1
        if not same(d, helpdef[o]):
            bad.append(f"-{o}: README says {d}, -help prints {helpdef[o]}")
print(f"{rows} table rows, {checked} defaults compared with -help")
if bad:
    sys.exit("README defaults differ from the code:\n  " + "\n  ".join(bad))
if checked < 10:
    sys.exit("too few defaults compared: the table format changed?")
PYEOF
[ $? -eq 0 ] || fail "README and -help disagree"
echo "PASS: README option defaults = -help"

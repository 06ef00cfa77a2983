#!/usr/bin/env bash
# The layer checker must fail where the rules are broken (issue 20): tiny planted trees (two
# layers, low and high) with an upward include, an upward call, a file-level circle, a
# header of two layers, a file over the line limit and a layout page that misses a folder or a
# file, each refused with its own message; a clean tree passes; and an upward
# include planted in a copy of the real tree is refused (the real objects unchanged).
# Usage: selftest.sh CHECKER WORKDIR TOPDIR OBJDIRS "LAYERS"
set -u
checker=$1 dir=$2 top=$3 objs=$4 layers=${5//;/ }
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
rm -rf "$dir" && mkdir -p "$dir" || exit 1

# A tiny tree: src/low/a.c (a()), src/high/b.c (b() calls a()), headers a.h, b.h.
plant() { # plant NAME: a clean tree in $dir/NAME
  local t=$dir/$1
  mkdir -p "$t/src/low" "$t/src/high" "$t/include/simreach" "$t/obj/low" "$t/obj/high"
  printf 'int a(void);\n' > "$t/include/simreach/a.h"
  printf 'int b(void);\n' > "$t/include/simreach/b.h"
  printf '#include <simreach/a.h>\nint a(void) { return 1; }\n' > "$t/src/low/a.c"
  printf '#include <simreach/a.h>\n#include <simreach/b.h>\nint b(void) { return a() + 1; }\n' > "$t/src/high/b.c"
}
build() { # build NAME: compile every source of the tree
  local t=$dir/$1
  for f in "$t"/src/*/*.c; do
    local rel=${f#"$t/src/"}
    cc -c -I"$t/include" "$f" -o "$t/obj/${rel}.o" || return 1
  done
}
run() { # run NAME: the checker's exit code, its output in NAME.log
  local t=$dir/$1
  python3 "$checker" "$t/src" "$t/include" "$t/obj" low high > "$dir/$1.log" 2>&1
}
expect_fail() { # expect_fail NAME PATTERN
  if run "$1"; then fail "$1: the checker passed"; cat "$dir/$1.log"; return; fi
  grep -q -- "$2" "$dir/$1.log" || { fail "$1: no line matching '$2'"; cat "$dir/$1.log"; return; }
  echo "ok: $1 refused: $(grep -m1 -- "$2" "$dir/$1.log")"
}

plant clean && build clean || exit 1
if run clean; then echo "ok: the clean tiny tree passes"; else fail "clean tree refused"; cat "$dir/clean.log"; fi

# an upward include: low/a.c includes the high layer's header
plant upinclude
printf '#include <simreach/b.h>\n' >> "$dir/upinclude/src/low/a.c"
build upinclude || exit 1
expect_fail upinclude "src/low/a.c (low) includes <simreach/b.h> of the higher layer high"

# an upward call: low/a.c calls b() (declared locally, so no include gives it away)
plant upcall
printf 'int b(void);\nint a2(void) { return b(); }\n' >> "$dir/upcall/src/low/a.c"
build upcall || exit 1
expect_fail upcall "src/low/a.c (low) calls b of src/high/b.c, a higher layer"

# a circle inside one layer: high/c.c calls b(), b() calls c()
plant circle
printf 'int c(void);\n' > "$dir/circle/include/simreach/c.h"
printf '#include <simreach/b.h>\n#include <simreach/c.h>\nint c(void) { return 3; }\nint c2(void) { return b(); }\n' > "$dir/circle/src/high/c.c"
printf '#include <simreach/c.h>\nint b2(void) { return c(); }\n' >> "$dir/circle/src/high/b.c"
build circle || exit 1
expect_fail circle "file-level circle: src/high/b.c <-> src/high/c.c"

# a header of two layers: a.h also declares b()
plant twolayers
printf 'int b(void);\n' >> "$dir/twolayers/include/simreach/a.h"
build twolayers || exit 1
expect_fail twolayers "include/simreach/a.h: declares functions of several layers"

# a file over the line limit, and a layout page that misses a folder and a file
plant long
build long || exit 1
for i in 1 2 3 4 5 6; do printf '/* line %d */\n' "$i" >> "$dir/long/src/high/b.c"; done
if python3 "$checker" --max-lines 5 "$dir/long/src" "$dir/long/include" "$dir/long/obj" low high > "$dir/long.log" 2>&1; then
  fail "long: a file of 9 lines passed --max-lines 5"
else
  grep -q "src/high/b.c: 9 lines, over the 5 of the house rule" "$dir/long.log" && echo "ok: long refused: $(grep -m1 'b.c' "$dir/long.log")" || { fail "long: wrong message"; cat "$dir/long.log"; }
fi
printf 'src/low/ holds a.c; b.c is in the other folder\n' > "$dir/layout.md"
if python3 "$checker" --layout "$dir/layout.md" "$dir/clean/src" "$dir/clean/include" "$dir/clean/obj" low high > "$dir/layout.log" 2>&1; then
  fail "layout: a page without src/high/ passed"
else
  grep -q "layout.md: misses the folder src/high/" "$dir/layout.log" && echo "ok: layout refused: $(grep -m1 'misses' "$dir/layout.log")" || { fail "layout: wrong message"; cat "$dir/layout.log"; }
fi
printf 'src/low/ holds a.c; src/high/ holds b\n' > "$dir/layout2.md"
if python3 "$checker" --layout "$dir/layout2.md" "$dir/clean/src" "$dir/clean/include" "$dir/clean/obj" low high > "$dir/layout2.log" 2>&1; then
  fail "layout: a page without b.c passed"
else
  grep -q "layout2.md: misses the source file src/high/b.c" "$dir/layout2.log" && echo "ok: layout refused: $(grep -m1 'misses' "$dir/layout2.log")" || { fail "layout2: wrong message"; cat "$dir/layout2.log"; }
fi

# the real tree passes, and an upward include planted in a copy of it is refused
if python3 "$checker" --max-lines 700 --layout "$top/docs/layout.md" "$top/src" "$top/include" "$objs" $layers > "$dir/real.log" 2>&1; then
  echo "ok: the real tree passes: $(tail -1 "$dir/real.log")"
else
  fail "the real tree is refused"; cat "$dir/real.log"
fi
mkdir -p "$dir/copy" && cp -r "$top/src" "$top/include" "$dir/copy/" || exit 1
printf '#include <simreach/run.h>\n' >> "$dir/copy/src/numerics/interval.c"
if python3 "$checker" "$dir/copy/src" "$dir/copy/include" "$objs" $layers > "$dir/copy.log" 2>&1; then
  fail "an upward include planted in src/numerics/interval.c passed"
else
  grep -q "src/numerics/interval.c (numerics) includes <simreach/run.h> of the higher layer train" "$dir/copy.log" \
    && echo "ok: planted upward include refused: $(grep -m1 'interval.c' "$dir/copy.log")" \
    || { fail "planted include: wrong message"; cat "$dir/copy.log"; }
fi
[ $fails -eq 0 ] && echo "PASS: the layer checker refuses each planted violation" || { echo "$fails failure(s)"; exit 1; }

#!/usr/bin/env bash
# The MLP, Adam and enclosure kernels are compiled for AVX-512, AVX2 and the x86-64 baseline and
# picked at load time (src/model/mlp.c).  Valgrind's CPU has no AVX-512, so under valgrind the AVX2
# clones run: the small study run there must give the same file, bit for bit, as the natively
# run one (tests/study_ranks.sh's np1.h5), and valgrind must report no memory error.
# Usage: study_clones.sh OPTIONS_FILE REFERENCE.h5 WORKDIR   (environment: see study_common.sh)
. "$(dirname "$0")/study_common.sh"
opts=$1 ref=$2 dir=$3
command -v valgrind > /dev/null || { echo "SKIP: valgrind not installed (Debian: apt-get install valgrind)"; exit 77; }
[ -f "$ref" ] || fail "reference file $ref missing (made by study_ranks)"
rm -rf "$dir" && mkdir -p "$dir" || fail "cannot create $dir"
cat > "$dir/cpu.c" << 'CEOF'
#include <stdio.h>
int main(void) { __builtin_cpu_init(); printf("avx512f=%d avx2=%d\n", !!__builtin_cpu_supports("avx512f"), !!__builtin_cpu_supports("avx2")); return 0; }
CEOF
if cc -o "$dir/cpu" "$dir/cpu.c" 2> /dev/null; then
  echo "native CPU: $("$dir/cpu"); under valgrind: $(valgrind -q "$dir/cpu")"
fi
valgrind -q --error-exitcode=9 "$SIMREACH" study -options_file "$opts" -output "$dir/valgrind.h5" > "$dir/valgrind.log" 2>&1 || { tail -40 "$dir/valgrind.log"; fail "study under valgrind (exit $?)"; }
sr_compare "$ref" "$dir/valgrind.h5" || fail "the study under valgrind (other kernel clones) differs from the native one"
echo "PASS: native and valgrind (AVX2/baseline kernels) studies identical"

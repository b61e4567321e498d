#!/usr/bin/env bash
# Which instruction class of a program's PTX ptxas gets wrong, in one GPU run (how seed 2's
# programs 971, 2278, 3860, 6618 and 9379 were located; docs/fuzzing.md, "Seed 2").
# Here, from a batch's PTX (e.g. a cut batch's, extracted from its binary):
#   python3 extract.py BATCH.ptx P.ptx ENTRY...     # the entries and the functions they call
#   python3 rw.py P.ptx P.base.ptx                  # (optional) rewrites to test on top
#   python3 widen.py P.base.ptx P.<class>.ptx CLASS # 16-bit classes computed in 32 bits:
#                                                   # arith shift setp selp sext divrem (comma list)
#   python3 trunc.py P.base.ptx P.<mode>.ptx MODES  # implicit chops made explicit: cvt32 cvt16 st32
# then on the GPU machine, beside ldr.cu and the files:
#   bash levels.sh P "ENTRY..." VARIANT...
# ldr launches each entry with the fuzz batch's 200 inputs (oxide's ABI: input, len, out, len);
# the reference is P.base.ptx through ptxas -O0, and each variant through the driver's JIT
# (-O3) is `ok` where it matches it, `BAD` where not.
set -uo pipefail
p=$1 entries=$2
shift 2
nvcc -O2 -o /tmp/ldr ldr.cu -lcuda || exit 1
ptxas -arch=sm_90 -O0 "$p.base.ptx" -o "/tmp/$p.O0.cubin" || exit 1
/tmp/ldr "/tmp/$p.O0.cubin" $entries >"/tmp/$p.ref"
for v in base "$@"; do
    /tmp/ldr "$p.$v.ptx" $entries >"/tmp/$p.$v.out"
    paste "/tmp/$p.ref" "/tmp/$p.$v.out" |
        awk -v v="$v" '{printf "%s:%s ", $1, ($3 == $6 ? "ok" : "BAD")} END {print "<- " v}'
done

#!/usr/bin/env python3
"""Registers, spills and the SASS instruction mix of the tensor-core kernels: each oxide kernel
entry (its PTX through ptxas) next to its nvcc twin's (the twin's device code through nvcc
-cubin), for the suite's table (issue 21: "registers and spills next to the twin's, the SASS
instruction mix (HMMA, LDSM, LDGSTS)").

Usage: python3 sass_mix.py SUITE_DIR [KERNEL ...]   (default kernels: hgemm flash_attn)
SUITE_DIR is the suite's folder (ptx/<kernel>.ptx, twins/<kernel>.cu). Needs ptxas and nvcc,
and cuobjdump or nvdisasm, on PATH; ARCH (default sm_90) and NVCC_FLAGS (extra flags, such as
include folders) from the environment. Prints one line a kernel entry:
`sass <kernel> <oxide|nvcc> <entry> regs <n> spill <stores>/<loads> instrs <n> HMMA <n> LDSM <n>
LDGSTS <n> LDS <n> STS <n> LDG <n> STG <n> local <n>`, the counts static (instructions in the
entry's code, not executions), `local` its LDL and STL.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

COUNTED = ("HMMA", "LDSM", "LDGSTS", "LDS", "STS", "LDG", "STG")


def run(cmd):
    """The command's stdout and stderr together; its failure as an exception naming it."""
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)}: exit {done.returncode}: {done.stderr.strip()[-400:]}")
    return done.stdout + done.stderr


def resources(ptxas_log):
    """{entry: (registers, spill stores, spill loads)} from `ptxas -v` output: each entry's own
    "Function properties" line (those of the functions it calls follow under their names)."""
    found, entry, properties = {}, None, None
    for line in ptxas_log.splitlines():
        m = re.search(r"Compiling entry function '([^']+)'", line)
        if m:
            entry = m.group(1)
            found[entry] = (None, 0, 0)
            continue
        m = re.search(r"Function properties for (\S+)", line)
        if m:
            properties = m.group(1)
            continue
        m = re.search(r"(\d+) bytes spill stores, (\d+) bytes spill loads", line)
        if m and entry and properties == entry:
            found[entry] = (found[entry][0], int(m.group(1)), int(m.group(2)))
        m = re.search(r"Used (\d+) registers", line)
        if m and entry:
            found[entry] = (int(m.group(1)), *found[entry][1:])
    return found


def disassemble(cubin):
    """{entry: [opcode, ...]} of a cubin, by cuobjdump -sass or else nvdisasm."""
    functions, name = {}, None
    if shutil.which("cuobjdump"):
        text = run(["cuobjdump", "-sass", cubin])
        header = re.compile(r"^\s*Function : (\S+)")
    else:
        text = run(["nvdisasm", "-c", cubin])
        header = re.compile(r"^\s*\.text\.(\S+):")
    for line in text.splitlines():
        m = header.match(line)
        if m:
            name = m.group(1)
            functions[name] = []
            continue
        m = re.search(r"/\*[0-9a-f]{4,}\*/\s+(@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)", line)
        # `@!PT` never executes: ptxas's placeholders (`@!PT LDS RZ, [RZ]` beside cp.async).
        if m and name is not None and (m.group(1) or "").strip() != "@!PT":
            functions[name].append(m.group(2))
    return functions


def demangled(name):
    """A C++ entry's readable name without its return type and parameters (the twins'
    templates: `flash_attn<128>`), else the name."""
    if shutil.which("c++filt") and name.startswith("_Z"):
        full = run(["c++filt", name]).strip()
        return re.sub(r"^void ", "", full[: full.rfind("(")] if "(" in full else full).replace(" ", "")
    return name


def report(kernel, side, log, functions):
    for entry, (regs, stores, loads) in sorted(resources(log).items()):
        ops = [op.split(".")[0] for op in functions.get(entry, [])]
        counts = " ".join(f"{c} {ops.count(c)}" for c in COUNTED)
        local = ops.count("LDL") + ops.count("STL")
        print(
            f"sass {kernel} {side} {demangled(entry)} regs {regs} spill {stores}/{loads} "
            f"instrs {len(ops)} {counts} local {local}"
        )


def main():
    suite = sys.argv[1]
    kernels = sys.argv[2:] or ["hgemm", "flash_attn"]
    arch = os.environ.get("ARCH", "sm_90")
    extra = os.environ.get("NVCC_FLAGS", "").split()
    with tempfile.TemporaryDirectory() as work:
        for kernel in kernels:
            cubin = os.path.join(work, f"{kernel}.cubin")
            log = run(["ptxas", f"-arch={arch}", "-v", os.path.join(suite, "ptx", f"{kernel}.ptx"), "-o", cubin])
            report(kernel, "oxide", log, disassemble(cubin))
            twin = os.path.join(suite, "twins", f"{kernel}.cu")
            cubin = os.path.join(work, f"{kernel}-nvcc.cubin")
            log = run(["nvcc", "-O3", f"-arch={arch}", "-cubin", "-Xptxas", "-v", *extra, twin, "-o", cubin])
            report(kernel, "nvcc", log, disassemble(cubin))


if __name__ == "__main__":
    main()

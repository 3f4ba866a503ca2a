"""Which llama.cpp build `make install` compiles for this CPU: its CMake flags and the name of its wheel cache.

    python3 packaging/llama_build.py --cmake      # -DGGML_NATIVE=OFF -DGGML_AVX2=ON ... [-DGGML_AVX512=ON ...]
    python3 packaging/llama_build.py --variant    # avx2, or avx512 with its extensions: avx512-vbmi-vnni-bf16

Prompt evaluation dominates the time to the first token, and on a CPU with AVX-512 an AVX-512 build evaluates the
prompt about 1.5 times as fast as the AVX2 one (``benchmarks/cpu_build.py``). The flags are named one by one, never
``-march=native``: a native build on a CPU with AMX (Sapphire Rapids) compiles ggml's AMX kernels, which crashed at
the first token there, and these flags never enable them. A CPU without AVX2 gets the AVX2 build's name and flags
too, and `make install`'s first-token check then says so. Runs on the system Python, before the venv exists.
"""

from __future__ import annotations

import sys
from pathlib import Path

BASE = ("-DGGML_NATIVE=OFF", "-DGGML_AVX2=ON", "-DGGML_FMA=ON", "-DGGML_F16C=ON", "-DGGML_BMI2=ON")
AVX512 = ("avx512f", "avx512cd", "avx512vl", "avx512dq", "avx512bw")  # what ggml's GGML_AVX512 compiles for
EXTENSIONS = (("avx512vbmi", "vbmi", "-DGGML_AVX512_VBMI=ON"), ("avx512_vnni", "vnni", "-DGGML_AVX512_VNNI=ON"),
              ("avx512_bf16", "bf16", "-DGGML_AVX512_BF16=ON"))


def cpu_flags(cpuinfo: str) -> set[str]:
    """The feature flags of the first CPU in a /proc/cpuinfo text.

    >>> sorted(cpu_flags("processor : 0\\nflags : fpu avx2 avx512f\\n\\nprocessor : 1\\nflags : fpu sse\\n"))
    ['avx2', 'avx512f', 'fpu']
    """
    for line in cpuinfo.splitlines():
        name, _, value = line.partition(":")
        if name.strip() == "flags":
            return set(value.split())
    return set()


def build(flags: set[str]) -> tuple[str, list[str]]:
    """The build's name and CMake flags for a CPU with these feature flags: AVX-512 with the extensions it has when it
    has all of AVX-512's base parts, else AVX2.

    >>> build({"avx2", "fma"})
    ('avx2', ['-DGGML_NATIVE=OFF', '-DGGML_AVX2=ON', '-DGGML_FMA=ON', '-DGGML_F16C=ON', '-DGGML_BMI2=ON'])
    >>> name, cmake = build({"avx2", *AVX512, "avx512_vnni"})  # Cascade Lake
    >>> name, cmake[5:]
    ('avx512-vnni', ['-DGGML_AVX512=ON', '-DGGML_AVX512_VNNI=ON'])
    >>> build({"avx2", "avx512f"})[0]  # part of AVX-512 only (Knights Landing lacks BW and VL)
    'avx2'
    """
    if not set(AVX512) <= flags:
        return "avx2", list(BASE)
    extensions = [(short, flag) for cpu, short, flag in EXTENSIONS if cpu in flags]
    return "-".join(["avx512", *(short for short, _ in extensions)]), [*BASE, "-DGGML_AVX512=ON",
                                                                      *(flag for _, flag in extensions)]


def main(argv: list[str]) -> int:
    try:
        flags = cpu_flags(Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace"))
    except OSError:  # not Linux: the portable AVX2 build
        flags = set()
    name, cmake = build(flags)
    if argv == ["--variant"]:
        print(name)
    elif argv == ["--cmake"]:
        print(" ".join(cmake))
    else:
        print("usage: llama_build.py --variant | --cmake", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""`make install`'s choice of llama.cpp build for this CPU (packaging/llama_build.py, run by the system Python)."""

import doctest
import importlib.util
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "packaging" / "llama_build.py"


def load():
    spec = importlib.util.spec_from_file_location("llama_build", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_its_worked_examples_hold():
    result = doctest.testmod(load())
    assert result.failed == 0 and result.attempted >= 5


def test_an_epyc_zen4_gets_avx512_with_every_extension_and_never_amx_or_native():
    llama_build = load()
    flags = llama_build.cpu_flags("flags\t\t: fpu sse4_2 avx avx2 fma f16c bmi2 avx512f avx512dq avx512ifma avx512cd "
                                  "avx512bw avx512vl avx512_bf16 avx512vbmi avx512_vbmi2 avx512_vnni amx_tile\n")
    name, cmake = llama_build.build(flags)
    assert name == "avx512-vbmi-vnni-bf16"
    assert cmake[-4:] == ["-DGGML_AVX512=ON", "-DGGML_AVX512_VBMI=ON", "-DGGML_AVX512_VNNI=ON", "-DGGML_AVX512_BF16=ON"]
    assert "-DGGML_NATIVE=OFF" in cmake and not any("AMX" in flag for flag in cmake)  # AMX crashed on Sapphire Rapids


def test_the_command_prints_one_line_for_make_and_a_usage_line_for_anything_else():
    for option in ("--variant", "--cmake"):
        done = subprocess.run([sys.executable, str(SCRIPT), option], capture_output=True, text=True)
        assert done.returncode == 0 and len(done.stdout.splitlines()) == 1 and done.stdout.strip()
    cmake = subprocess.run([sys.executable, str(SCRIPT), "--cmake"], capture_output=True, text=True).stdout
    assert cmake.startswith("-DGGML_NATIVE=OFF -DGGML_AVX2=ON")
    wrong = subprocess.run([sys.executable, str(SCRIPT), "--native"], capture_output=True, text=True)
    assert wrong.returncode == 2 and wrong.stderr.startswith("usage:")

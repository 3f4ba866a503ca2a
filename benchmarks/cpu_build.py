"""What one llama.cpp build buys over another on this CPU: the one `make install` made, beside others.

    python benchmarks/cpu_build.py WHEEL [WHEEL ...] [--json] [--rounds 3]

`make install` builds for the CPU's vector units (AVX-512 where it has it, else AVX2: packaging/llama_build.py).
Each WHEEL is a llama-cpp-python wheel built with other flags (for example the AVX2 build, kept by `make install` in
``~/.cache/repobot/wheels/llama-cpp-python-0.3.36-avx2/`` when it built that one, or
``CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON -DGGML_AVX512=ON"
pip wheel --no-deps llama-cpp-python==0.3.36``). It is unpacked into a temporary folder, never installed, and run in
a child process beside the installed build, which is the bare library as `make install` built it. Each child loads
the default model with RepoBot's settings (a thread per physical core, its batch size and flash attention) and
measures prompt evaluation of the same 1,000 tokens of the httpx docs, then greedy decoding of 64 tokens; the
builds alternate over ``--rounds`` rounds and the figures are medians. In the first round each build also answers a
few questions put with a docs page (greedy): other vector code rounds differently, so the count of answers
identical to the installed build's says whether it would answer as the installed one does. The features llama.cpp
reports it was built with are printed beside each, so a build that does not use a unit says so.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.common import machine, parse_args, show  # noqa: E402

CHILD = r"""
import json, re, sys
from pathlib import Path
if sys.argv[1]:
    sys.path.insert(0, sys.argv[1])
import llama_cpp
from benchmarks.quant_speed import answers, speed
prompt, decode = speed(Path(sys.argv[2]), Path(sys.argv[3], "quickstart.md").read_text(encoding="utf-8"))
said = answers(Path(sys.argv[2]), Path(sys.argv[3])) if sys.argv[4] == "answers" else []
features = re.findall(r"(\w+) = 1", llama_cpp.llama_print_system_info().decode())
print(json.dumps({"from": llama_cpp.__file__, "prompt": prompt, "decode": decode, "answers": said,
                  "features": features}))
"""


def measure(folder: str, model: Path, corpus: Path, with_answers: bool) -> dict:
    """One child's figures for the build in ``folder`` ("" for the installed one), and its greedy answers to a few
    questions put with a docs page when ``with_answers``."""
    done = subprocess.run([sys.executable, "-c", CHILD, folder, str(model), str(corpus),
                           "answers" if with_answers else ""], capture_output=True,
                          text=True, cwd=Path(__file__).resolve().parents[1])
    if done.returncode:
        raise SystemExit(f"the build in {folder or 'the venv'} failed: {done.stderr.strip().splitlines()[-1:]}")
    result = json.loads(done.stdout.strip().splitlines()[-1])
    if folder and not result["from"].startswith(folder):
        raise SystemExit(f"the child imported {result['from']}, not the build unpacked in {folder}")
    return result


def main() -> int:
    def extra(parser):
        parser.add_argument("wheels", nargs="+", help="llama-cpp-python wheels built with other flags")
        parser.add_argument("--rounds", type=int, default=3)

    args = parse_args("httpx", __doc__, extra)
    from repobot.engine.models import default_model_path

    model = default_model_path()
    if not model.is_file():
        print(f"benchmark skipped: no model at {model} (run `make install`)", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="repobot-build-") as tmp:
        builds = {"installed (make install)": ""}
        for n, wheel in enumerate(args.wheels):
            folder = Path(tmp) / f"build{n}"
            with zipfile.ZipFile(wheel) as archive:
                archive.extractall(folder)
            builds[f"{Path(wheel).parent.name}/{Path(wheel).name}"] = str(folder)  # their names are all alike
        runs: dict[str, list[dict]] = {name: [] for name in builds}
        for r in range(args.rounds):
            for name in (list(builds) if r % 2 == 0 else list(builds)[::-1]):
                runs[name].append(measure(builds[name], model, Path(args.corpus), with_answers=r == 0))
                print(f"round {r + 1}: {name}: prompt {runs[name][-1]['prompt']:.1f}, "
                      f"decode {runs[name][-1]['decode']:.1f} tokens/s", file=sys.stderr)
    installed = runs["installed (make install)"]
    base = statistics.median(run["prompt"] for run in installed)
    result = {"machine": machine(), "model": model.name, "prompt_tokens": 1000, "rounds": args.rounds}
    for name, measured in runs.items():
        prompt = statistics.median(run["prompt"] for run in measured)
        result[name] = {"prompt_tokens_per_s": round(prompt, 1),
                        "decode_tokens_per_s": round(statistics.median(run["decode"] for run in measured), 1),
                        "prompt_vs_installed": round(prompt / base, 2),
                        "same_answers": f"{sum(a == b for a, b in zip(installed[0]['answers'], measured[0]['answers']))}"
                                        f" of {len(measured[0]['answers'])}",
                        "features": " ".join(measured[0]["features"])}
    show(result, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())

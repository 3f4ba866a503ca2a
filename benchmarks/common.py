"""What the benchmark scripts share: the shared corpora, percentiles and a description of the machine."""

from __future__ import annotations

import argparse
import os
import platform
import sys
from pathlib import Path

SHARED = Path(__file__).resolve().parents[2] / "shared" / "corpora"

# Questions in a user's words for the speed figures on the httpx docs (English, with a Chinese and a French one).
HTTPX_QUESTIONS = [
    "Does httpx follow redirects by default?",
    "What is the default timeout?",
    "How do I disable SSL verification?",
    "How do I use an HTTP proxy?",
    "Does httpx have built-in retries?",
    "How do I enable HTTP/2?",
    "How do I stream a large download?",
    "What is the equivalent of requests.Session?",
    "How do I set a base URL on a client?",
    "How can I mock responses in tests?",
    "How do I limit the number of connections?",
    "httpx 默认会自动跟随重定向吗？怎么开启？",
    "Comment utiliser un proxy avec httpx ?",
]

# Questions in another language than the httpx docs' (each is rewritten into English first, and a checked answer
# is translated back): the speed of the lesson's headline case, a Chinese question over English docs.
OTHER_LANGUAGE_QUESTIONS = [
    "httpx 默认会自动跟随重定向吗？怎么开启？",
    "httpx 的默认超时是多少秒？",
    "怎么让 httpx 不校验证书？",
    "httpx 怎么设置代理？",
    "Comment utiliser un proxy avec httpx ?",
    "Comment désactiver la vérification SSL dans httpx ?",
    "httpx で HTTP/2 を有効にするには？",
    "httpx でタイムアウトを設定する方法は？",
]


def parse_args(corpus: str, description: str, extra=None) -> argparse.Namespace:
    """Parse --corpus (default: ../shared/corpora/<corpus>/docs) and --json; exit 2 with a reason if it is absent."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--corpus", default=str(SHARED / corpus / "docs"))
    parser.add_argument("--json", action="store_true")
    if extra:
        extra(parser)
    args = parser.parse_args()
    if not Path(args.corpus).is_dir():
        print(f"benchmark skipped: no corpus at {args.corpus} (../shared is absent)", file=sys.stderr)
        raise SystemExit(2)
    return args


def percentile(values, q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q * (len(values) - 1))))]


def machine() -> str:
    """The CPU, its vector extensions that matter for these figures (AVX2, AVX-512, VNNI), cores and Python."""
    cpu, flags = platform.machine(), set()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            for line in fh:
                if line.startswith("model name") and cpu == platform.machine():
                    cpu = line.split(":", 1)[1].strip()
                elif line.startswith("flags") and not flags:
                    flags = set(line.split(":", 1)[1].split())
    except OSError:
        pass
    named = {"avx2": "AVX2", "avx512f": "AVX-512", "avx512_vnni": "AVX-512 VNNI", "avx_vnni": "AVX-VNNI"}
    found = [label for flag, label in named.items() if flag in flags] or ["no AVX2"]
    return f"{cpu} ({', '.join(found)}), {os.cpu_count()} logical cores, Python {platform.python_version()}"


def show(result: dict, as_json: bool) -> None:
    import json

    print(json.dumps(result, indent=2) if as_json else "\n".join(f"{k:>24}: {v}" for k, v in result.items()))

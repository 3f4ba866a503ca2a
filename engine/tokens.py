"""Tokens: the words BM25 and the checkers compare, in any language.

A code identifier is kept whole and also split into its parts, so a query for
``follow_redirects`` or for ``redirects`` both match. CJK runs become single
characters plus bigrams (there are no spaces to split on). Plain words are
lower-cased and lightly stemmed; stop words of every answer language are dropped.

>>> tokenize("Use httpx.Client(follow_redirects=True)")
['use', 'httpx.client', 'httpx', 'client', 'follow_redirects', 'follow', 'redirect', 'true']
>>> tokenize("默认跟随重定向")
['默', '认', '跟', '随', '重', '定', '向', '默认', '认跟', '跟随', '随重', '重定', '定向']
>>> tokenize("FastAPIでWebSocket")  # no space between scripts, as Chinese and Japanese are often written
['fastapi', 'で', 'websocket']
"""

from __future__ import annotations

import re
import unicodedata

from .languages import STOPWORDS
from .text import CITATION, CJK

_WORD = rf"[^\W{CJK}]"  # a word character that is not CJK: a Latin word ends where a CJK run begins
_TOKEN = re.compile(rf"[{CJK}]+|(?!_){_WORD}(?:{_WORD}|[.\-])*(?<![_.\-])|_{_WORD}+", re.UNICODE)
_CJK_RUN = re.compile(rf"^[{CJK}]+$")
_SPLIT_PARTS = re.compile(r"[._\-]+")


def stem(word: str) -> str:
    """A deliberately small stemmer for English plurals and verb forms.

    >>> [stem(w) for w in ["redirects", "following", "enabled", "enable", "class", "status"]]
    ['redirect', 'follow', 'enabl', 'enabl', 'class', 'status']
    """
    if not word.isalpha() or len(word) <= 4:
        return word
    for suffix in ("ing", "ed", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            if suffix == "s" and word.endswith(("ss", "us", "is")):
                return word
            if suffix == "es" and not word.endswith(("ses", "xes", "ches", "shes")):
                continue
            return word[: -len(suffix)]
    return word[:-1] if word.endswith("e") and len(word) > 5 else word


def cjk_grams(run: str) -> list[str]:
    """Unigrams then bigrams of a CJK run.

    >>> cjk_grams("重定向")
    ['重', '定', '向', '重定', '定向']
    """
    return list(run) + [run[i : i + 2] for i in range(len(run) - 1)]


def tokenize(text: str) -> list[str]:
    """Lower-cased BM25 tokens of any text; stop words dropped."""
    text = unicodedata.normalize("NFKC", text).lower()
    out: list[str] = []
    for token in _TOKEN.findall(text):
        if _CJK_RUN.match(token):
            out.extend(cjk_grams(token))
            continue
        token = token.strip(".-")
        if not token or token in STOPWORDS:
            continue
        parts = [p for p in _SPLIT_PARTS.split(token) if p]
        if len(parts) > 1:
            out.append(token)
            out.extend(stem(p) for p in parts if p not in STOPWORDS)
        else:
            out.append(stem(token))
    return out


COMMON = 0.2  # a word in more than this share of a folder's chunks says nothing of which part of it one means …
COMMON_FROM = 50  # … once there are this many chunks to tell (in a handful, every word looks common)


def common_share(size: int) -> float:
    """The share of chunks above which a word is common in a folder of ``size`` chunks (none is, in a handful).

    >>> common_share(900), common_share(12)
    (0.2, 1.0)
    """
    return COMMON if size >= COMMON_FROM else 1.0


GENERIC = frozenset(tokenize("use using used can way also doc documentation default option set"))


def content_words(text: str) -> set[str]:
    """The words that carry a sentence's meaning: tokens minus citations, generic words and single letters.

    >>> sorted(content_words("Redirects are not followed by default [1]."))
    ['follow', 'not', 'redirect']
    """
    return {t for t in tokenize(CITATION.sub(" ", text)) if t not in GENERIC and len(t) > 1}

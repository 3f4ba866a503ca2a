"""Names: the code identifiers and numbers a sentence names, which the checker, the gate and the quotes compare, and
whether a text names a term as a whole word (``word_in``, ``named_in``).

>>> identifiers("Set `follow_redirects=True` on httpx.Client, or see HTTP/3.")
['follow_redirects=True', 'httpx.Client', 'HTTP/3']
>>> sorted(numbers("Five seconds, or 10 at most."))
['10', '5']
"""

from __future__ import annotations

import re
from typing import Sequence

from .text import CITATION, inline_code, strip_inline_code

_IDENT = re.compile(
    r"[A-Za-z_]\w*(?:\.\w+)+(?:\(\))?"  # httpx.Client, response.next_request()
    r"|(?<![\w/])[A-Za-z]+/\d+(?:\.\d+)?(?![\w/])|[A-Z]{2,}/[A-Z0-9]+"  # HTTP/3, HTTP/1.1, TCP/IP (not "and/or", "4xx/5xx")
    r"|[A-Za-z]*_\w+(?:=\w+)?"  # follow_redirects, follow_redirects=True
    r"|[a-z]+[A-Z]\w*|[A-Z][a-z]+[A-Z]\w*"  # camelCase, CamelCase
    r"|\b\d{2,}\b",  # numbers like 503 or 2048
    re.ASCII,  # a name ends where the letters of another script begin ("FastAPIで…")
)


# Markdown emphasis with underscores around words ("_on every request_"): not a name; "__init__" has no space inside
_EMPHASIS = re.compile(r"(?<!\w)(_{1,2})(?=\S)([^_\n]*?\s[^_\n]*?)(?<=\S)\1(?!\w)")


def identifiers(sentence: str) -> list[str]:
    """Code identifiers and numbers named in a sentence, in order, without repeats.

    >>> identifiers("Catch 4xx/5xx on HTTP/1.1 with response.raise_for_status(), not HTTP/3.")
    ['HTTP/1.1', 'response.raise_for_status', 'HTTP/3']
    >>> identifiers("Set custom headers _on every request_ with __init__ or __very bold__.")
    ['__init__']
    """
    text = _EMPHASIS.sub(r"\2", CITATION.sub(" ", sentence))
    found = [m.strip() for m in inline_code(text)] + _IDENT.findall(strip_inline_code(text))
    out: list[str] = []
    for item in found:
        item = item.strip(".,;:()")
        if item and item not in out:
            out.append(item)
    return out


_SPACE_BY_MARK = re.compile(r"\s*([^\w\s])\s*")


def normalise_name(text: str) -> str:
    """Text compared the way a name is: up to case and the spaces beside punctuation, but not those between words.

    ``verify = False`` is ``verify=False``; "a certificate store" does not name ``CertificateStore``.

    >>> normalise_name("client.get(url, follow_redirects = True)"), normalise_name("A certificate  store")
    ('client.get(url,follow_redirects=true)', 'a certificate store')
    """
    return _SPACE_BY_MARK.sub(r"\1", re.sub(r"\s+", " ", text)).strip().lower()


_NUMBER_WORDS = {w: str(n) for n, w in enumerate("zero one two three four five six seven eight nine ten eleven twelve".split())}
# French "un" is left out: it is the indefinite article far more often than the number ("un proxy").
_NUMBER_WORDS |= {"hundred": "100", "thousand": "1000", "deux": "2", "trois": "3", "cinq": "5", "dix": "10"}
_NUMBER = re.compile(r"(?<![\w./])\d+(?:\.\d+)?(?!\w|\.\w)|\b(?:" + "|".join(_NUMBER_WORDS) + r")\b", re.I)
_CJK_NUMBER = re.compile(r"(?<=[^\x00-\x7f])\d+(?:\.\d+)?|(?<![\w./])\d+(?:\.\d+)?(?=[^\x00-\x7f])")
_LIST_MARKER = re.compile(r"^[ \t>*-]*\d+[.)][ \t]+", re.M)


def numbers(text: str) -> set[str]:
    """Numbers in a text, written as digits or as English or French words (``5秒`` counts too).

    >>> sorted(numbers("The default is five seconds, or 10 with `max_connections=10`; HTTP/2. 5秒"))
    ['10', '5']
    >>> sorted(numbers("The pool holds 100. Python 3.9+ and v1.2 are versions.")), sorted(numbers("版本 3.9"))
    (['100', '3.9'], ['3.9'])
    >>> numbers("2. **Use `proxy`**: HTTP/2。"), numbers("1) Set a timeout")  # list markers and HTTP/2 are not numbers
    (set(), set())
    >>> numbers("Passez un proxy au client."), numbers("Réessayez trois fois.")  # "un" is an article
    (set(), {'3'})
    """
    text = _LIST_MARKER.sub("", CITATION.sub(" ", text))
    found = {_NUMBER_WORDS.get(m.lower(), m) for m in _NUMBER.findall(text)}
    return found | set(_CJK_NUMBER.findall(text))


# The empty string, in words or written out: a value a sentence gives as a number is one ("Set SSL_CERT_FILE to an
# empty string" read close to a passage on SSL_CERT_FILE that says no such thing).
_EMPTY_STRING = re.compile(r"\bempty string\b|\bcha[iî]ne vide\b|空字符串|空の?文字列|(?<![\w\"'])(?:\"\"|'')(?![\w\"'])", re.I)


def values(text: str) -> set[str]:
    """The values a text gives: its ``numbers``, and ``""`` for the empty string (in words or written out).

    >>> sorted(values("Set SSL_CERT_FILE to an empty string, or 5.")), values('os.environ["X"] = ""')
    (['""', '5'], {'""'})
    >>> values("设置为空字符串"), values("a string, not a value")
    ({'""'}, set())
    """
    return numbers(text) | ({'""'} if _EMPTY_STRING.search(text) else set())


# Words that judge one thing against another ("faster than requests"): a claim the passages must make in those words.
_COMPARISON = re.compile(
    r"\b(?:faster|slower|quicker|better|worse|outperforms?|superior|inferior|"
    r"(?:more|less)\s+(?:efficient|performant|reliable|secure|robust|scalable|stable))\b", re.I)


def comparisons(text: str) -> set[str]:
    """The judging comparisons an English text makes, lower-cased ("faster", "more efficient").

    A passage that mentions both things does not back a sentence that ranks them:
    "HTTPX is faster than requests" reads close to a page on the requests API.

    >>> sorted(comparisons("HTTPX is Faster than requests, and more efficient.")), comparisons("a larger pool")
    (['faster', 'more efficient'], set())
    >>> comparisons("provides a far more\\nefficient transport")  # a passage's line may break inside one
    {'more efficient'}
    """
    return {" ".join(m.lower().split()) for m in _COMPARISON.findall(CITATION.sub(" ", text))}


# Words whose opposite a passage may say instead: "item_id is optional" against a page saying it is required.
_OPPOSITE_PAIRS = (("optional", "required"), ("optional", "mandatory"), ("enabled", "disabled"),
                   ("enable", "disable"), ("allowed", "forbidden"), ("allowed", "disallowed"),
                   ("synchronous", "asynchronous"), ("automatically", "manually"), ("mutable", "immutable"),
                   ("ascending", "descending"))
OPPOSITES: dict[str, frozenset[str]] = {
    word: frozenset(b if a == word else a for a, b in _OPPOSITE_PAIRS if word in (a, b))
    for word in {w for pair in _OPPOSITE_PAIRS for w in pair}
}


def plain_words(text: str) -> set[str]:
    """The lower-cased words of a text's prose, as written (not stemmed), a hyphenated word kept whole; citations
    and inline code left out.

    >>> sorted(plain_words("A `non-blocking` call is Optional [2], a non-blocking one too."))
    ['a', 'call', 'is', 'non-blocking', 'one', 'optional', 'too']
    """
    return set(re.findall(r"[a-z]+(?:-[a-z]+)*", strip_inline_code(CITATION.sub(" ", text)).lower()))


def opposed(sentence_words: set[str], units: Sequence[set[str]], negations: Sequence[bool]) -> list[str]:
    """The words of a sentence (``plain_words``) whose opposite a passage says instead, in a sentence that is not
    negative, while the passage never uses the word itself: the passage does not back it, whatever else they share.

    >>> opposed({"item_id", "is", "optional"}, [{"item_id", "is", "required"}], [False])
    ['optional']
    >>> opposed({"optional"}, [{"not", "required"}], [True]), opposed({"optional"}, [{"required"}, {"optional"}], [False, False])
    ([], [])
    """
    used = set().union(*units) if units else set()
    return sorted(word for word in sentence_words & OPPOSITES.keys() if word not in used
                  and any(OPPOSITES[word] & unit and not negative for unit, negative in zip(units, negations)))


def unmade_rankings(question: str, passages: Sequence[str]) -> list[str]:
    """The rankings a question asks about that no passage makes: an answer that makes one is about what the
    documents do not say (the lesson's "Is httpx faster than requests?").

    >>> unmade_rankings("Is httpx faster than requests?", ["HTTPX is broadly compatible with requests."])
    ['faster']
    >>> unmade_rankings("Is it faster?", ["HTTP/2 can be faster."]), unmade_rankings("Can it retry?", [])
    ([], [])
    """
    return sorted(comparisons(question).difference(*(comparisons(p) for p in passages)))


def word_in(term: str, text: str) -> bool:
    """``term`` in lower-cased ``text`` as a whole word (so ``AD`` is not found inside ``read``).

    >>> word_in("AD", "we read the ad."), word_in("HTTP/3", "no http/3 here"), word_in("AD", "read")
    (True, True, False)
    """
    pattern = r"(?<![a-z0-9_])" + re.escape(term.lower()) + r"(?![a-z0-9_])"
    return re.search(pattern, text) is not None


def named_in(terms: Sequence[str], text: str) -> list[str]:
    """The ``terms`` that ``text`` names as whole words, ignoring case.

    >>> named_in(["Datadog", "AD", "LDAP"], "Send traces to datadog; read the docs.")
    ['Datadog']
    """
    lowered = text.lower()
    return [t for t in terms if word_in(t, lowered)]

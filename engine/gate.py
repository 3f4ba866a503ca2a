"""The "not found" gate: refuse before generating only when the thing asked about is not in the documents.

A question names specific things (key terms): code identifiers, versioned
names such as ``HTTP/3``, acronyms (``gRPC``, ``LDAP``), capitalised names
(``Kerberos``). A key term absent from the *whole* corpus is either what the
question is about ("Does httpx support HTTP/3?") or a detail of the user's own
situation ("… without making them wait for the SMTP call"). The rest of the
question tells them apart: when its informative words (not question words, and,
in a corpus of 50 chunks or more, not words found in over a fifth of them) are
found in the retrieved passages, the absent term is a bystander and the model
gets to try; it has its escape phrase, and the checker stands behind it.

Details of the user's own setup are never key terms: addresses (URLs, host
names, ``host:port``), quantities (ports, sizes, durations, versions such as
``3128``, ``5GB``, ``3.8``) and the errors Python itself raised for them
(``TypeError``, ``AttributeError``). A term is present when the documents have
it, its stem (``POSTing`` -> ``POST``), for a dotted name its attribute
(``client.delete`` -> ``delete``: the variable is the user's own), and for a
call or a keyword its name (``iter_content(chunk_size=8192)`` -> ``iter_content``).

Words are judged in the documents' language: a question in another language
is judged through its rewrite (``engine/rewrite.py``), never by its own
character bigrams. Only a name the user wrote can be missing: one that only
the rewrite gives is the model's guess.

>>> key_terms("Does httpx support HTTP/3?")
['HTTP/3']
>>> key_terms("Does HTTPX support Kerberos or NTLM over FTP?")
['HTTPX', 'Kerberos', 'NTLM', 'FTP']
>>> key_terms("FastAPI 怎么对接公司的 LDAP / AD 域账号登录？")
['FastAPI', 'LDAP', 'AD']
>>> key_terms("Our proxy at proxy.corp.local:3128 rejects my 5GB upload to https://api.example.com")
[]
"""

from __future__ import annotations

import builtins
import re
from typing import NamedTuple, Protocol, Sequence

from .names import identifiers, word_in
from .tokens import COMMON, common_share, content_words, tokenize

MIN_INFORMATIVE = 3  # covered informative words that make an absent key term a bystander (calibrated)
QUESTION_WORDS = frozenset(
    tokenize(
        "support supports supported work works use using make get does way possible need want like enable "
        "tell explain example feature built-in builtin automatically automatic how what which recommend "
        "recommended best simplest simple correct right proper properly able any there available "
        "comment faire peut-on existe-t-il utiliser fonctionne possible"
    )
)


class CorpusView(Protocol):
    """What the gate asks of the whole corpus (the index answers it)."""

    def has(self, term: str) -> bool:
        """Whether ``term`` appears anywhere in the documents (case-insensitive, as a whole word)."""

    def share(self, word: str) -> float:
        """The share of chunks that contain the token ``word``."""

    @property
    def size(self) -> int:
        """The number of chunks."""


class GateResult(NamedTuple):
    covered: bool
    missing: list[str]  # the key terms the documents lack, when refused
    informative: list[str]  # the question's informative words found in the passages
    # the names the documents lack, when let through (judged details of the user's): letters only, a product or a
    # protocol; a variable or file of the user's own (DATABASE_URL, q1.pdf) is never what a question is about
    bystanders: list[str] = []
    anchored: bool = True  # the question also names something specific the documents have (not only their own name)
    # the names the user wrote that the documents have, but none of the retrieved passages: letters only, each in at
    # most a fifth of the chunks ("Lambda", in FastAPI's release notes alone); no sentence naming one is backed here
    unseen: list[str] = []


_NAME = re.compile(
    r"(?<![A-Za-z0-9])[A-Z][A-Za-z]*[A-Z]\w*|(?<![A-Za-z0-9])[A-Z]{2,}\d*(?![A-Za-z0-9])|(?<=[\w,] )[A-Z][a-z]{2,}\b",
    re.ASCII,
)


_ADDRESS = re.compile(
    r"[a-z][\w+.-]*://\S*"  # a URL
    r"|[\w.-]+:\d{2,5}"  # host:port
    r"|(?:[a-z0-9-]+\.)+(?:com|org|net|io|dev|local|localhost|internal|lan|corp|intra|example|test|cn|jp|fr|de)",
    re.I | re.ASCII,
)
_QUANTITY = re.compile(r"\d+(?:[.,]\d+)*[A-Za-z]{0,3}")  # 3128, 5GB, 30s, 3.8, 10min


def is_user_detail(term: str) -> bool:
    """An address or a quantity from the user's own setup, or an error Python itself raised in it (``TypeError``),
    which says nothing of what the documents must cover.

    >>> [is_user_detail(t) for t in ("proxy.corp.local", "localhost:3000", "5GB", "3.8", "HTTP/3", "httpx.Client")]
    [True, True, True, True, False, False]
    >>> is_user_detail("AttributeError"), is_user_detail("HTTPStatusError")
    (True, False)
    """
    return bool(_ADDRESS.fullmatch(term) or _QUANTITY.fullmatch(term) or _python_error(term))


def _python_error(term: str) -> bool:
    found = getattr(builtins, term, None)
    return isinstance(found, type) and issubclass(found, BaseException)


def key_terms(question: str) -> list[str]:
    """Identifier-like terms and names of a question (plain words and the user's own details excluded)."""
    named = identifiers(question)
    addresses = [t for t in named + [m.group(0) for m in _ADDRESS.finditer(question)] if is_user_detail(t)]
    terms = [t for t in named if not is_user_detail(t) and not any(t in a for a in addresses)]
    names = [n for n in _NAME.findall(question) if not any(n in t for t in terms + addresses)]
    return list(dict.fromkeys(terms + names))


_SUFFIXES = ("ing", "ed", "es", "s")
_CALL = re.compile(r"\(.*\)$")


def present(term: str, corpus: CorpusView) -> bool:
    """Whether the documents name ``term``: as written, by its stem, or (a dotted name) by its attribute.

    >>> c = TextCorpus(["Send a POST with client.post() or delete()."])
    >>> [present(t, c) for t in ("POSTing", "session.delete", "HTTP/3", "posts.xml")]
    [True, True, False, False]

    A call's arguments and a keyword's value are the user's own:

    >>> [present(t, c) for t in ("r.delete(timeout=3)", "delete=yes", "remove=True")]
    [True, True, False]
    """
    if corpus.has(term):
        return True
    named = _CALL.sub("", term).split("=", 1)[0]
    if named != term and len(named) >= 3:
        return present(named, corpus)
    if term.isalpha() and len(term) >= 5:
        stems = [term[: -len(s)] for s in _SUFFIXES if term.lower().endswith(s)]
        if any(len(stem) >= 3 and corpus.has(stem) for stem in stems):
            return True
    parts = term.rstrip("()").split(".")
    return len(parts) > 1 and any(len(p) >= 3 and corpus.has(".".join(parts[i:])) for i, p in enumerate(parts) if i)


def gate(
    question: str, passages: Sequence[str], corpus: CorpusView, *, rewritten: str | None = None,
    same_language: bool = True, written: str | None = None,
) -> GateResult:
    """Whether to let the model try; ``rewritten`` is the question in the documents' language, if it was translated.

    Only what the user wrote (``written``, the question itself by default) can be missing: a name the rewrite
    alone gives is the model's guess, and so is one a follow-up's standalone rewrite adds (``question`` is then
    the rewrite, ``written`` the user's questions).

    >>> c = TextCorpus(["Iterate with response.iter_bytes() instead of iter_content().", "Streams.", "Clients."])
    >>> gate("r.iter_content 报错了，httpx 里叫什么？", ["Iterate with response.iter_bytes() instead of iter_content()."], c,
    ...      rewritten="In httpx, what replaces r.iter_content() for Parquet files?", same_language=False).covered
    True
    """
    if not passages:  # nothing to judge by: refuse, naming only the terms the documents lack
        missing = [t for t in key_terms(question) if not present(t, corpus)]
        return GateResult(False, missing or ["(no passages retrieved)"], [])
    terms = list(dict.fromkeys(key_terms(question) + (key_terms(rewritten) if rewritten else [])))
    # a name only the rewrite gives is the model's guess ("read_parquet" for a question on iter_content), not the user's
    said = (written if written is not None else question).lower()
    absent = [t for t in terms if not present(t, corpus) and t.lower() in said]
    judged = rewritten if rewritten else (question if same_language else "")
    absent_tokens = {tok for t in absent for tok in tokenize(t)}
    common = common_share(corpus.size)
    words = [
        w for w in content_words(judged)
        if w not in QUESTION_WORDS and w not in absent_tokens and corpus.share(w) <= common
    ]
    seen = TextCorpus(passages)
    passage_tokens = set().union(*seen.tokens)
    found = sorted(w for w in words if w in passage_tokens)
    if absent and len(found) < MIN_INFORMATIVE:
        return GateResult(False, absent, found)
    has = [t for t in terms if t not in absent]
    names = [t for t in absent if t.isalpha()]
    return GateResult(True, [], found, names, not absent or any(specific(t, corpus) for t in has),
                      unseen(has, seen, corpus, said))


def unseen(terms: Sequence[str], passages: CorpusView, corpus: CorpusView, said: str) -> list[str]:
    """The names among ``terms`` (letters only, ones the user wrote: ``said``) that are specific to a part of the
    documents (``specific``) yet in none of the retrieved ``passages``.

    "How do I run my FastAPI app on AWS Lambda?" found FastAPI Cloud's page, and the 0.5B wrote "You can deploy your
    FastAPI app to AWS Lambda with just one command", which read close enough to it to pass.

    >>> c = TextCorpus(["Deploy to FastAPI Cloud with one command.", "Release notes: AWS Lambda docs.", "Paths.",
    ...                 "Queries.", "Bodies."])
    >>> found = TextCorpus(["Deploy to FastAPI Cloud with one command."])
    >>> unseen(["FastAPI", "AWS", "Lambda"], found, c, "run fastapi on aws lambda?")
    ['AWS', 'Lambda']
    """
    return [t for t in terms if t.isalpha() and t.lower() in said and specific(t, corpus) and not present(t, passages)]


def specific(term: str, corpus: CorpusView) -> bool:
    """Whether a term the documents have says which part of them a question is about: one of its words is in at most
    a fifth of the chunks (``FastAPI`` in FastAPI's documentation says nothing; ``WSGITransport`` does).

    >>> c = TextCorpus(["HTTPX clients.", "HTTPX streams.", "HTTPX and WSGITransport.", "HTTPX timeouts.", "HTTPX."])
    >>> specific("HTTPX", c), specific("WSGITransport", c)
    (False, True)
    """
    return min((corpus.share(w) for w in tokenize(term)), default=1.0) <= COMMON


class TextCorpus:
    """A CorpusView over plain texts (tests, and small folders).

    >>> c = TextCorpus(["HTTPX follows redirects.", "Timeouts default to five seconds."])
    >>> c.has("httpx"), c.has("HTTP/3"), c.share("timeout")
    (True, False, 0.5)
    """

    def __init__(self, texts: Sequence[str]):
        self.text = "\n".join(texts).lower()
        self.tokens = [set(tokenize(t)) for t in texts]

    def has(self, term: str) -> bool:
        return word_in(term, self.text)

    def share(self, word: str) -> float:
        return sum(word in t for t in self.tokens) / len(self.tokens) if self.tokens else 0.0

    @property
    def size(self) -> int:
        return len(self.tokens)

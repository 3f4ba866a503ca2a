"""Examples: code in an answer against the passages' code blocks.

A code block of the model's answer is supported when a passage has it
(``copied_from``: line by line, REPL prompts, output lines and the user's own
URLs aside), and shown as the documents' own example when it adapts one
(``adapted_from``: a block that has each of its telling lines, or every name it uses, apart from the
question's; the likest in shape when several are). Pure functions of text;
``support`` uses them.

>>> copied_from("r = httpx.get('https://example.org')", ">>> r = httpx.get('https://www.example.com')\\n<Response [200 OK]>")
True
"""

from __future__ import annotations

import difflib
import re
from typing import Sequence

from .text import normalise_code

_REPL_PROMPT = re.compile(r"^[ \t]*(?:>>>|\.\.\.)(?: |$)", re.M)
_URL_STRING = re.compile(r"(['\"])[a-z][a-z0-9+.-]*://(?:\\.|(?!\1).)*\1")


def code_lines(code: str) -> list[str]:
    """A code block's lines as they are compared: without REPL prompts, blank lines, comments (at a line's end too),
    whitespace, or the URLs in string literals (the URL in an example is the user's own).

    >>> code_lines(">>> r = httpx.get('https://example.org', headers={'a': 'b'})\\n... \\n# fetch it\\n<Response [200 OK]>")
    ["r=httpx.get('',headers={'a':'b'})", '<Response[200OK]>']
    """
    return [squeezed for _, squeezed in _lines(code)]


def _lines(code: str) -> list[tuple[str, str]]:
    """Each line ``code_lines`` keeps: as written (without its prompt, its URLs and its comment), and as compared."""
    out = []
    for line in _REPL_PROMPT.sub("", code).splitlines():
        bare = without_comment(_URL_STRING.sub(lambda m: m.group(1) * 2, line))
        squeezed = normalise_code(bare)
        if squeezed and not squeezed.startswith("#"):
            out.append((bare, squeezed))
    return out


def without_comment(line: str) -> str:
    """A line of code without the comment at its end (a ``#`` after a space, outside a string).

    >>> without_comment("client = httpx.Client(timeout=10.0)  # Use a default 10s timeout."), without_comment("x = '#a'")
    ('client = httpx.Client(timeout=10.0)', "x = '#a'")
    """
    for match in re.finditer(r"\s#", line):
        before = line[:match.start()]
        if before.count("'") % 2 == 0 and before.count('"') % 2 == 0:
            return before.rstrip()
    return line


def copied_from(code: str, passage: str) -> bool:
    """True when the passage has the code: as one run of text, or line by line in the same order
    (the model may leave out a REPL session's output lines, not write lines of its own).

    >>> doc = ">>> auth = httpx.BasicAuth(username='finley', password='secret')\\n>>> client = httpx.Client(auth=auth)\\n<Client>"
    >>> copied_from("auth = httpx.BasicAuth(username='finley', password='secret')\\nclient = httpx.Client(auth=auth)", doc)
    True
    >>> copied_from("client = httpx.Client(auth=auth, verify=False)", doc)
    False
    """
    mine, theirs = code_lines(code), code_lines(passage)
    if not mine:
        return False
    if "".join(mine) in "".join(theirs):
        return True
    remaining = iter(theirs)
    return all(any(line == other for other in remaining) for line in mine)


_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|\d+")


def code_names(code: str) -> set[str]:
    """The names and numbers a code block uses (keywords too: they cancel out when two blocks are compared).

    >>> sorted(code_names("client = httpx.Client(timeout=5)"))
    ['5', 'Client', 'client', 'httpx', 'timeout']
    """
    return set(_NAME.findall(code))


def shape(code: str) -> str:
    """A code block's skeleton: every name and number as ``x``, without whitespace, what an adapted copy keeps.

    >>> shape("http://localhost:8000/items/?tag=a&tag=b") == shape("http://localhost:8000/items/?q=foo&q=bar")
    True
    >>> shape("client = httpx.Client(timeout=5)")
    'x=x.x(x=x)'
    """
    return re.sub(r"\s+", "", _NAME.sub("x", code))


def shape_likeness(code: str, block: str) -> float:
    """How alike two skeletons are, 0 to 1 (their first 400 characters).

    >>> shape_likeness("a = f(b=1)", "client = g(timeout=5)"), shape_likeness("u/?q=1", "u/")
    (1.0, 0.5)
    """
    mine, theirs = shape(code)[:400], shape(block)[:400]
    return difflib.SequenceMatcher(None, mine, theirs, autojunk=False).ratio()


def adapted_from(code: str, blocks: Sequence[str], question: str = "") -> int | None:
    """Which of the passages' code ``blocks`` the model's code adapts: of the blocks that use every name the code
    uses, apart from the user's own (words of the question), the one whose shape is likest the code's, then the
    smallest. None when no block does, or when fewer than three names are left to tell which block it adapts.

    A small model trims an example, renames a variable from the question or
    changes a literal; the documents' own block is then shown in its place. A
    name the model made up (``elapsed``, when no block has it) means no block.

    >>> blocks = ["def log(request):\\n    print(request.url)\\nclient = httpx.Client(event_hooks={'request': [log]})"]
    >>> adapted_from("client = httpx.Client(event_hooks={'request': [log]})", blocks)
    0
    >>> adapted_from("print(response.elapsed)\\nclient = httpx.Client()", blocks) is None
    True

    The user's own parameter in a URL keeps the query string's shape, so the
    block with one is chosen over the bare URL:

    >>> urls = ["http://localhost:8000/items/", "http://localhost:8000/items/?q=foo&q=bar"]
    >>> adapted_from("http://localhost:8000/items/?tag=a&tag=b", urls, "accept a list like ?tag=a&tag=b")
    1

    A block that has every line of the code that says something (``telling_lines``) comes first, even when the code
    adds a plain line of its own: "client = httpx.Client(timeout=10.0)" and "response = client.get(url)" adapt the
    timeouts page's client example, not the extensions page's block that also has ``get`` and ``timeout``. The
    headers example does not stand for code that sets ``base_url`` in it, though it has the code's other lines.

    >>> pages = ["client = httpx.Client()\\nresponse = client.get(url, extensions={'timeout': {'connect': 10.0}})",
    ...          "client = httpx.Client(timeout=10.0)  # Use a default 10s timeout everywhere."]
    >>> adapted_from("client = httpx.Client(timeout=10.0)\\nresponse = client.get('https://www.example.com/')", pages)
    1
    >>> adapted_from("with httpx.Client(base_url=url) as client:\\n    headers = {'user-agent': 'my-app/0.0.1'}",
    ...              ["headers = {'user-agent': 'my-app/0.0.1'}\\nwith httpx.Client(headers=headers) as client:"]) is None
    True
    """
    mine = code_names(code) - code_names(question)
    if len(mine) < 3:
        return None
    fits = [n for n, block in enumerate(blocks) if mine <= code_names(block)]
    own = telling_lines(code)
    holding = {n for n, block in enumerate(blocks) if own and own <= set(code_lines(block))}
    candidates = sorted(set(fits) | holding)
    if len(candidates) < 2:
        return candidates[0] if candidates else None
    return max(candidates, key=lambda n: (n in holding, round(shape_likeness(code, blocks[n]), 2),
                                          -len(code_names(blocks[n]))))


def telling_lines(code: str) -> set[str]:
    """The lines of a code block (as ``code_lines`` compares them) that use five names or more: lines that say
    something of their own, unlike ``r = client.get(url)`` or ``import httpx``.

    >>> sorted(telling_lines("import httpx\\nclient = httpx.Client(timeout=10.0)\\nr = client.get(url)"))
    ['client=httpx.Client(timeout=10.0)']
    >>> telling_lines("with httpx.Client(base_url=url) as client:")  # its names counted before spaces go
    {'withhttpx.Client(base_url=url)asclient:'}
    """
    return {squeezed for bare, squeezed in _lines(code) if len(code_names(bare)) >= 5}

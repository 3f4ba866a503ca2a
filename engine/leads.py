"""Leads: a line of the model's answer that leads into code, and the passage block it introduces.

The 0.5B often keeps a passage's "… like this:" and drops the code, or puts
another block under it. ``introduced_code`` finds the block the line
introduces in its passage, ``introduced_block`` shows that block in place of
another, and ``lead_alone`` ends a line whose code is not shown as a sentence
of its own, when a passage backs what it names (``answer.verified`` uses all
three).

>>> units = [Unit(1, 0, "Disable it completely...", False), Unit(1, 1, "get(url, verify=False)", True)]
>>> introduced_code(Support("Disable it completely [1].", [1], "supported", {1: 0.9}, None, ""), units).text
'get(url, verify=False)'
"""

from __future__ import annotations

from typing import Sequence

from .languages import LANGUAGES
from .quote import INTRODUCES
from .support import LEAD, SUPPORT_THRESHOLD, Support, Unit, shown_citations
from .text import cite, normalise_code, strip_citations
from .tokens import content_words

FEW_WORDS = 3  # a lead with no more content words than this says nothing of its own ("Here is an example:")
POINTERS = frozenset(p for lang in LANGUAGES.values() for p in lang.pointers)  # words that point back: "this", "它"
WIDE_POINTERS = tuple(p for p in POINTERS if p[0] >= "\u3000")  # written without spaces: a line starts with one
ENDED = "Supported: a passage backs what this line names; the code it led into was not shown, so it ends here."


def backing(s: Support) -> int | None:
    """The passage that best supports a line, if it reaches the support threshold; else None.

    >>> lead = Support("Use `pip`:", [], "exempt", {1: 0.2, 2: 0.8}, None, LEAD)
    >>> backing(lead), backing(lead._replace(support={})), backing(lead._replace(support={1: 0.1}))
    (2, None, None)
    """
    best = max(s.support, key=s.support.get, default=None)
    return best if best is not None and s.support[best] >= SUPPORT_THRESHOLD else None


def lead_alone(s: Support) -> Support | None:
    """A line that leads into code (or a list) that is not shown: dropped, unless a passage backs what it names; then
    it is shown as a sentence of its own, with that passage's id.

    >>> lead = Support("Raise it per request with `timeout=`:", [], "exempt", {2: 0.8}, None, LEAD)
    >>> lead_alone(lead).text, lead_alone(lead).cited_by, lead_alone(lead).status
    ('Raise it per request with `timeout=` [2].', 'checker', 'supported')
    >>> lead_alone(Support("Here is an example:", [], "exempt", {}, None, LEAD)) is None
    True
    """
    best = backing(s)
    if best is None:
        return None
    own = [] if s.cited_by == "checker" else s.cited  # the checker's id, given when it was shown as a lead
    ids, by = shown_citations(s._replace(cited=own, suggested=best))
    bare = strip_citations(s.text).rstrip()
    text = cite(bare[:-1] + ("。" if bare.endswith("：") else "."), ids)
    return s._replace(text=text, cited=ids, cited_by=by, status="supported", reason=ENDED)


def leads_on(s: Support) -> bool:
    """Whether a line leads into code only from the sentence before it, and so dangles when that one is not shown:
    no passage backs it, and it says next to nothing of its own ("For example:", "Par exemple :", "在代码中：") or
    points back ("This is particularly useful for two main use-cases:").

    >>> leads_on(Support("Par exemple :", [], "exempt", {}, None, LEAD))
    True
    >>> leads_on(Support("This is particularly useful for two main use-cases:", [], "exempt", {}, None, LEAD))
    True
    >>> leads_on(Support("Install SOCKS support with `pip` [2]:", [2], "exempt", {2: 0.79}, None, LEAD))
    False

    One that says what the code does stands on its own:

    >>> leads_on(Support("The correct way to stream a request body with the async client is:", [], "exempt", {},
    ...                  None, LEAD))
    False
    """
    if s.reason != LEAD or backing(s) is not None:
        return False
    text = strip_citations(s.text).strip()
    first = text.split(maxsplit=1)[0].lower() if text else ""
    return len(content_words(text)) <= FEW_WORDS or first in POINTERS or text.startswith(WIDE_POINTERS)


def introduced_code(s: Support, units: Sequence[Unit]) -> Unit | None:
    """The code block that the sentence a shown sentence repeats introduces, in its cited passage.

    The passage's sentence must lead into the code (it ends with ':' or '...'),
    or the shown sentence must; the model often keeps the sentence and drops the code.

    >>> units = [Unit(1, 0, "Disable it completely...", False), Unit(1, 1, "get(url, verify=False)", True)]
    >>> introduced_code(Support("You can disable it completely [1].", [1], "supported", {1: 0.9}, None, ""), units).text
    'get(url, verify=False)'
    """
    if s.is_code or not s.cited:
        return None
    bare = strip_citations(s.text).rstrip()
    words = content_words(bare)
    same = [u for u in units if u.pid == s.cited[0] and not u.is_code]
    best = max(same, key=lambda u: len(words & content_words(u.text)), default=None)
    if best is None or len(words & content_words(best.text)) < max(2, len(words) // 2):
        return None
    if not (bare.endswith(INTRODUCES) or best.text.rstrip().endswith(INTRODUCES)):
        return None
    after = next((u for u in units if u.pid == best.pid and u.position == best.position + 1), None)
    return after if after is not None and after.is_code else None


def introduced_block(before: Support, code: Support, units: Sequence[Unit], shown: Sequence[Support | None]) -> Support:
    """The code shown after a line: the block that line introduces in its passage (``introduced_code``), when the
    model put another block under it (of that passage or another); otherwise ``code`` as it is.

    Each is copied and each is backed, but together they mislead: "You can disable SSL verification completely…"
    over the page's example of the error that verification raises; "You can modify the default redirection handling
    with the `follow_redirects` parameter:" over the example before it, which has no ``follow_redirects``.

    >>> units = [Unit(1, 0, "By default it raises an error for invalid SSL...", False), Unit(1, 1, "get(bad)", True),
    ...          Unit(1, 2, "You can disable verification completely...", False),
    ...          Unit(1, 3, "get(bad, verify=False)", True)]
    >>> before = Support("You can disable verification completely... [1]", [1], "supported", {1: 0.9}, None, "")
    >>> introduced_block(before, Support("get(bad)", [], "supported", {1: 1.0}, 1, "", True), units, []).text
    'get(bad, verify=False)'
    """
    block = introduced_code(before, units)
    if block is None or normalise_code(block.text) == normalise_code(code.text):
        return code
    if shows_code(shown, block.text):
        return code  # shown already: the model's block stays rather than the same one twice
    return code._replace(text=block.text, example=block.text, suggested=block.pid, support={block.pid: 1.0},
                         reason=f"Copied from passage [{block.pid}]: the sentence before introduces it (the model put "
                                "another block here).")


def shows_code(shown: Sequence[Support | None], code: str) -> bool:
    """Whether this code block is among the shown lines already."""
    return any(x is not None and x.is_code and normalise_code(x.text) == normalise_code(code) for x in shown)

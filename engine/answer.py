"""Answer: choose what the user is shown from the checked model answer.

- ``verified``: the model's own answer, keeping only sentences a passage
  supports. A sentence the model left uncited, or cited wrongly, is shown with
  the passage that supports it, marked as cited by the checker. Code the
  model adapted from a passage's example is shown as that example. The quotes
  that say what it does not follow it, under their own label (``quote.also_quoted``).
- ``extractive``: the model's answer failed; the 1-4 passage sentences (and the
  code they introduce) that best answer the question are quoted, each with its [n]
  (``quote.py`` picks them).
- ``not_found``: the passages do not cover the question; the fixed phrase.

>>> s = Support("Off by default.", [], "uncited", {1: 0.9}, 1, "")
>>> choice = verified([s], "Off by default.")
>>> choice.text, choice.sentences[0].cited_by
('Off by default [1].', 'checker')
"""

from __future__ import annotations

import re
from typing import Callable, Collection, Sequence

from .check import is_escape
from .copied import without_directives, without_html, without_prompt_tags, without_tag_lines
from .languages import language
from .names import named_in
from .leads import backing, introduced_block, introduced_code, lead_alone, leads_on, shows_code
from .quote import Choice, also_quoted, extractive
from .support import HEADING, LEAD, NOT_SHOWN, UNBACKED_HEADING, Support, Unit, shown_citations
from .markup import strip_markup
from .text import cite, close_open_fence, drop_empty_code_blocks, normalise_code, outside_code, strip_citations

def claims(sentences: Sequence[Support]) -> list[Support]:
    return [s for s in sentences if s.status != "exempt"]


def is_backed(s: Support) -> bool:
    """Supported by a passage, whoever cited it (the model, or the checker's attribution)."""
    return s.status in ("supported", "miscited", "uncited")


def model_passes(sentences: Sequence[Support]) -> bool:
    """The model's answer is shown when at least half its claims (and at least one) are backed by a passage.

    >>> ok = Support("x [1].", [1], "supported", {1: 0.9}, None, "")
    >>> bad = Support("y [1].", [1], "unsupported", {1: 0.1}, None, "")
    >>> model_passes([ok]), model_passes([ok, bad]), model_passes([ok, bad, bad])
    (True, True, False)
    """
    made = claims(sentences)
    backed = sum(is_backed(s) for s in made)
    return backed > 0 and backed * 2 >= len(made)


def said_not_found(sentences: Sequence[Support]) -> bool:
    """True when the model's whole answer is the escape phrase."""
    return bool(sentences) and all(s.status == "exempt" for s in sentences) and any(is_escape(s.text) for s in sentences)


def shown_sentence(s: Support, valid: Collection[int] | None = None) -> Support | None:
    """A model sentence as it is shown: backed ones with their final ids, the rest dropped.

    An exempt line ("Here is how [9]:") keeps only the model's ids that name a
    passage it read (``valid``; all of them when None).

    >>> shown_sentence(Support("Here is how [9][1]:", [9, 1], "exempt", {}, None, ""), valid={1, 2}).text
    'Here is how [1]:'
    >>> shown_sentence(Support("## Merging of configuration [1]", [1], "exempt", {}, None, HEADING)).text
    '**Merging of configuration**'

    A line leading into code that names something a passage backs, left uncited by the model, gets that
    passage's id from the checker, as any uncited sentence does:

    >>> lead = shown_sentence(Support("Install SOCKS support with `pip`:", [], "exempt", {1: 0.2, 2: 0.79}, None, LEAD))
    >>> lead.text, lead.cited_by
    ('Install SOCKS support with `pip` [2]:', 'checker')
    """
    if s.status == "exempt":
        if s.reason in NOT_SHOWN:
            return None
        if s.reason == HEADING:  # a title over what follows: bold, as the quotes' section headings, without ids
            return s._replace(text=f"**{strip_markup(strip_citations(s.text))}**", cited=[], cited_by=None)
        ids = [i for i in s.cited if valid is None or i in valid]
        best = backing(s) if not ids and s.reason == LEAD else None
        if best is not None:
            return s._replace(text=cite(s.text, [best]), cited=[best], cited_by="checker")
        text = s.text if ids == s.cited else cite(s.text, ids)
        return s._replace(text=text, cited=ids, cited_by="model" if ids else None)
    if not is_backed(s):
        return None
    if s.is_code:  # copied, or adapted from a passage's example: then that example is shown
        return s._replace(text=s.example or s.text, cited_by="checker")
    ids, by = shown_citations(s)
    return s._replace(text=cite(s.text, ids), cited=ids, cited_by=by, status="supported")


def verified(sentences: Sequence[Support], answer: str, units: Sequence[Unit] = (),
             off_topic: Collection[str] = ()) -> Choice:
    """The model's answer with only backed claims, citations corrected or added where the checker found them.

    A shown sentence that introduces code the model left out ("… like this:")
    brings the code block that follows it in its passage, cited by the checker (as does one whose block the model
    wrote only in a part of its answer that is not shown: ``_place_later``);
    under one the model put another block, that passage's block is shown (``introduced_block``).
    A line that leads into code that is not shown goes, or ends as a sentence of its own (``lead_alone``); one that
    only leads on from the sentence before it ("For example:", ``leads_on``) goes when that sentence is not shown.
    A passage's heading the model copied after its answer, over a section off the question (``off_topic``, from
    ``off_topic_sections``), starts a copy of that section: it is not shown, nor what follows it up to the next
    heading.
    """
    out: list[str] = []
    shown: list[Support | None] = []
    position, lead = 0, None  # lead: the place in (out, shown) of a line leading into code, until what follows shows
    before = None  # the prose line shown just before the sentence at hand, if the one before it was shown
    valid = {u.pid for u in units} or None
    copying = False  # within a section off the question that the model copied after its answer
    later: list[tuple[int, int, Unit]] = []  # code a shown line introduces, which the model wrote further on
    waiting: set[int] = set()  # the places in shown of leads whose next line is not shown, until their block is placed
    after_failed = False  # whether the model's claim before the one at hand was left out
    for n, s in enumerate(sentences):
        found = _locate(answer, s.text, position)
        if found is None:
            continue
        start, end = found
        out.append(answer[position:start])
        if copying and _HEADING_LINE.search(answer[position:start]):  # a heading too short to be read as a sentence
            copying = False
        position = end
        if s.status == "exempt" and s.reason in (HEADING, UNBACKED_HEADING):
            copying = any(x is not None for x in shown) and section_title(s.text) in off_topic
        kept = None if copying else shown_sentence(s, valid)
        if kept is not None and kept.is_code and before is not None:
            kept = introduced_block(before, kept, units, shown)
        kept = _shown_here(kept, sentences, shown)
        if kept is not None and after_failed and leads_on(kept):
            kept = None  # "For example:" after a sentence not shown: it would lead on from nothing, or open the answer
        after_failed = kept is None and s.status == "unsupported"  # a claim left out (not a repeat of the question)
        before = kept if kept is not None and not kept.is_code else None
        if lead is not None and kept is None:  # what the line before leads into is not shown
            _leave_lead(lead, later, waiting, out, shown)
        lead = None
        if kept is None:
            continue
        out.append(kept.text)
        shown.append(kept)
        following = sentences[n + 1] if n + 1 < len(sentences) else None
        code = introduced_code(kept, units) if following is None or not following.is_code else None
        missing = code is not None and not shows_code(shown, code.text)
        if missing and code.text not in answer[position:]:
            _show_code(code, len(out), len(shown), out, shown)
            before = None
            continue
        if missing:  # the model writes it further on: shown here at the end if that part of its answer is not shown
            later.append((len(out), len(shown), code))
        if kept.reason == LEAD:
            lead = (len(out) - 1, len(shown) - 1)
    if lead is not None:  # the answer ends on it
        _leave_lead(lead, later, waiting, out, shown)
    _place_later(later, waiting, out, shown)
    out.append(answer[position:])
    text = drop_empty_code_blocks("".join(out))  # code blocks emptied by unsupported code
    text = outside_code(text, lambda prose: without_tag_lines(without_directives(prose)))  # "/// tip", "<br>"
    text = re.sub(r"\n{3,}", "\n\n", re.sub(r"[ \t]+\n", "\n", text)).strip()
    text = outside_code(text, lambda prose: re.sub(r"(\n\n) (?=\S)", r"\1", prose))  # the space after a dropped one
    return Choice("verified", close_open_fence(text), [x for x in shown if x is not None])


_HEADING_LINE = re.compile(r"(?m)^ {0,3}#{1,6}\s")
OFF_TOPIC = 0.5  # a section whose sentences match the question at under half the best one's similarity (calibrated)


def off_topic_sections(ranked: Sequence[tuple[Unit, float]], share: float = OFF_TOPIC) -> set[str]:
    """The titles of the passages' sections (``section_title``) that are off the question: the best of their
    sentences matches it at under ``share`` of the best sentence of all. The 0.5B often copies its passage past its
    answer, into the next section ("## Client instances" after the redirect answer). On the httpx calibrate split,
    7 of 68 checked answers had a passage's heading after their answer: the two sections under half (0.37 and 0.25
    of the best) were beside the point; of the other five, three were on it (0.76 to 1.0) and two not (0.85, 0.98).

    >>> u = lambda section: Unit(1, 0, "x", False, section=section)
    >>> sorted(off_topic_sections([(u("Redirects"), 0.71), (u("Client instances"), 0.28), (u("`Timeouts`"), 0.5)]))
    ['client instances']
    """
    best: dict[str, float] = {}
    for unit, score in ranked:
        title = section_title(unit.section)
        best[title] = max(best.get(title, 0.0), score)
    top = max(best.values(), default=0.0)
    return {title for title, score in best.items() if title and score < share * top}


def section_title(text: str) -> str:
    """A heading's title as sections are compared: its words, in lower case, without ids or markup.

    >>> section_title("## `Client` instances [1]"), section_title("Client instances")
    ('client instances', 'client instances')
    """
    return strip_markup(strip_citations(text)).casefold()


def _said(text: str) -> str:
    """What a shown line says, for telling repeats apart: no ids, no final stop or colon.

    >>> _said("Use a context manager [3]:") == _said("Use a context manager [1].")
    True
    """
    return strip_citations(text).strip().rstrip(":：.。")


def _shown_here(kept: Support | None, sentences: Sequence[Support], shown: Sequence[Support | None]) -> Support | None:
    """A sentence as ``shown_sentence`` keeps it, unless this answer must not show it here: "not covered" after
    backed claims, a claim said before (a small model repeats itself), or only the prompt's own tags or a page's
    HTML layout; a sentence keeps its words without those."""
    if kept is None or (kept.status == "exempt" and is_escape(kept.text) and any(map(is_backed, sentences))):
        return None
    if not kept.is_code:
        text = without_prompt_tags(kept.text)
        bare = without_html(text)  # a figure and its caption copied from a page: its words, ids at their end
        kept = kept._replace(text=cite(bare, kept.cited) if bare != text and kept.cited else bare)
        if not strip_citations(kept.text).strip():
            return None
    if kept.status != "exempt" and any(x and _said(kept.text) == _said(x.text) for x in shown):
        return None
    return kept


def _show_code(code: Unit, at: int, place: int, out: list[str], shown: list[Support | None]) -> None:
    """Show the passage's code block ``code`` at ``at`` in ``out`` (and ``place`` in ``shown``), cited by the checker."""
    out.insert(at, f"\n\n```\n{code.text}\n```\n\n")  # what follows starts a paragraph of its own
    shown.insert(place, Support(code.text, [code.pid], "supported", {code.pid: 1.0}, None,
                                f"Copied from passage [{code.pid}]: the sentence before introduces it.", True,
                                "checker"))


def _shows_within(shown: Sequence[Support | None], code: str) -> bool:
    """Whether a shown code block holds this code (the model often joins two of a passage's blocks into one)."""
    wanted = normalise_code(code)
    return any(x is not None and x.is_code and wanted in normalise_code(x.text) for x in shown)


def _place_later(later: Sequence[tuple[int, int, Unit]], waiting: Collection[int], out: list[str],
                 shown: list[Support | None]) -> None:
    """Each block a shown line introduces that the model wrote further on (``later``: its place in ``out`` and
    ``shown``), when that part of the answer was not shown: it comes under its line. A line left ``waiting`` (what
    follows it was not shown) whose block is shown further on ends as a sentence of its own (``_end_lead``)."""
    moved = 0  # the blocks inserted so far, each one place in out and in shown
    for at, place, code in later:  # in order: a block two lines introduce comes under the first
        line = place - 1  # its line's place in shown, before any block was inserted
        at, place = at + moved, place + moved
        if shown[place - 1] is None:  # its line is not shown after all
            continue
        if not _shows_within(shown, code.text):
            _show_code(code, at, place, out, shown)
            moved += 1
        elif line in waiting:
            _end_lead((at - 1, place - 1), out, shown)


def _leave_lead(lead: tuple[int, int], later: Sequence[tuple[int, int, Unit]], waiting: set[int],
                out: list[str], shown: list[Support | None]) -> None:
    """What the line at ``lead`` leads into is not shown next. When the model wrote its block further on (``later``),
    the line waits until the end, which puts that block under it unless it is shown; otherwise it ends now
    (``_end_lead``)."""
    if any(place - 1 == lead[1] for _, place, _ in later):
        waiting.add(lead[1])
    else:
        _end_lead(lead, out, shown)


def _end_lead(lead: tuple[int, int], out: list[str], shown: list[Support | None]) -> None:
    """The shown line at ``lead`` (its place in ``out`` and ``shown``) leads into nothing shown: it becomes a sentence
    of its own (``lead_alone``), unless the answer already says that, or it goes."""
    alone = lead_alone(shown[lead[1]])
    if alone is not None and any(x and _said(alone.text) == _said(x.text) for x in shown[:lead[1]]):
        alone = None
    out[lead[0]], shown[lead[1]] = (alone.text, alone) if alone is not None else ("", None)


def _locate(text: str, piece: str, start: int) -> tuple[int, int] | None:
    """Where ``piece`` occurs in ``text`` from ``start``, allowing any whitespace between its words.

    >>> _locate("One [1].\\nTwo wraps\\nhere [2].", "Two wraps here [2].", 0)
    (9, 28)
    """
    pattern = r"\s*".join(re.escape(word) for word in piece.split())
    match = re.compile(pattern).search(text, start) if pattern else None
    return (match.start(), match.end()) if match else None


def not_found(lang: str) -> Choice:
    """Exactly the escape phrase (programs recognise it); the missing terms are shown beside it, not in it."""
    return Choice("not_found", language(lang).escape, [])


def lacking_subject(model_answer: str, bystanders: Sequence[str]) -> list[str]:
    """The names the question gives that the documents lack (``bystanders``, from the gate) that the model's answer
    names: then the answer is about them.

    >>> lacking_subject("Install ddtrace, then Datadog's agent sends APM traces.", ["Datadog", "APM", "DATABASE_URL"])
    ['Datadog', 'APM']
    >>> lacking_subject("Add CORSMiddleware to the app.", ["React"])  # a detail of the user's: the answer is elsewhere
    []
    """
    return named_in(bystanders, model_answer)


def choose(sentences: Sequence[Support], answer: str, ranked: Sequence[tuple[Unit, float]], lang: str,
           asked: str = "", lacking: Sequence[str] = (),
           translate: Callable[[Choice], Choice] | None = None, finished: bool = True) -> Choice:
    """The verdict: the model's checked answer when it holds, else quotes, else the fixed phrase.

    ``lacking``: names of the question that the documents lack. When the failed
    answer is about one of them, quotes would be about something else: the
    fixed phrase is shown. A checked answer is followed by the quotes that say
    what it does not (``also_quoted``): a small model's true sentences often
    miss the point, and the fix the quotes name is then still on screen.
    ``translate``: puts a checked answer written in the documents' language into ``lang``. ``finished``: False when
    the user stopped the model, whose answer is then cut short, its last sentence perhaps half a claim ("does not
    raise an exception" before "unless…"): never shown as verified, it is listed, checked, under the quotes.
    """
    if said_not_found(sentences):
        return not_found(lang)
    if finished and model_passes(sentences):
        choice = verified(sentences, answer, [u for u, _ in ranked], off_topic_sections(ranked))
        if translate is not None:
            choice = translate(choice)
        return also_quoted(choice, ranked, lang, asked)
    if lacking_subject(answer, lacking):
        return not_found(lang)
    return extractive(ranked, lang, asked=asked) or not_found(lang)

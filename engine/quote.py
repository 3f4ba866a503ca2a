"""Quote: the passage sentences that best answer a question, shown as quotes with their [n].

They are on screen while the model writes (the preview), they stand in for a
model answer that failed the checks (``extractive``), and they follow a checked
answer, which a small model often writes beside the point, less what it says
already (``also_quoted``).

Sentences that name something the question does not (an option, a class) come
first, from a lower relevance: the sentence most like a long question is often
the page's statement of the problem, not the fix.

>>> ranked = [(Unit(1, 0, "HTTPX does not follow redirects by default.", False), 0.8),
...           (Unit(1, 1, "Enable them with follow_redirects=True.", False), 0.5)]
>>> print(extractive(ranked, "en", asked="Does httpx follow redirects?").text)
Quoted from the documents:
<BLANKLINE>
> HTTPX does not follow redirects by default. [1]
> Enable them with follow_redirects=True. [1]
"""

from __future__ import annotations

from typing import Collection, NamedTuple, Sequence

from .check import is_include
from .gate import is_user_detail
from .languages import language
from .names import identifiers, named_in
from .support import ALSO, QUOTED, Support, Unit
from .text import citations, normalise_code, strip_citations
from .tokens import content_words

# Quotes only when a sentence is this relevant or more; below, the fixed phrase. 0.36, not 0.4: on the calibrate
# halves, 0.4 refused 14 answerable questions whose best sentence scored under it (a long question that tells a story
# matches any one sentence weakly), and 0.36 quotes 8 of them while refusing every unanswerable question 0.4 refused.
MIN_EXTRACT_SCORE = 0.36
# A sentence that names something the question does not (the fix: ``root_path``, ``strict_content_type``) is quoted
# from this relevance, or from this far below the best sentence, whichever is higher: the sentence most like a
# question is the page's statement of the problem, and the one with the answer often scores 0.3 lower. On the
# calibrate halves, the key facts reached 19 of the 37 quoted answers instead of 13 (0.25 and 0.3, of 0.2-0.3 and
# 0.2-0.4 tried).
NAMING_FLOOR, NAMING_SPAN = 0.25, 0.3
# At most this many quotes. On the calibrate halves the quotes held the key facts of 92 of 189 answerable questions
# with 3, 100 with 4 and 102 with 5 (the passages read held them for 154).
QUOTES = 4
# A code block of fewer lines than EXAMPLE_LINES can be quoted as it stands when it is among the EXAMPLE_RANK units
# that best match the question, relevant enough to quote by itself, and names something the question does not. On
# the calibrate halves of the four question sets, the passages held the key facts for 153 answerable questions and
# the quotes for 83; for 37 of the other 70 a code example held them (the uds transport for the Docker socket,
# ``httpx.NetRCAuth``). Examples among the best 3 bring the quotes to 91 (9 gained, 1 lost, 32 quotes changed); from
# the naming bar alone also 91, but 57 quotes changed, with examples from beside the point (a streaming loop for a
# question about the status line's text) on the held-out set. Code is not evidence by itself: counted towards the
# relevance floor, it quoted 5 more answerable and 2 more unanswerable questions, about the sets' own ratio.
EXAMPLE_LINES, EXAMPLE_RANK = 12, 3
# A passage sentence is not quoted after an answer that says this share of its content words: it is said already.
SAID_AGAIN = 0.8


class Choice(NamedTuple):
    verdict: str  # verified, extractive or not_found
    text: str  # the final answer shown
    sentences: list[Support]  # the shown sentences, each with its final citations


INTRODUCES = (":", "：", "...", "…")


def quotable(ranked: Sequence[tuple[Unit, float]]) -> list[tuple[Unit, float]]:
    """The units that can be quoted as an answer: prose sentences long enough to say something, not a docs-build
    directive that pulls in a file from outside the folder, and not a heading (it names the topic and says nothing
    of it: "Multiple File Uploads" ranked first for "how do I upload several files?").

    >>> [u.text for u, _ in quotable([(Unit(1, 0, "{* ../../docs_src/app/tutorial001.py hl[3] *}", False), 0.6),
    ...                               (Unit(1, 1, "Multiple File Uploads", False, 1, "Multiple File Uploads"), 0.7),
    ...                               (Unit(1, 2, "Pass swagger_ui_parameters to FastAPI().", False), 0.5)])]
    ['Pass swagger_ui_parameters to FastAPI().']
    """
    return [(u, score) for u, score in ranked
            if not u.is_code and len(u.text) > 20 and not is_include(u.text) and not is_section_title(u)]


def is_section_title(u: Unit) -> bool:
    """Whether a unit is its section's heading line: it is quoted neither as an answer nor under itself as a title.

    (``check.is_heading`` asks another thing: whether a sentence is written as a markdown heading.)

    >>> is_section_title(Unit(1, 0, "Redirects", False, 1, "Redirects"))
    True
    >>> is_section_title(Unit(1, 1, "Off.", False, 1, "Redirects"))
    False
    """
    return u.section.lower() == u.text.lower()


def evidence(ranked: Sequence[tuple[Unit, float]]) -> float:
    """How well the best quotable sentence of the passages matches the question (0 to 1).

    >>> evidence([(Unit(1, 0, "A sentence long enough to quote here.", False), 0.7)]), evidence([])
    (0.7, 0.0)
    """
    return max((score for _, score in quotable(ranked)), default=0.0)


def example_code(u: Unit) -> bool:
    """Whether a unit is a code example short enough to quote on its own (``EXAMPLE_LINES``): documentation often
    answers "how" with its example, and the sentence before it only says "like this:".

    >>> example_code(Unit(1, 0, 'transport = httpx.HTTPTransport(uds="/var/run/docker.sock")', True))
    True
    >>> example_code(Unit(1, 0, "Use a transport.", False)), example_code(Unit(1, 0, "x = 1\\n" * 20, True))
    (False, False)
    """
    return u.is_code and not is_include(u.text) and u.text.count("\n") < EXAMPLE_LINES


def names_new(u: Unit, asked: str) -> bool:
    """Whether a passage sentence names a code identifier that the question does not.

    Documentation answers "how" with a name, and the sentences most like a question that tells a story are the
    page's own statement of the problem.

    >>> asked = "Does httpx follow redirects?"
    >>> names_new(Unit(1, 0, "Enable them with follow_redirects=True.", False), asked)
    True
    >>> names_new(Unit(1, 0, "HTTPX does not follow redirects by default.", False), asked)
    False
    >>> names_new(Unit(1, 0, "Enable them with follow_redirects=True.", False), "")  # no question: relevance alone
    False
    >>> names_new(Unit(1, 0, "$ httpx http://httpbin.org/json", False), asked)  # an example address is no answer
    False
    """
    known = asked.lower()
    return bool(known.strip()) and any(name.lower() not in known and not is_user_detail(name)
                                       for name in identifiers(u.text))


def pick_quotes(ranked: Sequence[tuple[Unit, float]], asked: str, most: int = QUOTES) -> list[Unit]:
    """The passage sentences to quote, none when no sentence is relevant enough (``MIN_EXTRACT_SCORE``).

    Sentences that name something the question does not come first, by
    relevance, from a lower bar (``NAMING_FLOOR``, ``NAMING_SPAN``); a short
    code example that does (``example_code``) may be one of them when it is
    among the best matches (``EXAMPLE_RANK``). Then the other relevant sentences.

    >>> ranked = [(Unit(1, 0, "Redirects are not followed by default here.", False), 0.8),
    ...           (Unit(1, 1, "Enable them with follow_redirects=True.", False), 0.52),
    ...           (Unit(1, 2, "A client keeps cookies and headers for you.", False), 0.4)]
    >>> [u.position for u in pick_quotes(ranked, "Does httpx follow redirects?")]
    [1, 0, 2]
    >>> pick_quotes([(Unit(1, 1, "Enable them with follow_redirects=True.", False), 0.3)], "Redirects?")  # too weak
    []
    >>> twice = "Response is also at fastapi.Response."
    >>> same = [(Unit(3, 0, twice, False), 0.6), (Unit(5, 0, "Set cookies on the response it gives.", False), 0.5),
    ...         (Unit(4, 2, twice, False), 0.6)]
    >>> [u.pid for u in pick_quotes(same, "How do I set cookies?")]
    [3, 5]
    """
    scored = quotable(ranked)
    relevant = [u for u, score in scored if score >= MIN_EXTRACT_SCORE]
    if not relevant:
        return []
    bar = max(NAMING_FLOOR, scored[0][1] - NAMING_SPAN)
    topic = topic_words(asked, [u for u, _ in ranked])
    allowed = {u for u, _ in scored} | {u for u, score in ranked[:EXAMPLE_RANK] if example_code(u)
                                         and score >= MIN_EXTRACT_SCORE}
    naming = [u for u, score in ranked if u in allowed and score >= bar and names_new(u, asked)
              and content_words(u.text) & topic]
    picked: dict[str, Unit] = {}  # a sentence two pages share is quoted once, from the first
    for u in naming + [u for u in relevant if u not in naming]:
        picked.setdefault(u.text, u)
    return list(picked.values())[:most]


def topic_words(asked: str, units: Sequence[Unit]) -> set[str]:
    """The question's words that tell its passages apart: those in fewer than half of them ("retries", not "httpx").

    A sentence quoted from the lower bar must have one, or any name in any passage would do ("WebSocket support for
    HTTPX" for a question about retries).

    >>> units = [Unit(1, 0, "HTTPX supports retries on the transport.", False),
    ...          Unit(2, 0, "WebSocket support for HTTPX.", False), Unit(3, 0, "HTTPX is a client.", False)]
    >>> sorted(topic_words("Does httpx have retries? 重试", units))
    ['retrie', '重试']
    """
    words = content_words(asked)
    pages: dict[int, set[str]] = {}
    for u in units:
        pages.setdefault(u.pid, set()).update(content_words(u.text))
    if len(pages) < 3:  # too few passages to tell which words are everywhere
        return words
    return {w for w in words if 2 * sum(w in page for page in pages.values()) < len(pages)}


def extractive(ranked: Sequence[tuple[Unit, float]], lang: str, *, asked: str = "", most: int = QUOTES) -> Choice | None:
    """Quote the best passage sentences, in document order, each cited.

    Of the sentences relevant enough to quote, those that name something the
    question (``asked``) does not come first, each group by relevance. A chosen
    sentence brings the code block it introduces (it ends with ':'), or the one
    right after its paragraph: that paragraph's example. A quote from another
    section than the quote before it comes under that section's heading.

    >>> ranked = [(Unit(1, 1, "WebSocket support for HTTPX.", False, 1, "httpx-ws"), 0.7)]
    >>> print(extractive(ranked, "en").text)
    Quoted from the documents:
    <BLANKLINE>
    **httpx-ws**
    > WebSocket support for HTTPX. [1]
    """
    chosen = pick_quotes(ranked, asked, most)
    if not chosen:
        return None
    lines, shown = quoted(chosen, [u for u, _ in ranked])
    return Choice("extractive", "\n".join([language(lang).quoted_label, ""] + lines), shown)


def quoted(chosen: Sequence[Unit], units: Sequence[Unit],
           shown_code: Collection[str] = ()) -> tuple[list[str], list[Support]]:
    """The lines of a quotation of ``chosen`` sentences (with the code each introduces, unless it is among
    ``shown_code``: the blocks already on screen, as ``normalise_code`` gives them), and each as shown.

    >>> units = [Unit(1, 0, "Enable them like this:", False), Unit(1, 1, "client.get(url, follow_redirects=True)", True)]
    >>> len(quoted(units[:1], units)[1]), len(quoted(units[:1], units, {normalise_code(units[1].text)})[1])
    (2, 1)
    """
    by_place = {(u.pid, u.position): u for u in units}
    chosen = list(chosen)
    for u in list(chosen):
        before = by_place.get((u.pid, u.position - 1)) if u.is_code else None
        if before is not None and not before.is_code and before.text.rstrip().endswith(INTRODUCES) \
                and before not in chosen:
            chosen.append(before)  # a code example comes with the sentence that leads into it
            continue
        follow = by_place.get((u.pid, u.position + 1)) if u.text.rstrip().endswith(INTRODUCES) else None
        follow = follow if follow is not None and follow.is_code else code_after(u, units)
        if follow is not None and follow not in chosen and normalise_code(follow.text) not in shown_code:
            chosen.append(follow)
    chosen.sort(key=lambda u: (u.pid, u.position))
    lines, shown, under, last = [], [], "", None
    for u in chosen:
        text = u.text if u.is_code else f"> {u.text} [{u.pid}]"
        section = None if is_section_title(u) or (u.is_code and u.pid == last) else u.section or None
        if section and section != under:
            lines.append(f"**{section}**")  # a code block of another passage than the quote above: under its own
        under, last = (section or under) if u.is_code else u.section, u.pid
        lines += code_lines(u, lines[-1] if lines else "") if u.is_code else [text]
        shown.append(Support(text, [u.pid], "supported", {u.pid: 1.0}, None, QUOTED.format(pid=u.pid),
                             u.is_code, "checker", section=section))
    return lines, shown


def code_lines(u: Unit, above: str) -> list[str]:
    """A quoted code block as markdown lines, its passage's id on a line after the closing fence (as a quoted
    sentence ends with its id), unless the line right ``above`` it is a quote of the same passage.

    >>> code_lines(Unit(3, 4, "cookies = httpx.Cookies()", True), "**Cookies**")
    ['```', 'cookies = httpx.Cookies()', '```', '[3]']
    >>> code_lines(Unit(3, 4, "cookies = httpx.Cookies()", True), "> Make a jar like this: [3]")
    ['```', 'cookies = httpx.Cookies()', '```']
    """
    of_its_passage = above.startswith("> ") and citations(above)[-1:] == [u.pid]
    return ["```", u.text, "```"] + ([] if of_its_passage else [f"[{u.pid}]"])


def code_after(u: Unit, units: Sequence[Unit]) -> Unit | None:
    """The code block right after the paragraph of a prose unit, in its passage (the paragraph's example), if any.

    >>> units = [Unit(2, 0, "Retries are available.", False, 1), Unit(2, 1, "Errors end them.", False, 1),
    ...          Unit(2, 2, "HTTPTransport(retries=1)", True, 2)]
    >>> code_after(units[0], units).text
    'HTTPTransport(retries=1)'
    """
    later = [v for v in units if v.pid == u.pid and v.position > u.position and v.paragraph != u.paragraph]
    first = min(later, key=lambda v: v.position, default=None)
    return first if first is not None and first.is_code and not u.is_code and u.paragraph else None


def also_quoted(choice: Choice, ranked: Sequence[tuple[Unit, float]], lang: str, asked: str) -> Choice:
    """A verified answer followed by the quotes that say what it does not, under their own label: none that it says
    already (``says_again``) or whose names it all names (``names_only_said``).

    >>> ranked = [(Unit(1, 0, "Limit the pool with httpx.Limits(max_connections=10).", False), 0.89)]
    >>> answer = Choice("verified", "Timeouts default to 5 seconds [2].", [])
    >>> print(also_quoted(answer, ranked, "en", "Pool size?").text)
    Timeouts default to 5 seconds [2].
    <BLANKLINE>
    Also in the documents:
    <BLANKLINE>
    > Limit the pool with httpx.Limits(max_connections=10). [1]
    """
    written = " ".join([strip_citations(choice.text), *said(choice.sentences)]).lower()  # as shown and as checked
    words = content_words(written)
    on_screen = {normalise_code(s.text) for s in choice.sentences if s.is_code}
    chosen = [u for u in pick_quotes(ranked, asked) if not says_again(u, words) and not names_only_said(u, written)
              and not (u.is_code and normalise_code(u.text) in on_screen)]
    if not chosen:
        return choice
    label = language(lang).also_label
    lines, shown = quoted(chosen, [u for u, _ in ranked], on_screen)
    heading = Support(label, [], "exempt", {}, None, ALSO, False, None)
    return Choice(choice.verdict, "\n".join([choice.text, "", label, ""] + lines), choice.sentences + [heading] + shown)


def says_again(u: Unit, words: set[str]) -> bool:
    """Whether an answer whose content words are ``words`` already says a passage sentence: it has most of its words
    (``SAID_AGAIN``), so quoting it would show the same thing twice.

    >>> words = content_words("The `history` property of a response can be used to inspect any followed redirects.")
    >>> says_again(Unit(1, 0, "The history property of the response can be used to inspect any followed redirects.",
    ...                 False), words)
    True
    >>> says_again(Unit(1, 1, "Set follow_redirects=True to follow them.", False), words)
    False
    """
    own = content_words(u.text)
    return bool(own) and len(own & words) >= SAID_AGAIN * len(own)


def names_only_said(u: Unit, written: str) -> bool:
    """Whether a sentence names something, and the answer (``written``, lower case) already names all of it.

    >>> names_only_said(Unit(1, 0, "Pass follow_redirects=True.", False), "use follow_redirects=true [1].")
    True
    """
    names = identifiers(u.text)
    return bool(names) and len(named_in(names, written)) == len(names)


def said(shown: Sequence[Support]) -> list[str]:
    """The prose an answer's shown sentences say, each as written and as judged (its translation), without ids.

    >>> said([Support("默认不跟随 [1]。", [1], "supported", {}, None, "", checked_as="Not followed by default.")])
    ['默认不跟随。', 'Not followed by default.']
    """
    return [strip_citations(t) for s in shown if not s.is_code and s.status != "exempt"
            for t in (s.text, s.checked_as) if t]

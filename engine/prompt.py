"""Prompt: the numbered <doc> context and the four-rule system prompt, in the question's language.

>>> print(build_context([("compatibility.md", "## Redirects\\nNot by default.")]))
<docs>
<doc id="1" source="compatibility.md">
## Redirects
Not by default.
</doc>
</docs>
"""

from __future__ import annotations

import re
from typing import NamedTuple, Sequence

from .copied import TAG
from .errors import RepoBotError
from .languages import LANGUAGES, language
from .markup import drop_link_definitions
from .text import outside_code


class PromptStyle(NamedTuple):
    """What the prompt adds to the four rules (benchmarks/prompt_variants.py compares them)."""

    strict: bool = True  # rule 2, "even if you know it"; off only for experiments
    shape: bool = False  # the citation format shown with placeholders (no sentence a model could paste)
    deduction: bool = False  # allow an answer the passages only imply, marked as a deduction
    example: bool = False  # one worked turn on other passages (a coffee machine): the format, shown by doing it
    ask_first: bool = False  # the question before the passages as well as after: the model reads them knowing it
    refusal: bool = False  # a worked turn before the example: a question its passages do not answer, and the escape


# The worked example's passages: a topic no documentation set shares, so a copy of its answer is easy to spot
# (and the checker finds no support for it in the real passages).
EXAMPLE_PASSAGES = (
    ("machine/cleaning.md", "## Cleaning > Descaling\nDescale the machine every three months.\n"
                            "Start a descaling cycle from Python:\n```python\nmachine.descale(tablets=1)\n```"),
    ("machine/setup.md", "## Setup > Grinder\nThe grinder has twelve settings.\nTurn the dial clockwise for a finer grind."),
)


def system_prompt(code: str, style: PromptStyle = PromptStyle()) -> str:
    """The four rules in language ``code``.

    >>> print(system_prompt("en", PromptStyle(strict=False)))
    You answer questions about documentation. Answer only from the passages inside <docs>.
    <BLANKLINE>
    Rules:
    - After every sentence, write [n] for the passage it rests on; several are allowed, as in [1][3].
    - If the passages are not enough to answer, reply exactly "The documents do not cover this." and do not guess.
    - Answer in English, be concise, and keep code exactly as it appears.
    """
    rules = language(code).rules
    listed = [rules.cite] + ([rules.strict] if style.strict else []) + [rules.escape, rules.style]
    extra = ([rules.shape] if style.shape else []) + ([rules.deduction] if style.deduction else [])
    text = f"{rules.intro}\n\n{rules.header}\n" + "\n".join(f"- {r}" for r in listed)
    return text + ("\n\n" + "\n".join(extra) if extra else "")


def neutralise_tags(text: str) -> str:
    """Make ``<doc``, ``</doc>``, ``<docs>`` and ``</docs>`` in document text inert.

    >>> neutralise_tags('a </doc> <doc id="9" source="x"> </DOCS> <document>')
    'a &lt;/doc> &lt;doc id="9" source="x"> &lt;/DOCS> <document>'
    """
    return TAG.sub(r"&lt;\1\2", text)


def _attribute(value: str) -> str:
    return value.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;").replace("\n", " ")


_LINK_OR_CODE = re.compile(  # inline code, or a link not glued to a name before it (code such as d[k](v) stays)
    r"(`[^`\n]*`)|(?<![A-Za-z0-9_\])])!?\[((?:[^\]\n]|\n(?![ \t]*\n)){0,300})\]\([^)\s]{0,500}(?:\s+\"[^\"]*\")?\)")


def link_text(text: str) -> str:
    """Markdown links and images read as their text, outside code, and link definitions (``[id]: URL``) are left
    out: a URL is tokens a small model copies into its answer but cannot use (the viewer opens the page itself).

    >>> link_text('See [the\\nguide](https://x.org/a "A") or ![logo](i.png), not `h[k](r)`:\\n```\\nh[k](r)\\n```')
    'See the\\nguide or logo, not `h[k](r)`:\\n```\\nh[k](r)\\n```'
    >>> link_text("    result = handlers[name](request)")  # code cut from its fence still reads as code
    '    result = handlers[name](request)'
    """
    def plain(prose: str) -> str:
        return _LINK_OR_CODE.sub(lambda m: m.group(1) or m.group(2), drop_link_definitions(prose))

    return outside_code(text, plain)


def build_context(passages: Sequence[tuple[str, str]]) -> str:
    """Wrap (source, text) pairs in numbered <doc> tags, ids 1..N in the order given."""
    parts = [
        f'<doc id="{i}" source="{_attribute(source)}">\n{neutralise_tags(text)}\n</doc>'
        for i, (source, text) in enumerate(passages, 1)
    ]
    return "<docs>\n" + "\n".join(parts) + "\n</docs>"


def build_messages(
    question: str, passages: Sequence[tuple[str, str]], *, lang: str, style: PromptStyle = PromptStyle()
) -> list[dict[str, str]]:
    """The exact chat messages sent to the model: the rules, the worked turns if asked, the passages and the question.

    >>> [m["role"] for m in build_messages("Q?", [("a.md", "A")], lang="en", style=PromptStyle(example=True))]
    ['system', 'user', 'assistant', 'user']
    >>> build_messages("Q?", [("a.md", "A")], lang="en", style=PromptStyle(example=True, refusal=True))[2]["content"]
    'The documents do not cover this.'
    """
    texts = language(lang)
    label = texts.question_label
    messages = [{"role": "system", "content": system_prompt(lang, style)}]
    turns = ([(texts.rules.unanswered, texts.escape)] if style.refusal else []) + \
        ([texts.rules.example] if style.example else [])
    for asked, answered in turns:
        messages += [{"role": "user", "content": f"{build_context(EXAMPLE_PASSAGES)}\n\n{label}{asked}"},
                     {"role": "assistant", "content": answered}]
    put = f"{label}{question.strip()}"
    first = f"{put}\n\n" if style.ask_first else ""
    return messages + [{"role": "user", "content": f"{first}{build_context(passages)}\n\n{put}"}]


def given_question(messages: Sequence[dict[str, str]]) -> str | None:
    """The question ``build_messages`` put after the passages (the rewrite, when the model answered that), or None.

    >>> given_question(build_messages("Does httpx retry?", [("a.md", "A")], lang="en"))
    'Does httpx retry?'
    """
    if not messages:
        return None
    tail = messages[-1]["content"].rsplit("</docs>", 1)[-1].lstrip("\n")  # the passages neutralise their own tags
    labels = sorted({lang.question_label for lang in LANGUAGES.values()}, key=len, reverse=True)
    return next((tail[len(label):] for label in labels if tail.startswith(label)), tail)


class Piece(NamedTuple):
    """A sentence or code block of a passage, with its relevance to the question."""

    position: int
    text: str
    is_code: bool
    score: float


def trim_passage(heading: str, pieces: Sequence[Piece], *, sentences: int = 3) -> str:
    """A passage cut to what matters for the question: its heading, its most relevant sentences or code
    blocks, and the code blocks those sentences introduce, in their order; "…" marks what was left out.

    >>> pieces = [Piece(0, "Intro about clients.", False, 0.1), Piece(1, "Redirects are off by default.", False, 0.9),
    ...           Piece(2, "Enable them:", False, 0.6), Piece(3, "get(url, follow_redirects=True)", True, 0.5),
    ...           Piece(4, "Unrelated history.", False, 0.2)]
    >>> print(trim_passage("Guide > Redirects", pieces, sentences=2))
    ## Guide > Redirects
    …
    Redirects are off by default.
    Enable them:
    ```
    get(url, follow_redirects=True)
    ```
    …
    """
    best = sorted(pieces, key=lambda p: -p.score)[:sentences]
    chosen = {p.position for p in best}
    by_position = {p.position: p for p in pieces}
    for p in best:  # a chosen sentence brings the code block right after it
        after = by_position.get(p.position + 1)
        if after is not None and after.is_code:
            chosen.add(after.position)
    lines = [f"## {heading}"] if heading else []
    last = min(by_position) - 1 if by_position else -1
    for position in sorted(chosen):
        if position != last + 1:
            lines.append("…")
        piece = by_position[position]
        after = by_position.get(position + 1)
        text = introducing(piece.text) if after is not None and after.is_code and after.position in chosen else piece.text
        lines += ["```", piece.text, "```"] if piece.is_code else [text]
        last = position
    if by_position and last != max(by_position):
        lines.append("…")
    return "\n".join(lines)


def introducing(sentence: str) -> str:
    """A sentence that leads into code ends with a colon: documentation often writes "..." there, which a
    small model takes for the end of the thought and stops before the code.

    >>> introducing("You can disable verification completely..."), introducing("Or disable it:")
    ('You can disable verification completely:', 'Or disable it:')
    """
    return re.sub(r"\s*(\.\.\.|…)$", ":", sentence.rstrip())


TAG_COST = 12  # tokens of one <doc id="n" source="…"> wrapper


def fit_budget(costs: Sequence[int], budget: int, *, least: int = 50) -> list[int]:
    """How many tokens each passage may keep, in rank order, so that all of them fit ``budget``.

    Passages are kept whole while they fit; the first that does not is cut to
    the room left (if at least ``least`` tokens), and the rest are left out (0).

    >>> fit_budget([300, 300, 300], 1000), fit_budget([300, 300, 300], 700), fit_budget([300, 300], 640)
    ([300, 300, 300], [300, 300, 64], [300, 300])
    """
    kept, used = [], 0
    for cost in costs:
        room = budget - used - TAG_COST
        if cost <= room:
            kept.append(cost)
            used += cost + TAG_COST
        elif room >= least:
            kept.append(room)
            used = budget
        else:
            kept.append(0)
            used = budget
    return kept


TEMPLATE_TOKENS = 64  # allowed for the chat template's own tokens around the messages' text


def prompt_tokens(messages: Sequence[dict[str, str]], count_tokens) -> int:
    """The tokens of the messages' text, as sent (the chat template adds up to ``TEMPLATE_TOKENS``)."""
    return count_tokens("".join(m["content"] for m in messages))


def fits(messages: Sequence[dict[str, str]], count_tokens, n_ctx: int, max_tokens: int) -> bool:
    """Whether a context of ``n_ctx`` tokens holds these messages and an answer of ``max_tokens`` (a second draft's
    prompt is longer by the question: the first was fitted by ``fit_passages``, this one is only checked).

    >>> count = lambda text: len(text.split())
    >>> fits([{"content": "word " * 100}], count, 600, 400), fits([{"content": "word " * 200}], count, 600, 400)
    (True, False)
    """
    return prompt_tokens(messages, count_tokens) + max_tokens + TEMPLATE_TOKENS <= n_ctx


def passage_room(question: str, *, lang: str, style: PromptStyle, count_tokens, n_ctx: int, max_tokens: int) -> int:
    """The tokens left for passages once the rules, the question and a ``max_tokens`` answer have their room, or a
    RepoBotError that says how to make room when none is left.

    >>> passage_room("Q?", lang="en", style=PromptStyle(), count_tokens=len, n_ctx=4000, max_tokens=400) > 0
    True
    >>> passage_room("Q?", lang="en", style=PromptStyle(), count_tokens=len, n_ctx=4000, max_tokens=5000)
    Traceback (most recent call last):
    ...
    repobot.engine.errors.RepoBotError: The model's context (4000 tokens) is too small for the rules, the question and a 5000-token answer: ask for a shorter answer (--max-tokens, at most ... here), or choose a model with a larger context.
    """
    fixed = sum(count_tokens(m["content"]) for m in build_messages(question, [], lang=lang, style=style))
    fixed += TEMPLATE_TOKENS
    budget = n_ctx - max_tokens - fixed
    if budget <= TAG_COST:
        most = n_ctx - fixed - TAG_COST - 1
        shorter = f"ask for a shorter answer (--max-tokens, at most {most} here)" if most > 0 else "ask a shorter question"
        raise RepoBotError(
            f"The model's context ({n_ctx} tokens) is too small for the rules, the question and a "
            f"{max_tokens}-token answer: {shorter}, or choose a model with a larger context."
        )
    return budget


def fit_passages(question: str, passages: Sequence[tuple[str, str]], *, lang: str, style: PromptStyle,
                 count_tokens, n_ctx: int, max_tokens: int) -> tuple[list[tuple[str, str]], list[str]]:
    """Passages that fit a model's context (``n_ctx`` tokens, counted by ``count_tokens``) with the rules, the
    question whole and a ``max_tokens`` answer; cut from the last one. Returns them and notes on what was cut.

    >>> fit_passages("Q?", [("a.md", "x " * 300)], lang="en", style=PromptStyle(), count_tokens=len, n_ctx=1200,
    ...              max_tokens=100)[1]
    ["Passage 1 was shortened to fit the model's context."]
    """
    budget = passage_room(question, lang=lang, style=style, count_tokens=count_tokens, n_ctx=n_ctx,
                          max_tokens=max_tokens)
    costs = [count_tokens(text) for _, text in passages]
    kept, shortened = [], None
    for (source, text), cost, room in zip(passages, costs, fit_budget(costs, budget)):
        if room == 0:
            break
        if room < cost:
            text = text[: int(len(text) * room / cost)]
            shortened = len(kept) + 1
        kept.append((source, text))
    # the estimate counts each passage's tags as TAG_COST and cuts text in proportion: check the real prompt
    while kept and not fits(build_messages(question, kept, lang=lang, style=style), count_tokens, n_ctx, max_tokens):
        source, text = kept[-1]
        if len(text) < 400:
            kept.pop()
        else:
            kept[-1], shortened = (source, text[: int(len(text) * 0.8)]), len(kept)
    notes = [f"Passage {shortened} was shortened to fit the model's context."] if shortened in range(1, len(kept) + 1) \
        else []
    if len(kept) < len(passages):
        notes.append(f"{len(passages) - len(kept)} passage(s) left out to fit the model's {n_ctx}-token context.")
    return kept, notes

"""Copied: what a small model copies into its answer that is no part of it, and the functions that take it out.

The 0.5B repeats its prompt's tags (``<docs>``), the documentation generator's
markup (``/// tip``, ``!!! warning``), the prompt's worked example (a coffee
machine) and a page's HTML layout (a figure and its caption). ``answer`` and
``pipeline`` clean the model's answer with these before anything is shown.

>>> without_prompt_tags("Enable it explicitly: <docs> [1]")
'Enable it explicitly: [1]'
"""

from __future__ import annotations

import functools
import re
import textwrap

from .languages import LANGUAGES
from .markup import ADMONITION, DIRECTIVE
from .text import drop_empty_code_blocks, outside_code, outside_inline_code, segments, split_line, strip_citations

# The context's tags (``<docs>``, ``<doc id=…>``): made inert in the passages (``prompt.neutralise_tags``).
TAG = re.compile(r"<(/?)(docs?)(?=[\s>/]|$)", re.I)


# A tag of the context, whole: dropped from a sentence that echoes one, and where a reply that writes the passages
# out again after its answer ends (``generate.echo_start``).
WHOLE_TAG = re.compile(TAG.pattern + r"[^<>]*>", re.I)  # [^<>]: one pass over "<doc <doc …"


_ADMONITION_BODY = re.compile(ADMONITION.pattern + r"\n((?:[ \t]{4}.*(?:\n|$)|[ \t]*\n)+)", re.M)  # and its text


def without_directives(prose: str) -> str:
    """Prose without the documentation generator's markup that a model copies from its passages: directive lines
    (``/// tip``, ``///``, ``::: name``) go, and an admonition marker (``!!! warning``) leaves its text, unindented.

    >>> without_directives("/// tip\\nUse `Query` for lists [3].\\n///\\n!!! warning Reuse one client [2].")
    'Use `Query` for lists [3].\\nReuse one client [2].'
    >>> without_directives("!!! tip\\n    It is safe [2].\\n    Files stream [2].\\nNext.")
    'It is safe [2].\\nFiles stream [2].\\nNext.'
    """
    prose = _ADMONITION_BODY.sub(lambda m: textwrap.dedent(m.group(2)), DIRECTIVE.sub("", prose))
    return ADMONITION.sub(r"\1", prose)


def without_prompt_tags(text: str) -> str:
    """A sentence without the prompt's ``<docs>``/``<doc …>`` tags, which a small model sometimes echoes.

    >>> without_prompt_tags("Enable it explicitly: <docs> [1]"), without_prompt_tags("<docs> [1]")
    ('Enable it explicitly: [1]', '[1]')
    """
    return re.sub(r"[ \t]{2,}", " ", WHOLE_TAG.sub("", text)).strip()


def _gist(sentence: str) -> str:
    return strip_citations(sentence).strip().rstrip(":：.。 ").lower()


@functools.cache
def _example_answers() -> tuple[frozenset[str], frozenset[str]]:
    """The worked example's answer in every language, as the gist of each sentence and the lines of its code."""
    prose, code = set(), set()
    for lang in LANGUAGES.values():
        for part in segments(lang.rules.example[1]):
            lines = [line.strip() for line in part.text.splitlines() if line.strip()]
            if part.is_code:
                code.update(lines)
            else:
                prose.update(_gist(s) for line in lines for s in split_line(line))
    return frozenset(prose), frozenset(code)


def without_example(answer: str) -> str:
    """The model's answer without what it pasted from the worked example (its sentences, in any language, and its
    code): they are about a coffee machine, never the documents, and a small model sometimes copies them after its
    own answer.

    >>> without_example("You can't [2]. Start a descaling cycle from Python [1]:\\n\\n```python\\nmachine.descale(tablets=1)\\n```")
    "You can't [2]."
    >>> without_example("Use `verify=False` [1]:\\n```\\na = 1\\n\\n\\n\\nb = 2\\n```\\n")  # nothing pasted: unchanged
    'Use `verify=False` [1]:\\n```\\na = 1\\n\\n\\n\\nb = 2\\n```\\n'
    """
    prose, code = _example_answers()

    def own_lines(text: str) -> str:
        lines = []
        for line in text.split("\n"):
            sentences = split_line(line)
            kept = [s for s in sentences if _gist(s) not in prose]
            lines.append(line if len(kept) == len(sentences) else " ".join(kept))
        return "\n".join(lines)

    text = "\n".join(line for line in outside_code(answer, own_lines).split("\n") if line.strip() not in code)
    if text == answer:  # nothing pasted: the answer as written, to the character
        return answer
    return re.sub(r"\n{3,}", "\n\n", drop_empty_code_blocks(text)).strip()


_OPEN_TAG = re.compile(TAG.pattern + r"[^<>]*$", re.I)  # a tag still being written at the end of a draft


def shown_draft(draft: str) -> str:
    r"""The model's text while it streams, as the window may show it: without the worked example it pasted and the
    prompt's tags it wrote out (whole, or still being written at the end). The checked answer drops them too
    (``without_example``, ``without_prompt_tags``); a reader watching the draft saw a coffee machine's descaling
    cycle and ``<doc id="1" source="…`` go by.

    >>> shown_draft('Use `verify=False` [1]. Start a descaling cycle from Python [1]:\n\n```python\nmachine.descale(')
    'Use `verify=False` [1].'
    >>> shown_draft('Set it [2].\n<doc id="1" source="environment_variables.md')
    'Set it [2].\n'
    >>> shown_draft("Off by default [1].\n")  # nothing copied: as written
    'Off by default [1].\n'
    """
    text = _OPEN_TAG.sub("", WHOLE_TAG.sub("", draft)) if "<" in draft else draft
    text = _without_example_begun(text)
    cleaned = without_example(text)
    return text if cleaned == text else cleaned


def _without_example_begun(text: str) -> str:
    r"""The draft without its last words when they begin a sentence or a line of code of the worked example (the
    rest of which is on its way): "Start a descaling cy", "machine.desc".

    >>> _without_example_begun("Off [1]. Start a descaling cy"), _without_example_begun("x\nmachine.desc")
    ('Off [1]. ', 'x\n')
    >>> _without_example_begun("Start the client")  # not the example's
    'Start the client'
    """
    prose, code = _example_answers()
    line = text.rpartition("\n")[2]
    tail = split_line(line)[-1] if line.strip() else ""
    begun = _gist(re.sub(r"\s*\[\d*$", "", tail))  # a citation being written
    if len(line.strip()) >= 6 and any(c.startswith(line.strip()) for c in code):
        return text[: len(text) - len(line)]
    if len(begun) >= 8 and any(p.startswith(begun) for p in prose):
        return text[: len(text) - len(line)] + line[: line.rfind(tail)]
    return text


_HTML_CODE = re.compile(r"<code>([^<`\n]+)</code>")
# A layout tag as pages write it: lower case, closing (</div>), bare (<br>, <br/>) or with attributes that have
# values (<img src="…"/>). "a<b and c>d" and "Array<Source>" are no tags.
_LAYOUT_TAG = re.compile(r"<(?:/(?:NAMES)\s*|(?:NAMES)(?:\s+[^<>\n=]+=[^<>\n]*)?\s*/?)>".replace(
    "NAMES", "div|img|figure|figcaption|picture|source|p|br|span|a|em|strong|b|i|u|center|small|sub|sup|abbr"))
_BEFORE_STOP = re.compile(r"[ \t]+(?=[.,;:!?。，：；！？])")


def without_html(prose: str) -> str:
    """A sentence the model wrote without the HTML layout it copied from a page (a figure, its caption, ``<br>``);
    ``<code>`` becomes backticks, and tags inside inline code stay.

    >>> without_html('<div align="center"> <img src="p.svg"/> <figcaption><em>How a proxy works [1].')
    'How a proxy works [1].'
    >>> without_html("Run <code>make</code>.<br>Add `<br>` to break a <b>new</b> line.")
    'Run `make`. Add `<br>` to break a new line.'
    >>> without_html("<figcaption>A proxy</figcaption></figure>Proxies forward [1]. If a<b and c>d, swap `a  b`.")
    'A proxy Proxies forward [1]. If a<b and c>d, swap `a  b`.'
    """
    def plain(text: str) -> str:  # every tag leaves a space, none before a stop ("bold</b>." is "bold.")
        new = _LAYOUT_TAG.sub(" ", _HTML_CODE.sub(r"`\1`", text))
        return text if new == text else _BEFORE_STOP.sub("", re.sub(r"[ \t]{2,}", " ", new))

    out = outside_inline_code(prose, plain)
    return out.strip() if out != prose else prose


def without_tag_lines(prose: str) -> str:
    """Text without the lines that hold layout tags alone: the model ends an answer it copied with a page's
    ``<br>`` or ``</div>``, a line of no sentence, which stayed between the shown ones.

    >>> without_tag_lines("Set REPOBOT_HOME [1].\\n<br>\\n</div>\\nUse `<br>` [2].")
    'Set REPOBOT_HOME [1].\\nUse `<br>` [2].'
    """
    return "\n".join(line for line in prose.split("\n") if not line.strip() or without_html(line).strip())

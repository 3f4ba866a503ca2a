"""Markup: markdown and HTML around a page's words, and the words without it.

Paragraphs (wrapped lines re-joined, the docs generator's ``/// tip`` and
``!!! note`` markers dropped), link definitions, HTML tags, emphasis and
heading attributes. Pure functions of strings, over ``text``'s sentences.

>>> [strip_markup(p) for p in paragraphs("## Redirects { #r }\\nOff by\\ndefault, see [the guide](q.md).")]
['Redirects', 'Off by default, see the guide.']
"""

from __future__ import annotations

import re
from typing import Iterator, NamedTuple

from .text import split_line

DIRECTIVE = re.compile(r"^[ \t]*(?:///|:::).*\n?", re.M)  # the generator's lines: "/// tip", "///", "::: httpx.Client"
ADMONITION = re.compile(r"^([ \t]*)[!?]{3}\+?[ \t]+[A-Za-z]+(?:[ \t]+\"[^\"\n]*\")?[ \t]*", re.M)  # '!!! note "Title"'


# A list item's marker ("* ", "+ ", "1. ", or one alone on its line) starts a block, as "-" does; "*and* the server" is
# emphasis that continues its paragraph. A thematic break ("***", "- - -", "___") ends one and is no prose.
_ITEM = re.compile(r"[*+](?:\s|$)|\d+\.\s")
_BREAK = re.compile(r"([*_-])(?:\s*\1){2,}\s*$")


def paragraphs(text: str) -> list[str]:
    """Markdown prose as logical lines: wrapped lines re-joined; headings, list items and quotes kept apart.

    >>> paragraphs("## Title\\nA sentence that\\nwraps here.\\n- item one\\n- item two")
    ['## Title', 'A sentence that wraps here.', '- item one', '- item two']
    >>> paragraphs('Upload it.\\n!!! tip "Large files"\\n    It is safe.\\n\\n!!! note Also this.')  # no markers
    ['Upload it.', 'It is safe.', 'Also this.']
    >>> paragraphs("Both the client\\n*and* the server must support it.\\n* an item\\n+ another")  # emphasis, then items
    ['Both the client *and* the server must support it.', '* an item', '+ another']
    >>> paragraphs("Some text here\\n***\\nNext one.\\n*\\nLast.")  # a thematic break, a bare marker
    ['Some text here', 'Next one.', '* Last.']
    """
    out, current = [], []
    for line in text.splitlines() + [""]:
        stripped = line.strip()
        directive = DIRECTIVE.match(stripped) or ADMONITION.match(stripped)  # the generator's, not prose
        new_block = not stripped or stripped.startswith(("#", "-", "|", ">")) or _ITEM.match(stripped)
        rule = _BREAK.match(stripped)
        if (new_block or directive or rule) and current:
            out.append(" ".join(current))
            current = []
        if rule:
            continue
        if directive:  # a marker goes; text on its line ("!!! warning Reuse one client.") is a paragraph's start
            current = [rest] if (rest := ADMONITION.sub("", stripped)) and rest != stripped else []
            continue
        if stripped.startswith("#"):
            out.append(stripped)
        elif stripped:
            current.append(stripped)
    return out


def prose_sentences(text: str) -> Iterator[str]:
    """Sentences of markdown prose, paragraph by paragraph (wrapped lines re-joined)."""
    for paragraph in paragraphs(text):
        yield from split_line(paragraph)


_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_EMPHASIS = re.compile(r"\*\*|__(?=\w)|(?<=\w)__|`")
_TAGS = re.compile(r"</?[a-zA-Z][^<>\n]*>")  # [^<>]: a run of "<a<a…" is read once, not once per "<"
_ATTRIBUTES = re.compile(r"\s*\{\s*[#.][^{}]*\}\s*$")  # mkdocs "## Title { #title }"


_LINK_DEFINITION = re.compile(  # [id]: destination "optional title", alone on its line (CommonMark's shape)
    r"""^[ \t]{0,3}\[[^\]\n]+\]:[ \t]*\S+(?:[ \t]+(?:"[^"\n]*"|'[^'\n]*'|\([^)\n]*\)))?[ \t]*$""", re.M)


def drop_link_definitions(prose: str) -> str:
    """Prose without markdown's link reference definitions (``[id]: URL``): a target, not a sentence to quote.

    >>> drop_link_definitions("Python 3.9+\\n\\n[sync-support]: https://github.com/encode/httpx/issues/572")
    'Python 3.9+\\n\\n'
    >>> drop_link_definitions("[Note]: the pool is shared.")  # prose, not a definition
    '[Note]: the pool is shared.'
    """
    return _LINK_DEFINITION.sub("", prose)


def strip_tags(text: str) -> str:
    """Text without its HTML tags, their words kept: before a page's prose is cut into sentences, so that a
    tooltip's full stop (``<dfn title="… go. 🍪">``) ends no sentence.

    >>> strip_tags('Declare <dfn title="Have a last cookie before you go. 🍪">**cookies**</dfn> in FastAPI.')
    'Declare **cookies** in FastAPI.'
    """
    return _TAGS.sub("", text)


def strip_markup(text: str) -> str:
    """Markdown reduced to its words; identifiers keep their underscores.

    >>> strip_markup("## **Not** by `default`, see [the guide](quickstart.md#redirects) - follow_redirects { #x }")
    'Not by default, see the guide - follow_redirects'
    """
    text = _ATTRIBUTES.sub("", _TAGS.sub("", _LINK.sub(r"\1", text)))
    text = re.sub(r"^\s*(#+|>|[-*+]|\d+\.)\s+", "", text)
    return _EMPHASIS.sub("", text).strip()


def heading_title(raw: str) -> str:
    """A heading's title without a trailing attribute list.

    >>> heading_title("Path Parameters { #path-parameters }")
    'Path Parameters'
    """
    return without_attributes(raw).strip() or raw.strip()


def without_attributes(text: str) -> str:
    """``text`` without the attribute list mkdocs puts after a heading's words, for the site generator.

    >>> without_attributes("Environment Variables { #environment-variables }"), without_attributes(" { .x }")
    ('Environment Variables', '')
    """
    return _ATTRIBUTES.sub("", text)


class FrontMatter(NamedTuple):
    lines: int  # the lines it spans at the top of the page, its fences included (0: it has none)
    fields: dict[str, str]  # its top-level ``key: value`` pairs, keys lower-cased, values unquoted


_FENCES = {"---": ("---", "..."), "+++": ("+++",)}  # YAML (Jekyll, mkdocs, Obsidian), TOML (Hugo)
_FIELD = re.compile(r"([A-Za-z_][\w-]*)[ \t]*[:=][ \t]*(.*?)[ \t]*")
NO_FRONT_MATTER = FrontMatter(0, {})


def front_matter(text: str) -> FrontMatter:
    """The metadata block at the top of a page, which is about the page and no part of its text: a ``---`` (or
    ``+++``) line, then ``key: value`` lines, then the closing fence. A page that opens with a rule and prose has none.

    >>> front_matter("---\\ntitle: \\"Setup\\"\\ntags: [a, b]\\nlang: fr\\n---\\n# Setup")
    FrontMatter(lines=5, fields={'title': 'Setup', 'tags': '[a, b]', 'lang': 'fr'})
    >>> front_matter("---\\nJust a rule, then prose.\\n---\\n"), front_matter("+++\\nversion = '2.0'\\n+++").fields
    (FrontMatter(lines=0, fields={}), {'version': '2.0'})
    """
    text = text.lstrip("\ufeff")
    closing = _FENCES.get(text[:4].rstrip())  # most pages have none: nothing more is read of them
    if closing is None:
        return NO_FRONT_MATTER
    lines = text.split("\n", 400)[:400]
    for number, line in enumerate(lines[1:], 2):
        if line.rstrip() in closing:
            fields: dict[str, str] = {}
            for m in filter(None, (_FIELD.fullmatch(raw) for raw in lines[1 : number - 1])):
                fields.setdefault(m[1].lower(), m[2].strip("\"'"))
            return FrontMatter(number, fields) if fields else NO_FRONT_MATTER
    return NO_FRONT_MATTER

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

LANGUAGES = ("en", "zh", "fr")


class Language(NamedTuple):
    code: str
    escape: str  # the fixed "not found" phrase; programs recognise it, keep it exact
    deduction: str  # the marker for an answer deduced from what the passages imply
    question_label: str
    system: str  # template with {rule2} and {example}
    rule2: str  # "write nothing that is not in the passages, even if you know it"
    example: str


_ZH = Language(
    "zh",
    "文档里没有找到相关说明",
    "（推断）",
    "问题：",
    """你是文档答疑助手。只根据 <docs> 里的文档片段回答用户的问题。

规则：
- 每句话后面用 [编号] 注明依据的是哪个片段，可以同时引用多个，如 [1][3]。
{rule2}- 如果这些片段不足以回答问题，就直接说"文档里没有找到相关说明"，不要猜。
- 用中文回答，简洁，代码保持原样。

片段间接说明的内容可以回答，但要在句首标明"（推断）"。
{example}""",
    "- 片段里没有的信息不要写，哪怕你自己知道。\n",
    "格式示例：该选项默认关闭 [2]。可以在创建客户端时开启 [1][3]。",
)

_EN = Language(
    "en",
    "The documents do not cover this.",
    "(Deduction)",
    "Question: ",
    """You answer questions about documentation. Answer only from the passages inside <docs>.

Rules:
- After every sentence, write [n] for the passage it rests on; several are allowed, as in [1][3].
{rule2}- If the passages are not enough to answer, reply exactly "The documents do not cover this." and do not guess.
- Answer in English, be concise, and keep code exactly as it appears.

If the passages only imply the answer, you may answer, starting the sentence with "(Deduction)".
{example}""",
    "- Write nothing that is not in the passages, even if you know it.\n",
    "Format example: The option is off by default [2]. You can enable it when creating the client [1][3].",
)

_FR = Language(
    "fr",
    "Les documents ne traitent pas de ce point.",
    "(Déduction)",
    "Question : ",
    """Tu réponds aux questions sur une documentation. Réponds uniquement d'après les passages dans <docs>.

Règles :
- Après chaque phrase, écris [n] pour le passage sur lequel elle s'appuie ; plusieurs sont permis, comme [1][3].
{rule2}- Si les passages ne suffisent pas pour répondre, réponds exactement « Les documents ne traitent pas de ce point. » et ne devine pas.
- Réponds en français, de façon concise, et garde le code tel quel.

Si les passages ne font que suggérer la réponse, tu peux répondre en commençant la phrase par « (Déduction) ».
{example}""",
    "- N'écris rien qui ne soit pas dans les passages, même si tu le sais.\n",
    "Exemple de format : L'option est désactivée par défaut [2]. On peut l'activer en créant le client [1][3].",
)

LANGUAGE_TABLE = {lang.code: lang for lang in (_EN, _ZH, _FR)}
ESCAPE_PHRASES = tuple(lang.escape for lang in LANGUAGE_TABLE.values())

_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]")
_FRENCH_WORDS = re.compile(
    r"\b(le|la|les|des|une|est|que|qui|pour|dans|avec|comment|quel|quelle|quels|est-ce|sont|par|pas|sur|faut|peut)\b",
    re.I,
)
_ENGLISH_WORDS = re.compile(r"\b(the|is|are|does|do|how|what|which|can|with|for|to|of|in|by|not)\b", re.I)


def detect_language(text: str) -> str:
    """``zh`` when the text has Chinese characters, ``fr`` for French, else ``en``.

    >>> [detect_language(q) for q in ["httpx 支持 HTTP/3 吗？", "Comment activer les redirections ?", "Does httpx retry?"]]
    ['zh', 'fr', 'en']
    """
    if len(_CJK.findall(text)) >= 2:
        return "zh"
    french = len(_FRENCH_WORDS.findall(text)) + 2 * len(re.findall(r"[éèêàùçôî]", text, re.I))
    english = len(_ENGLISH_WORDS.findall(text))
    return "fr" if french > english else "en"


def language(code: str) -> Language:
    try:
        return LANGUAGE_TABLE[code]
    except KeyError:
        raise ValueError(f"Unknown answer language {code!r}: choose auto, {', '.join(LANGUAGES)}.") from None


def system_prompt(code: str, *, strict: bool = True) -> str:
    """The four rules in language ``code``; ``strict=False`` drops "even if you know it" (for experiments)."""
    lang = language(code)
    return lang.system.format(rule2=lang.rule2 if strict else "", example=lang.example)


_TAG = re.compile(r"<(/?)(docs?)(?=[\s>/]|$)", re.I)


def neutralise_tags(text: str) -> str:
    """Make ``<doc``, ``</doc>``, ``<docs>`` and ``</docs>`` in document text inert.

    >>> neutralise_tags('a </doc> <doc id="9" source="x"> </DOCS> <document>')
    'a &lt;/doc> &lt;doc id="9" source="x"> &lt;/DOCS> <document>'
    """
    return _TAG.sub(r"&lt;\1\2", text)


def _attribute(value: str) -> str:
    return value.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;").replace("\n", " ")


def build_context(passages: Sequence[tuple[str, str]]) -> str:
    """Wrap (source, text) pairs in numbered <doc> tags, ids 1..N in the order given."""
    parts = [
        f'<doc id="{i}" source="{_attribute(source)}">\n{neutralise_tags(text)}\n</doc>'
        for i, (source, text) in enumerate(passages, 1)
    ]
    return "<docs>\n" + "\n".join(parts) + "\n</docs>"


def build_messages(
    question: str, passages: Sequence[tuple[str, str]], *, lang: str, strict: bool = True
) -> list[dict[str, str]]:
    """The exact chat messages sent to the model."""
    label = language(lang).question_label
    user = f"{build_context(passages)}\n\n{label}{question.strip()}"
    return [{"role": "system", "content": system_prompt(lang, strict=strict)}, {"role": "user", "content": user}]


def rewrite_messages(question: str) -> list[dict[str, str]]:
    """Messages asking the model to turn a question into a short search query (the lesson's rewrite)."""
    return [
        {
            "role": "system",
            "content": "Rewrite the user's question as a short search query of key terms for documentation "
            "search. Keep code identifiers exactly. Reply with the query only.",
        },
        {"role": "user", "content": question.strip()},
    ]

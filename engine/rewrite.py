"""Rewrite: the lesson's query rewriting, done by the model, checked before it is used.

A question in another language than the documents is translated into theirs
before retrieval, and the sentences of an answer written in the user's language
are translated back for the support check. The model's output is only a
suggestion: ``accept_query`` refuses an empty, overlong or answered rewrite,
and retrieval always fuses the original query too, so a bad rewrite cannot lose
what the original finds.

>>> accept_query("Does HTTPX support HTTP/3?", "httpx 支持 HTTP/3 吗？", "en")
'Does HTTPX support HTTP/3?'
>>> accept_query("Yes, HTTPX supports HTTP/3.", "httpx 支持 HTTP/3 吗？", "en") is None
True
"""

from __future__ import annotations

import re
from typing import Sequence

from .languages import ESCAPE_PHRASES, answer_language, detect_language, language
from .text import CJK, LETTER, split_line, strip_citations
from .tokens import content_words

# A worked example on another topic (the languages' question_example): the model sees the task done once, and a
# copy of it is easy to spot.
_EXAMPLE_NAMES = ("pandas", "parquet")  # its subject and object, which a copy carries into another question
_EXAMPLE_WORDS = re.compile(rf"\s*\b(?:{'|'.join(_EXAMPLE_NAMES)})\b", re.I)


def translation_messages(question: str, target: str) -> list[dict[str, str]]:
    """Messages asking the model to translate a question into language ``target`` (never to answer it).

    A worked example shows the task once, from Chinese into English or from English into the other languages.
    Without it, the 0.5B gave English questions back unchanged when asked for Chinese or Japanese, and answered
    some instead of translating them.

    >>> [m["content"] for m in translation_messages("How do I upload a file?", "zh")[1:]]
    ['Can pandas read parquet files?', 'pandas 能读取 parquet 文件吗？', 'How do I upload a file?']
    """
    into = language(target)
    system = (
        f"Translate the user's question into {into.name}. Keep code, names and identifiers exactly as written. "
        f"Reply with the translated question only; never answer it."
    )
    shown = language("zh" if target == "en" else "en").question_example
    return [{"role": "system", "content": system}, {"role": "user", "content": shown},
            {"role": "assistant", "content": into.question_example}, {"role": "user", "content": question.strip()}]


_ANSWERED = re.compile(r"^(?:(?:yes|no|oui|non|sure|certainly)\b|(?:はい|いいえ|是的|可以)[、，,。])", re.I)  # answered, not translated
_ASKS = re.compile("[?？؟]")  # a question mark, in any script
_STRAY = re.compile(f"[{CJK}]+")  # a run of the characters a translation into a Latin-script language leaves behind


def without_stray_script(text: str, target: str) -> str:
    """A translation into a Latin-script language with a word or two left in the question's script, without them.

    The 0.5B sometimes keeps one Chinese or Japanese word in an English
    rewrite; the whole rewrite then reads as Chinese and was refused, and the
    question was searched by its identifiers alone. The stray runs go when
    they are short beside the rest (at most a fifth as many characters as its
    letters); otherwise the text is returned as it is.

    >>> without_stray_script("The service requires双向 TLS with our own client certificate.", "en")
    'The service requires TLS with our own client certificate.'
    >>> without_stray_script("Can HTTPx support断点续传?", "en"), without_stray_script("重定向?", "zh")
    ('Can HTTPx support断点续传?', '重定向?')
    """
    runs = _STRAY.findall(text)
    if not runs or target in ("zh", "ja") or 5 * sum(map(len, runs)) > len(LETTER.findall(_STRAY.sub("", text))):
        return text
    return re.sub(r"\s+(?=[,.?!;:])", "", re.sub(r"[ \t]{2,}", " ", _STRAY.sub(" ", text))).strip()


def without_example_words(text: str, question: str) -> str:
    """A translation without the example's words that the question does not have: a question with no subject
    ("Peut-on limiter …", "能不能 …") is sometimes given the example's ("Can pandas limit …").

    >>> without_example_words("Can pandas limit the number of concurrent connections?", "Peut-on limiter … ?")
    'Can limit the number of concurrent connections?'
    >>> without_example_words("Can pandas read parquet files?", "pandas 能读 parquet 吗？")
    'Can pandas read parquet files?'
    """
    asked = question.lower()
    return _EXAMPLE_WORDS.sub(lambda m: m[0] if m[0].strip().lower() in asked else "", text).strip()


def accept_query(output: str, question: str, target: str) -> str | None:
    """The rewritten query if it looks like a question in ``target``, else None (the original is used alone).

    A reply that opens with a code block answers the question instead (seen: "```python" for a Japanese question
    on Swagger UI's colours, searched as "python").

    >>> accept_query("", "q", "en"), accept_query("Can pandas read parquet files?", "httpx 会重试吗", "en")
    (None, None)
    >>> accept_query("```python\\nimport monokai\\n```", "/docs の配色を変えたいです", "en") is None
    True
    """
    line = _reply_line(output)
    if line is None:
        return None
    text = without_stray_script(line.strip("\"'“”` "), target)
    if text == language(target).question_example:  # the example given back whole
        return None
    text = without_example_words(text, question)
    if not text or len(text) > 3 * len(question) + 40:
        return None
    if _ANSWERED.match(text) or any(phrase.strip("。.") in text for phrase in ESCAPE_PHRASES):
        return None
    if detect_language(text) != target or text.strip() == question.strip():
        return None
    return text


def query_messages(question: str) -> list[dict[str, str]]:
    """Messages asking the model to turn a question into a short search query (the lesson's rewrite)."""
    system = ("Rewrite the user's question as a short search query of key terms for documentation search. "
              "Keep code identifiers exactly. Reply with the query only.")
    return [{"role": "system", "content": system}, {"role": "user", "content": question.strip()}]


def accept_terms(output: str, question: str) -> str | None:
    """The first line of a search-query rewrite, unless it is empty or far longer than the question.

    >>> accept_terms("timeout disable None\\nmore", "How can I stop waiting forever?")
    'timeout disable None'
    """
    line = _reply_line(output)
    return line if line is not None and len(line) <= 3 * len(question) + 40 else None


def _reply_line(output: str) -> str | None:
    """The first line of a rewrite, or None when the reply is empty or opens with a code block (an answer).

    >>> _reply_line("\\n  follow_redirects default\\nmore"), _reply_line("```python\\nimport httpx\\n```")
    ('follow_redirects default', None)
    """
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    return lines[0] if lines and not lines[0].startswith(("```", "~~~")) else None


def sentence_messages(sentence: str, source: str, target: str, quoted: bool = False) -> list[dict[str, str]]:
    """Messages asking for one sentence's translation from language ``source`` into ``target``, after an example.

    One sentence per call: given numbered lines, the small model sometimes wrote a line's translation under the
    next line's number. The example (the languages' ``translation_example``: a negation and a condition, kept) is
    a sentence no answer would say. Chosen on the calibrate half's verified answers (86 sentences, labelled
    blind): faithful translations went from 31 (numbered lines) to 36 (one per call) and 41 (one per call, this
    example); wrong ones stayed 16. On the report half (80): faithful 35 -> 48, wrong 10 -> 6.

    ``quoted``: the sentence is sent in quotation marks (the second try after the model gave it back unchanged,
    as it did with "Here's an example:" into Chinese).

    >>> [m["role"] for m in sentence_messages("Off by default.", "en", "zh")]
    ['system', 'user', 'assistant', 'user']
    >>> sentence_messages("Here is an example:", "en", "zh", quoted=True)[-1]["content"]
    '"Here is an example:"'
    """
    system = (
        f"Translate the {language(source).name} text into {language(target).name}, faithfully: keep every negation "
        "and condition, add nothing. Keep code, identifiers and numbers exactly. Reply with the translation only."
    )
    example = [{"role": "user", "content": language(source).translation_example},
               {"role": "assistant", "content": language(target).translation_example}]
    asked = f'"{sentence.strip()}"' if quoted else sentence.strip()
    return [{"role": "system", "content": system}, *example, {"role": "user", "content": asked}]


def accept_translation(output: str, target: str) -> str | None:
    """The first line of a sentence's translation, unless it is empty or the example's, copied.

    >>> accept_translation("默认不跟随重定向。\\n(note)", "zh")
    '默认不跟随重定向。'
    >>> accept_translation("应用重启时不会清空缓存，除非传入 `clear=True`。", "zh")  # the example, copied
    """
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    if not lines or lines[0] == language(target).translation_example:
        return None
    return lines[0]


def ranking_queries(asked: str, rewritten: str = "") -> list[str]:
    """What the passages' sentences are ranked against, for the quotes and the relevance floor: the question, its
    rewrite (or, for a follow-up, the question it follows) and, of each that tells a story before it asks, the
    sentence that asks. A long question matches any one sentence weakly: on the calibrate halves, 11 answerable
    questions were refused under the floor (``quote.MIN_EXTRACT_SCORE``) whose asking sentence alone finds their answer,
    6 of them with the key facts in the quotes; 4 unanswerable ones are quoted instead of refused.

    >>> ranking_queries("Our CDN answers slowly. Can I set a timeout?", "")
    ['Our CDN answers slowly. Can I set a timeout?', '', 'Can I set a timeout?']
    >>> ranking_queries("默认会跟随重定向吗？", "Does it follow redirects by default?")  # one sentence each
    ['默认会跟随重定向吗？', 'Does it follow redirects by default?']
    """
    return [asked, rewritten] + [ask for ask in (asking_sentence(asked), asking_sentence(rewritten)) if ask]


def asking_sentence(text: str) -> str | None:
    """The last sentence of ``text`` that asks (ends with a question mark), when ``text`` has more than one sentence.

    >>> asking_sentence("TypeError: Object of type URL is not JSON serializable. Wasn't that a string in requests?")
    "Wasn't that a string in requests?"
    >>> asking_sentence("内网服务只开了 h2c。httpx 能直接连吗？"), asking_sentence("Is httpx.Client thread-safe?")
    ('httpx 能直接连吗？', None)
    >>> asking_sentence("Can I run a job every 10 minutes, e.g. with APScheduler?") is None  # one sentence
    True
    """
    parts = [s for line in text.splitlines() for s in split_line(line)]  # "e.g." and "httpx.Client" end nothing
    asks = [p for p in parts if p.endswith(("?", "？"))]
    return asks[-1] if asks and len(parts) > 1 else None


def is_followup(question: str) -> bool:
    """Whether a question leans on an earlier turn: it points back ("it", "它", "what about") or names nothing.

    >>> is_followup("How do I turn it on for one request only?"), is_followup("那怎么关闭它？")
    (True, True)
    >>> is_followup("How do I set a timeout on a client?"), is_followup("And for the async client?")
    (False, True)
    >>> is_followup("Comment le désactiver pour une seule requête ?"), is_followup("Comment l’activer ?")
    (True, True)
    >>> is_followup("ok and what if only the connecting part should be short, but reading can take longer?")
    True
    """
    lang = answer_language(detect_language(question))
    lowered = question.lower().strip().replace("’", "'")
    if lang.code in ("zh", "ja"):
        points = any(word in question for word in lang.pointers)
    else:  # whole words or phrases ("le désactiver"), never part of a longer word
        points = any(re.search(rf"(?<![\w'-]){re.escape(p)}(?![\w'-])", lowered) for p in lang.pointers)
    opens = any(re.match(rf"{re.escape(o)}\b" if o.isascii() else re.escape(o), lowered) for o in lang.openers)
    return points or opens or not content_words(question)


def followup_messages(earlier: Sequence[tuple[str, str]], question: str) -> list[dict[str, str]]:
    """Messages asking for the question rewritten to stand alone, given the earlier turns (question, answer)."""
    name = answer_language(detect_language(question)).name
    system = (
        "Rewrite the user's last question so that it can be understood without the conversation: replace words "
        f"like 'it' or 'that' with what they refer to. Keep code and names exactly. Write it in {name}. "
        "Reply with the rewritten question only; never answer it."
    )
    shown = "\n".join(f"Q: {q.strip()}\nA: {strip_citations(a).strip()[:300]}" for q, a in earlier[-2:])
    return [{"role": "system", "content": system},
            {"role": "user", "content": f"Conversation:\n{shown}\n\nLast question: {question.strip()}"}]


def accept_standalone(output: str, question: str, follows: str = "") -> str | None:
    """The standalone question if it is one, else None: in the language it was asked for, and still a question
    (asked with a question mark, it keeps one). Seen: "那要怎么开启？需要额外安装什么吗？" after a turn on HTTP/2
    came back as an answer, "要开启 HTTP/2，你需要额外安装 `libhttp2` 库。", which was then searched and answered.

    >>> accept_standalone("How do I turn on follow_redirects for one request only?", "How do I turn it on for one request?")
    'How do I turn on follow_redirects for one request only?'
    >>> accept_standalone("How do I turn off redirects for the async client?",  # asked in English: no German answers
    ...                   "Und wie schalte ich das für den asynchronen Client aus?")
    'How do I turn off redirects for the async client?'
    >>> accept_standalone("要开启 HTTP/2，你需要额外安装 `libhttp2` 库。", "那要怎么开启？") is None
    True

    It must also keep something the follow-up asks about, when that names two things or more: "and who do I need
    to ask before putting one back on prod?", after a turn on staging backups, came back as "What is the name of the
    staging database?", which was searched and answered ("The staging database is the s3://… database").

    >>> accept_standalone("What is the name of the staging database?",
    ...                   "and who do I need to ask before putting one back on prod?") is None
    True
    >>> accept_standalone("Who must approve restoring a staging backup on prod?",
    ...                   "and who do I need to ask before putting one back on prod?")
    'Who must approve restoring a staging backup on prod?'

    And it must bring in something from the conversation: "那异步客户端呢？", after a turn on timeouts, came back as
    "异步客户端？", which lost the timeouts it asks about.

    >>> accept_standalone("异步客户端？", "那异步客户端呢？") is None
    True

    Nor may it be the question it ``follows`` given back: "Et je peux faire croire à l'appli que la requête vient
    d'une IP précise ?", after "Comment tester mon appli Starlette avec httpx sans lancer de serveur ?", came back
    as that question, which the model then answered again.

    >>> accept_standalone("Comment tester mon appli Starlette avec httpx sans lancer de serveur ?",
    ...                   "Et je peux faire croire à l'appli que la requête vient d'une IP précise ?",
    ...                   "Comment tester mon appli Starlette avec httpx sans lancer de serveur ?") is None
    True
    """
    text = accept_query(output, question, answer_language(detect_language(question)).code)  # what was asked for
    if text is None or (_ASKS.search(question) and not _ASKS.search(text)):
        return None
    kept = keeps_the_subject(text, question) and brings_in(text, question) and brings_in(text, follows)
    return text if kept else None


def brings_in(standalone: str, question: str) -> bool:
    """Whether a rewrite to stand alone has a content word the follow-up lacks (what "it" or "那…呢" stood for), or
    the question it follows lacks (what the follow-up adds).

    >>> brings_in("How do I set a timeout with the async client?", "And with the async client?")
    True
    >>> brings_in("With the asynchronous client?", "And with the async client?")
    False
    """
    words = content_words(standalone)
    return bool(words - _shared(words, content_words(question)))


def keeps_the_subject(standalone: str, question: str) -> bool:
    """Whether a rewrite to stand alone shares a content word with the follow-up it rewrites, when the follow-up
    has two or more (with fewer, "How do I turn it on?", the rewrite has to bring in the words) and both are in one
    language (a German follow-up may be rewritten in English).

    >>> keeps_the_subject("How do I enable follow_redirects?", "How do I turn it on?")
    True
    >>> keeps_the_subject("What is the staging database called?", "and who approves putting one back on prod?")
    False

    A word the rewrite spells out counts as kept: "And with the async client?", after a turn on timeouts, came
    back as "How do I set a timeout for an asynchronous request?".

    >>> keeps_the_subject("How do I set a timeout for an asynchronous request?", "And with the async client?")
    True
    """
    asked = content_words(question)
    if len(asked) < 2 or detect_language(standalone) != detect_language(question):
        return True
    return bool(_shared(content_words(standalone), asked))


def _shared(words: set[str], others: set[str]) -> set[str]:
    """The ``words`` that are one of ``others``, or one shortened from the other (at least 4 letters): "async" and
    "asynchronous", "auth" and "authentication".

    >>> sorted(_shared({"async", "auth", "to", "pool"}, {"asynchronous", "authentication", "token"}))
    ['async', 'auth']
    """
    def same(a: str, b: str) -> bool:
        short, long = sorted((a, b), key=len)
        return a == b or (len(short) >= 4 and long.startswith(short))
    return {w for w in words if any(same(w, o) for o in others)}


def in_context(earlier: Sequence[tuple[str, str]], question: str) -> str:
    """The follow-up after the question it follows: searched always, so "it" finds its topic even when the
    model's rewrite is refused or vague.

    >>> in_context([("Does httpx follow redirects?", "No [1].")], "How do I turn it on?")
    'Does httpx follow redirects? How do I turn it on?'
    """
    return f"{earlier[-1][0].strip()} {question.strip()}" if earlier else question.strip()

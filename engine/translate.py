"""Translate: a checked answer, written in the documents' language, shown in the question's language.

A question in another language than the documents' is answered in theirs, to its
rewrite (``model_question``): the small model follows English passages best in
English, and its English sentences are checked against them directly. Only the
sentences that passed are then translated, one call each, and a
translation that drops a name or number the sentence gave is not used: the
sentence is shown as written. Each shown sentence keeps its ids, and the
English it was checked as (``checked_as``). The model is reached through a
``complete`` function (messages, token cap -> reply), so this module never
loads one.

>>> from .support import Support
>>> answer = Choice("verified", "Pass `follow_redirects=True` [1].", [
...     Support("Pass `follow_redirects=True` [1].", [1], "supported", {1: 0.9}, None, "", cited_by="model")])
>>> shown = translated(answer, {"Pass `follow_redirects=True`.": "传入 `follow_redirects=True`。"})
>>> shown.text, shown.sentences[0].checked_as
('传入 `follow_redirects=True` [1]。', 'Pass `follow_redirects=True`.')
"""

from __future__ import annotations

from typing import Callable, Mapping, Sequence

from .copied import without_prompt_tags
from .languages import LANGUAGES, foreign_letters, language, negated, said
from .names import identifiers
from .quote import Choice
from .rewrite import accept_translation, sentence_messages
from .support import ALSO, HEADING, LEAD, answer_sentences
from .text import CJK_CHAR, cite, segments, strip_citations, strip_inline_code

TOP_PAGES = 3  # a page in the question's language among this many best passages: they are read in its language
Complete = Callable[[list[dict[str, str]], int], str]  # the model's reply to some messages, within a token cap


def reading_language(pages: Sequence[str], asked_in: str, documents_in: str) -> str:
    """The language the passages found for a question are read and its answer checked in: the question's own when
    one of the best ``TOP_PAGES`` passages is on a page in it (``pages``: each passage's page language, best first)
    and RepoBot answers in it, else the documents' main language.

    In a folder of English notes with one French page, "À qui dois-je envoyer ma demande de vacances ?" found that
    page second, but was translated and answered in English ("To send your vacation request, ask the on-call
    engineer"), whose sentences no French passage could back.

    >>> reading_language(["en", "fr", "en"], "fr", "en")
    'fr'
    >>> reading_language(["en", "en", "en", "fr"], "fr", "en")
    'en'
    """
    return asked_in if asked_in in pages[:TOP_PAGES] and asked_in in LANGUAGES else documents_in


def model_question(question: str, translation: str | None, asked_in: str, answer_in: str,
                   documents_in: str) -> tuple[str, str]:
    """The question the model is given and the language it writes in.

    ``translation``: the question in the documents' language, or None (the
    rewrite failed, or was the lesson's search terms, which are no question);
    ``asked_in``: the question's language; ``answer_in``: the answer's;
    ``documents_in``: the language the model writes for these documents. The
    model answers in the documents' language whenever it can: to the question
    itself if it is in that language, else to its translation. Without a
    translation it answers the question as asked, in the answer's language.
    A question in a language RepoBot does not answer in (Spanish, over English
    documents) is answered in English, to its translation: given the Spanish,
    the model writes a mix of the two that no passage backs.

    >>> model_question("httpx 会重试吗？", "Does httpx retry?", "zh", "zh", "en")
    ('Does httpx retry?', 'en')
    >>> model_question("httpx 会重试吗？", None, "zh", "zh", "en")  # the rewrite failed
    ('httpx 会重试吗？', 'zh')
    >>> model_question("Does httpx retry?", None, "en", "fr", "en")  # English, answered in French
    ('Does httpx retry?', 'en')
    >>> model_question("¿httpx reintenta?", "Does httpx retry?", "es", "en", "en")
    ('Does httpx retry?', 'en')
    """
    if asked_in == documents_in:
        return question, documents_in
    if translation:
        return translation, documents_in
    return question, answer_in


def to_translate(choice: Choice) -> list[str]:
    """The prose of an answer's shown sentences, without ids, in order: what is sent to be translated.

    >>> from .support import Support
    >>> to_translate(Choice("verified", "", [Support("Off [1].", [1], "supported", {}, None, ""),
    ...                                       Support("get(url)", [1], "supported", {}, None, "", True)]))
    ['Off.']
    """
    return [bare(s.text) for s in choice.sentences if not s.is_code and bare(s.text)]


def bare(sentence: str) -> str:
    """A sentence without its ids: how it is sent to be translated, and recorded as ``checked_as``."""
    return strip_citations(sentence).strip()


def same_names(sentence: str, translation: str) -> bool:
    """Whether a translation gives every code name and number the sentence gave, and no name it did not give.

    A name the translation adds (letter case counts) is the translator's guess: "`requests.Session`" for "is
    generally equivalent to", "`requests`" for "Requests will be retried". Of the labelled translations that keep
    their sentence's names, those that add one are on the calibrate split 1 wrong and 2 clumsy of 214 (none of the 88
    faithful), on the report split 1 wrong of 143 (none of the 75 faithful); the English sentence is shown instead.

    >>> same_names("Set `timeout=5.0` on the client.", "在客户端上设置 `timeout=5.0`。")
    True
    >>> same_names("Set `timeout=5.0` on the client.", "在客户端上设置超时。")
    False
    >>> same_names("Requests will be retried on httpx.ConnectError.", "`requests` 会在 httpx.ConnectError 时重试。")
    False
    """
    return (all(name in translation for name in identifiers(sentence))
            and all(name in sentence for name in identifiers(translation)))


def keeps_negation(sentence: str, translation: str) -> bool:
    """Whether a translation of a negative sentence is negative too: the small model turned "any content encoding
    … will not be automatically decoded" into "… 都会被自动解码" (will be decoded). Of the labelled translations of
    negative sentences, none lost its negation on the calibrate split (25); on the report split one did (of 13),
    labelled wrong (it lost a name too). The quoted retry and the check's own translation obey it as well: a flipped
    translation would mislead the support check as much as the reader.

    >>> keeps_negation("It is not followed.", "不会跟随。"), keeps_negation("It is not followed.", "会跟随。")
    (True, False)
    >>> keeps_negation("Redirects are followed.", "会跟随重定向。")
    True
    """
    return negated(translation) or not negated(sentence)


def faithful_form(sentence: str, translation: str) -> bool:
    """What a translation must keep of its sentence to be used: its names (``same_names``) and its negation
    (``keeps_negation``).

    >>> faithful_form("Set `verify=False`, not `cert`.", "设置 `verify=False`，而不是 `cert`。")
    True
    """
    return same_names(sentence, translation) and keeps_negation(sentence, translation)


def translated(choice: Choice, translations: Mapping[str, str]) -> Choice:
    """The answer with each shown prose sentence replaced by its translation (``translations``: bare sentence ->
    its translation), where there is one that keeps the sentence's names and negation (``faithful_form``); ids and
    code stay as they are. A
    translation loses any ``<doc>`` tag the model wrote into it.

    >>> from .support import Support
    >>> answer = Choice("verified", "Use a proxy [1].", [Support("Use a proxy [1].", [1], "supported", {}, None, "")])
    >>> translated(answer, {"Use a proxy.": "使用代理： </doc>"}).text
    '使用代理 [1]：'
    >>> title = Choice("verified", "**Proxies**", [Support("**Proxies**", [], "exempt", {}, None, HEADING)])
    >>> translated(title, {"**Proxies**": "代理"}).text  # a heading stays bold when the translation drops the marks
    '**代理**'
    """
    text, position, sentences = choice.text, 0, []
    for s in choice.sentences:
        found = text.find(s.text, position) if not s.is_code else -1
        wanted = without_prompt_tags(translations.get(bare(s.text)) or "") if found >= 0 else ""
        if not bare(wanted) or not faithful_form(s.text, wanted):
            sentences.append(s)
            if found >= 0:
                position = found + len(s.text)
            continue
        if s.reason == LEAD:
            wanted = still_leads(s.text, wanted)
        shown = f"**{wanted.strip().strip('*').strip()}**" if s.reason == HEADING else cite(wanted.strip(), s.cited)
        text = text[:found] + shown + text[found + len(s.text):]
        position = found + len(shown)
        sentences.append(s._replace(text=shown, checked_as=bare(s.text)))
    return choice._replace(text=text, sentences=sentences)


def still_leads(line: str, translation: str) -> str:
    """The translation of a line that leads into code, ending on a colon as the line does (the small model often
    ends it with a full stop, and it then reads as a claim of its own).

    >>> still_leads("You can install SOCKS support using `pip` [1]:", "你可以使用 `pip` 安装 SOCKS 支持。")
    '你可以使用 `pip` 安装 SOCKS 支持：'
    >>> still_leads("Like this:", "Comme ceci."), still_leads("Like this...", "Comme ceci.")
    ('Comme ceci:', 'Comme ceci.')
    >>> still_leads("Here is an example:", "这里是一个示例:")  # and a Chinese one ends on a full-width colon
    '这里是一个示例：'
    """
    text = translation.rstrip()
    if not strip_citations(line).rstrip().endswith((":", "：")) or not text.endswith((".", "。", ":")):
        return translation
    return text[:-1] + ("：" if CJK_CHAR.search(text) else ":")


def unquoted(text: str) -> str:
    """A reply without the quotation marks around the whole of it (what a quoted sentence is often given back in).

    >>> unquoted('"这里是一个示例："'), unquoted("「例：」"), unquoted('设置 "utf-8" 编码')
    ('这里是一个示例：', '例：', '设置 "utf-8" 编码')
    """
    text = text.strip()
    for opening, closing in ('""', "“”", "「」"):
        if len(text) > 1 and text[0] == opening and text[-1] == closing:
            return text[1:-1].strip()
    return text


def carries_example(sentence: str, translation: str, source: str, target: str) -> bool:
    """Whether a translation brings in what the translation example is about (a cache) and its sentence does not:
    the small model then copied part of the example ("…を処理するた、キャッシュはクリアされません" for a sentence on
    background tasks; "activé le cache" for one on ``verify=``). Such a translation is not used.

    >>> carries_example("Restart the server after saving.", "保存后重启服务器，缓存会被清空。", "en", "zh")
    True
    >>> carries_example("The cache is kept.", "缓存会保留。", "en", "zh")
    False
    """
    theirs, mine = language(target).example_topic, language(source).example_topic
    return theirs.casefold() in translation.casefold() and mine.casefold() not in sentence.casefold()


def same_words(text: str, sentence: str) -> bool:
    """Whether a reply is the sentence given back, whatever its quotes, backticks, spaces and letter case.

    >>> same_words("`With any of the methods above:", "With any of the methods above:"), same_words("如上：", "As above:")
    (True, False)
    """
    def letters(t: str) -> str:
        return "".join(c for c in t.casefold() if c.isalnum())
    return letters(text) == letters(sentence)


def translate_sentences(complete: Complete, sentences: Sequence[str], source: str, target: str,
                        tokens: int) -> dict[str, str]:
    """Each sentence with its translation from ``source`` into ``target``, where the model gave one (a call each,
    within ``tokens``).

    >>> translate_sentences(lambda messages, cap: {"Off.": "关。", "On.": ""}[messages[-1]["content"]],
    ...                     ["Off.", "On."], "en", "zh", 48)
    {'Off.': '关。'}

    A sentence the model gives back unchanged is asked once more, in quotation marks (the small model echoed
    "Here's an example:" into Chinese, and translated it when quoted):

    >>> replies = {"Here is an example:": "Here is an example:", '"Here is an example:"': '"这里是一个示例:"'}
    >>> translate_sentences(lambda messages, cap: replies[messages[-1]["content"]], ["Here is an example:"], "en",
    ...                     "zh", 48)
    {'Here is an example:': '这里是一个示例:'}

    So is one whose translation loses or adds a name, or loses its negation (``faithful_form``); the quoted try is
    kept when it keeps them ("You can modify … with the `follow_redirects` parameter:" lost the parameter's name):

    >>> line = "Change it with the `follow_redirects` parameter:"
    >>> replies = {line: "你可以修改参数：", f'"{line}"': "你可以用 `follow_redirects` 参数修改："}
    >>> translate_sentences(lambda messages, cap: replies[messages[-1]["content"]], [line], "en", "zh", 48)
    {'Change it with the `follow_redirects` parameter:': '你可以用 `follow_redirects` 参数修改：'}
    """
    found = {}
    for sentence in dict.fromkeys(sentences):
        translation = accept_translation(complete(sentence_messages(sentence, source, target), tokens), target)
        echoed = bool(translation) and same_words(translation, sentence)
        if source != target and (echoed or (translation and not faithful_form(sentence, translation))):
            again = unquoted(accept_translation(complete(sentence_messages(sentence, source, target, quoted=True),
                                                         tokens), target) or "")
            if again and not same_words(again, sentence) and (echoed or faithful_form(sentence, again)):
                translation = again
            elif echoed or not keeps_negation(sentence, translation):  # a flipped one would mislead the check too
                translation = None
        if translation and not carries_example(sentence, translation, source, target) \
                and set(foreign_letters(translation, target)) <= set(sentence):  # "環境变量": Chinese in Japanese
            found[sentence] = translation
    return found


def for_the_check(complete: Complete, answer: str, source: str, target: str) -> dict[str, str]:
    """An answer's prose sentences, written in ``source``, in the documents' language ``target``, which the support
    check reads beside them."""
    sentences = [s for seg in segments(answer) if not seg.is_code for s in answer_sentences(seg.text)]
    return translate_sentences(complete, sentences, source, target, 96)


def shown_in(complete: Complete, choice: Choice, source: str, target: str) -> Choice:
    """A checked answer's shown sentences, written in ``source``, in language ``target`` (the user's), where
    translated faithfully."""
    return translated(choice, translate_sentences(complete, to_translate(choice), source, target, 120))


def translated_note(written_in: str, shown_in: str) -> str:
    """Said beside an answer whose checked sentences were translated: the translation itself is not checked.

    >>> translated_note("en", "zh")
    'Translated into Chinese by the local model from its checked English answer: a translation can be wrong; each sentence keeps the English it was checked as.'
    """
    return said("en", "note_translated", checked=written_in, shown=shown_in)


def untranslated(choice: Choice) -> int:
    """How many of a translated answer's shown prose sentences stay in the language they were checked in: the
    model gave no translation that could be used (none, the example's, another script's letters, names or
    negation lost).

    A line of names alone ("**`httpx.Client`**") reads the same in every language and is not counted, nor the label
    RepoBot puts over the quotes after an answer, written in the answer's language. A sentence in Chinese or
    Japanese has no spaces between its words: each of its characters counts as one.

    >>> from .support import Support
    >>> untranslated(Choice("verified", "", [Support("关 [1]。", [1], "supported", {}, None, "", checked_as="Off."),
    ...                                       Support("Use a proxy [2].", [2], "supported", {}, None, ""),
    ...                                       Support("使用代理 [3]。", [3], "supported", {}, None, ""),
    ...                                       Support("**`httpx.Client`**", [], "exempt", {}, None, HEADING),
    ...                                       Support("文档中的相关原文：", [], "exempt", {}, None, ALSO)]))
    2
    """
    return sum(1 for s in choice.sentences if not (s.is_code or s.is_quote or s.checked_as or s.reason == ALSO)
               and _words(strip_inline_code(bare(s.text))) > 2)


def _words(text: str) -> int:
    """How many words ``text`` has: its spaced words, where each CJK character counts as one.

    >>> _words("Use a proxy."), _words("使用代理。"), _words("用 `proxy` 参数")
    (3, 4, 4)
    """
    spaced = [word for word in CJK_CHAR.sub(" ", text).split() if any(c.isalnum() for c in word)]
    return len(spaced) + len(CJK_CHAR.findall(text))


def untranslated_note(count: int, written_in: str, shown_in: str) -> str:
    """Said beside an answer some of whose sentences are shown untranslated (``untranslated``).

    >>> untranslated_note(1, "en", "ja")
    'One sentence is shown in English: the local model gave no faithful Japanese translation of it.'
    """
    key = "note_untranslated_one" if count == 1 else "note_untranslated"
    return said("en", key, count=count, checked=written_in, shown=shown_in)

"""Languages: one registry of what RepoBot knows about each language it answers in (texts in languages.json).

Each ``Language`` carries the lesson's four rules written in that language, its
fixed "not found" phrase (programs recognise it: keep it exact), its labels
(the command line's too), and the words the checker needs (stop words, negations). The CLI's and the
window's language choices come from ``ANSWER_LANGUAGES``; nothing else types
the list again.

``detect_language`` also names languages RepoBot reads but does not answer in
(German, Korean, Russian …), so that a multilingual documentation tree can be
told apart page by page.

>>> detect_language("httpx 默认会自动跟随重定向吗？"), detect_language("クエリを制限したいです")
('zh', 'ja')
>>> detect_language("Comment activer les redirections ?"), detect_language("Does httpx retry?")
('fr', 'en')
>>> language("zh").escape, language("zh").command_line["sources"]
('文档里没有找到相关说明', '来源：')
"""

from __future__ import annotations

import functools
import json
import re
import shlex
import string
from pathlib import Path
from typing import NamedTuple

from .text import CJK_IDEOGRAPHS, HANGUL, KANA, LETTER, strip_inline_code


class Rules(NamedTuple):
    """The system prompt's parts, in one language."""

    intro: str
    header: str
    cite: str  # rule 1: a [n] after every sentence
    strict: str  # rule 2: nothing that is not in the passages, even if you know it
    escape: str  # rule 3: the fixed phrase when the passages are not enough
    style: str  # rule 4: the user's language, concise, code as it appears
    shape: str  # the citation format shown with placeholders, so there is no sentence to copy
    deduction: str  # an answer the passages only imply, marked as a deduction
    example: tuple[str, str]  # a worked question and answer on prompt.EXAMPLE_PASSAGES (a coffee machine)
    unanswered: str  # a question on those passages that they do not answer (PromptStyle.refusal's worked turn)


class Language(NamedTuple):
    code: str
    name: str  # in English, for menus and messages
    escape: str  # the fixed "not found" phrase
    deduction: str  # the marker a deduced sentence starts with
    question_label: str
    quoted_label: str  # heads an answer quoted from the documents
    also_label: str  # heads the quotes shown after a verified answer
    missing_label: str  # "Not in the documents: {terms}", shown beside the escape phrase
    translation_example: str  # one sentence, the same in every language: the example shown to the translating model
    example_topic: str  # what that sentence is about ("cache"): a translation that brings it in copied the example
    question_example: str  # "Can pandas read parquet files?" in this language: how a question's translation is shown
    rules: Rules
    stopwords: frozenset[str] = frozenset()
    negations: tuple[str, ...] = ()  # whole words that make a sentence negative
    negation_compounds: tuple[str, ...] = ()  # words holding one that are not negative (无论 "whatever", 不同)
    pointers: tuple[str, ...] = ()  # words that point back at an earlier turn ("it", "它"): a follow-up question
    openers: tuple[str, ...] = ()  # how a follow-up may begin ("and", "what about", "那")
    command_line: dict[str, str] = {}  # the command line's labels ("Verdict: {verdict}", "Sources:"); English's if none
    names: dict[str, str] = {}  # the answer languages' names in this one ("en": "英文")


def _load() -> dict[str, Language]:
    """The languages' texts and word lists, from ``languages.json`` beside this module (a translator's file)."""
    data = json.loads((Path(__file__).with_name("languages.json")).read_text(encoding="utf-8"))
    out, english = {}, data["en"]["command_line"]
    for code, d in data.items():
        rules = Rules(**{**d["rules"], "example": tuple(d["rules"]["example"])})
        out[code] = Language(code, d["name"], d["escape"], d["deduction"], d["question_label"], d["quoted_label"],
                             d["also_label"], d["missing_label"], d["translation_example"],
                             d["translation_example_topic"], d["question_example"], rules,
                             frozenset(d["stopwords"]), tuple(d["negations"]), tuple(d.get("negation_compounds", ())),
                             tuple(d["pointers"]), tuple(d["openers"]), {**english, **d.get("command_line", {})},
                             d["language_names"])
    return out


LANGUAGES: dict[str, Language] = _load()
ANSWER_LANGUAGES = tuple(LANGUAGES)  # the languages RepoBot answers in: en, zh, fr, ja
LANGUAGE_CHOICES = ("auto",) + ANSWER_LANGUAGES  # for the CLI's --language and the window's menu
ESCAPE_PHRASES = tuple(lang.escape for lang in LANGUAGES.values())
STOPWORDS = frozenset().union(*(lang.stopwords for lang in LANGUAGES.values()))

_LATIN = ("en", "fr", "de", "es", "pt", "it", "tr")  # the Latin-script languages RepoBot tells apart
_CONFIDENT = 0.5  # below this probability a Latin-script text is read as English (code and names are English)
_NAMES = re.compile(r"\S*[._/()=<>\[\]{}:]\S*")  # read_excel, httpx.Client(), /docs, a=1
_SCRIPTS = (
    ("ja", re.compile(f"[{KANA}]")),
    ("ko", re.compile(f"[{HANGUL}]")),
    ("zh", re.compile(f"[{CJK_IDEOGRAPHS}]")),
    ("ru", re.compile(r"[\u0400-\u04ff]")),
    ("hi", re.compile(r"[\u0900-\u097f]")),
)
_UKRAINIAN = re.compile(r"[іїєґІЇЄҐ]")

# Languages RepoBot reads (``detect_language``) but does not answer in: named when it says so.
READ_ONLY_NAMES = {"ko": "Korean", "ru": "Russian", "uk": "Ukrainian", "hi": "Hindi", "de": "German",
                   "es": "Spanish", "pt": "Portuguese", "it": "Italian", "tr": "Turkish"}


def detect_language(text: str, share: float = 0.0) -> str:
    """The language of a question or a page, by script first, then by its character n-grams.

    Two kana or ideographs are enough for Japanese or Chinese (a question names
    code in Latin letters around them). Latin-script text, without its code and
    names, goes to py3langid's classifier, restricted to the Latin languages
    RepoBot tells apart (``_LATIN``); it reads a short question by its letters,
    where common words alone misread "pandas read_excel dando erro" as English.
    English wins when the classifier is unsure, or when nothing but code is left.
    ``share``: the least share of the letters a script needs beyond its two
    characters (for a page that quotes a phrase in Japanese, not for a question).

    >>> detect_language("Wie kann ich die Anfrage abbrechen?"), detect_language("Как отменить запрос?")
    ('de', 'ru')
    >>> detect_language("¿Cómo configuro un proxy en httpx?"), detect_language("Comment configurer un proxy en httpx ?")
    ('es', 'fr')
    >>> detect_language("Como configurar um proxy no httpx?"), detect_language("`httpx.get(url)`")
    ('pt', 'en')
    >>> page = ("When the documents do not answer a question, RepoBot says so in a fixed phrase of the question's "
    ...         "language, and does not guess: in Japanese, 見つかりませんでした.")
    >>> detect_language(page), detect_language(page, share=0.1)
    ('ja', 'en')
    """
    letters = len(LETTER.findall(text))
    for code, pattern in _SCRIPTS:
        found = len(pattern.findall(text))
        if found >= 2 and found >= share * letters:
            if code == "ru" and _UKRAINIAN.search(text):
                return "uk"
            return code
    words = _NAMES.sub(" ", strip_inline_code(text))
    if not LETTER.search(words):
        return "en"
    found, probability = _latin_classifier().classify(words)
    return found if probability >= _CONFIDENT else "en"


@functools.cache
def _latin_classifier():
    """py3langid's model (loaded once, in about 0.8 s), choosing among ``_LATIN`` only."""
    from py3langid.langid import MODEL_FILE, LanguageIdentifier

    classifier = LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)
    classifier.set_languages(list(_LATIN))
    return classifier


def answer_language(code: str) -> Language:
    """The language to answer in for a detected language: itself if RepoBot answers in it, else English.

    >>> answer_language("de").code, answer_language("zh").code
    ('en', 'zh')
    """
    return LANGUAGES.get(code, LANGUAGES["en"])


def said(code: str, key: str, **fields) -> str:
    """The command line's text ``key`` in answer language ``code`` (``languages.json``; English for any other), its
    ``written``, ``shown`` and ``checked`` fields language codes, named in that language.

    >>> said("zh", "checking_then", shown="zh")
    '正在对照段落核对草稿，然后把核对后的回答译成中文…'
    >>> print(said("fr", "checking_after", checked="en"))
    Traduction du jet en anglais pour le vérifier d'après les passages…
    """
    lang = answer_language(code)
    return lang.command_line[key].format(**{k: lang.names.get(v, v) if k in _NAMED else v for k, v in fields.items()})


_NAMED = {"written", "shown", "checked"}


def note_in(note: str, code: str) -> str:
    """One of the engine's notes, written in English (as the JSON keeps them), said in answer language ``code`` when
    ``languages.json`` has it (its ``note_*`` texts); as it is otherwise.

    >>> note_in(said("en", "note_untranslated", count=2, checked="en", shown="ja"), "ja")
    '2 文を英語のまま表示しています：ローカルモデルは忠実な日本語訳を出せませんでした。'
    >>> note_in(said("en", "note_second_failed"), "zh"), note_in("Generation stopped: length.", "zh")
    ('先读问题写出的第二稿，也没有得到段落的支持。', 'Generation stopped: length.')
    """
    for key, pattern in _NOTE_PATTERNS.items():
        found = pattern.fullmatch(note)
        if found:
            return said(code, key, **{k: _CODE_OF.get(v, v) for k, v in found.groupdict().items()})
    return note


def _pattern(template: str) -> re.Pattern:
    """A regular expression matching what ``template`` formats to, a field seen twice matching the same text."""
    parts, seen = [], set()
    for text, field, _, _ in string.Formatter().parse(template):
        parts.append(re.escape(text))
        if field:
            parts.append(f"(?P={field})" if field in seen else f"(?P<{field}>.+?)")
            seen.add(field)
    return re.compile("".join(parts))


_NOTE_PATTERNS = {key: _pattern(text) for key, text in LANGUAGES["en"].command_line.items() if key.startswith("note_")}
_CODE_OF = {name: code for code, name in LANGUAGES["en"].names.items()}


def needs_translation(asked: str, documents: str) -> bool:
    """Whether a question in language ``asked`` is translated for documents in ``documents``: not when it is in
    their language, nor in the one the model writes for them (English, for German documents).

    >>> needs_translation("zh", "en"), needs_translation("en", "de"), needs_translation("de", "de")
    (True, False, False)
    """
    return asked not in (documents, answer_language(documents).code)


def not_answered_note(asked: str) -> str | None:
    """Said beside an answer to a question in a language RepoBot reads but does not answer in; None otherwise.

    >>> not_answered_note("ko")
    'Asked in Korean, which RepoBot reads but does not answer in: the answer is in English (RepoBot answers in English, Chinese, French or Japanese).'
    >>> not_answered_note("fr") is None
    True
    """
    if asked in LANGUAGES:
        return None
    names = [lang.name for lang in LANGUAGES.values()]
    return (f"Asked in {READ_ONLY_NAMES.get(asked, 'a language')}, which RepoBot reads but does not answer in: the "
            f"answer is in English (RepoBot answers in {', '.join(names[:-1])} or {names[-1]}).")


def unindexed_note(asked: str, available: dict[str, int], indexed: frozenset[str] | None, root: str) -> str | None:
    """Said beside an answer when the folder ``root`` is a translated tree with pages in the question's language that
    are not indexed (by default only the app's language and English are): they were searched for the question by
    their words (``engine/twins.py``), but the model read their indexed originals. None otherwise.

    >>> unindexed_note("fr", {"en": 156, "fr": 125}, frozenset({"en"}), "docs")
    'Answered from the en pages. This folder also has 125 pages in French, which were only searched for your question: to have them read too, add French in Languages… (repobot index --corpus docs --languages en,fr).'
    >>> unindexed_note("fr", {"en": 156, "fr": 125}, frozenset({"en", "fr"}), "d"), unindexed_note("fr", {}, None, "d")
    (None, None)
    """
    pages = available.get(asked)
    if indexed is None or asked in indexed or not pages:
        return None
    name = LANGUAGES[asked].name if asked in LANGUAGES else READ_ONLY_NAMES.get(asked, asked)
    kept = sorted(indexed)
    return (f"Answered from the {', '.join(kept)} pages. This folder also has {pages:,} pages in {name}, which were "
            f"only searched for your question: to have them read too, add {name} in Languages… (repobot index "
            f"--corpus {shlex.quote(root)} --languages {','.join(kept + [asked])}).")


def command_line_note(note: str) -> str:
    """A note as the command line says it: ``unindexed_note`` names the window's Languages… button beside its
    command, which is all the command line has.

    >>> print(command_line_note(unindexed_note("fr", {"en": 156, "fr": 125}, frozenset({"en"}), "my docs")))
    Answered from the en pages. This folder also has 125 pages in French, which were only searched for your question: to have them read too, run `repobot index --corpus 'my docs' --languages en,fr`.
    >>> command_line_note("Asked in Korean.")
    'Asked in Korean.'
    """
    return _IN_LANGUAGES.sub(r"run `\g<command>`.", note)


_IN_LANGUAGES = re.compile(r"add [^()]+? in Languages… \((?P<command>repobot index --corpus .*)\)\.$")


_NEVER_WRITTEN = {  # letters of another script that a language's text never holds
    "zh": re.compile(f"[{KANA}{HANGUL}]"),
    "ja": re.compile(f"[{HANGUL}]"),
}
_OTHER_SCRIPTS = re.compile(f"[{KANA}{CJK_IDEOGRAPHS}{HANGUL}]")  # in English or French text
_IDEOGRAPH = re.compile(f"[{CJK_IDEOGRAPHS}]")


def foreign_letters(text: str, code: str) -> str:
    """The letters of ``text`` that language ``code`` never writes: kana in Chinese; in Japanese, Hangul and the
    simplified Chinese characters (outside the Japanese character sets, JIS X 0213); any CJK letter in English or
    French. The small model's Japanese translations mix in Chinese ("如何创建和读取環境变量").

    >>> foreign_letters("如何创建和读取環境变量以及 `PATH` 環境変数", "ja"), foreign_letters("環境変数を読み込みます", "ja")
    ('创读变', '')
    >>> foreign_letters("默认不跟随重定向", "zh"), foreign_letters("キャッシュ", "zh"), foreign_letters("Le cache", "fr")
    ('', 'キャッシュ', '')
    """
    never = _NEVER_WRITTEN.get(code, _OTHER_SCRIPTS)
    return "".join(ch for ch in text if never.match(ch) or (code == "ja" and _IDEOGRAPH.match(ch)
                                                            and not _in_japanese_sets(ch)))


def _in_japanese_sets(ch: str) -> bool:
    try:
        ch.encode("euc_jis_2004")
        return True
    except UnicodeEncodeError:
        return False


def language(code: str) -> Language:
    """The answer language ``code``; an error that lists the choices otherwise."""
    try:
        return LANGUAGES[code]
    except KeyError:
        raise ValueError(f"Unknown answer language {code!r}: choose one of {', '.join(LANGUAGE_CHOICES)}.") from None


_NEGATION = re.compile(
    r"\b(?:"
    + "|".join(sorted({re.escape(w) for lang in LANGUAGES.values() for w in lang.negations if w.isascii()}))
    + r")\b|n't|"
    + "|".join(sorted({w for lang in LANGUAGES.values() for w in lang.negations if not w.isascii()})),
    re.I,
)
_ASSIGNMENT = re.compile(r"\w+\s*=\s*\w+")
_NOT_NEGATIONS = re.compile("|".join(sorted({w for lang in LANGUAGES.values() for w in lang.negation_compounds})) or "(?!)")


def negated(text: str) -> bool:
    """Whether a sentence is negative, in any answer language ("does not", "n'est pas", "不会").

    Code is not prose: ``timeout=None`` and backticked spans are not negations, nor a word that only holds one
    (无论 "whatever", 不同 "different").

    >>> negated("HTTPX does not follow redirects."), negated("Pass `timeout=None`."), negated("默认不会跟随")
    (True, False, True)
    >>> negated("无论哪种编码都会被解码。"), negated("タイムアウトなしで送信されます。")
    (False, True)
    """
    return bool(_NEGATION.search(_NOT_NEGATIONS.sub(" ", _ASSIGNMENT.sub(" ", strip_inline_code(text)))))

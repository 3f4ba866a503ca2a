"""Languages: one registry of what RepoBot knows about each language it answers in.

Each ``Language`` carries the lesson's four rules written in that language, its
fixed "not found" phrase (programs recognise it: keep it exact), its labels,
and the words the checker needs (stop words, negations). The CLI's and the
window's language choices come from ``ANSWER_LANGUAGES``; nothing else types
the list again.

``detect_language`` also names languages RepoBot reads but does not answer in
(German, Korean, Russian …), so that a multilingual documentation tree can be
told apart page by page.

>>> detect_language("httpx 默认会自动跟随重定向吗？"), detect_language("クエリを制限したいです")
('zh', 'ja')
>>> detect_language("Comment activer les redirections ?"), detect_language("Does httpx retry?")
('fr', 'en')
>>> language("zh").escape
'文档里没有找到相关说明'
"""

from __future__ import annotations

import re
from typing import NamedTuple

from .text import CJK_IDEOGRAPHS, HANGUL, KANA, strip_inline_code


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


class Language(NamedTuple):
    code: str
    name: str  # in English, for menus and messages
    escape: str  # the fixed "not found" phrase
    deduction: str  # the marker a deduced sentence starts with
    question_label: str
    quoted_label: str  # heads an answer quoted from the documents
    missing_label: str  # "Not in the documents: {terms}", shown beside the escape phrase
    rules: Rules
    stopwords: frozenset[str] = frozenset()
    negations: tuple[str, ...] = ()  # whole words that make a sentence negative
    pointers: tuple[str, ...] = ()  # words that point back at an earlier turn ("it", "它"): a follow-up question
    openers: tuple[str, ...] = ()  # how a follow-up may begin ("and", "what about", "那")


_EN = Language(
    "en", "English", "The documents do not cover this.", "(Deduction)", "Question: ",
    "Quoted from the documents:", "Not in the documents: {terms}",
    Rules(
        "You answer questions about documentation. Answer only from the passages inside <docs>.",
        "Rules:",
        "After every sentence, write [n] for the passage it rests on; several are allowed, as in [1][3].",
        "Write nothing that is not in the passages, even if you know it.",
        'If the passages are not enough to answer, reply exactly "The documents do not cover this." and do not guess.',
        "Answer in English, be concise, and keep code exactly as it appears.",
        "Every sentence ends with the ids of its passages, like this: … [2]. … [1][3].",
        'If the passages only imply the answer, you may answer, starting the sentence with "(Deduction)".',
        ("How often should I descale it, and how?",
         "Descale the machine every three months [1]. Start a descaling cycle from Python [1]:\n\n"
         "```python\nmachine.descale(tablets=1)\n```"),
    ),
    frozenset(
        """a an and are as at be but by can do does for from has have how i if in into is it its of on or so
        than that the their then there these this to was what when where which who why will with you your
        my me we our us over through via about using any some should would could after before up out them just
        only same e.g i.e etc""".split()
    ),
    ("not", "no", "never", "none", "cannot", "without", "neither", "nor"),
    ("it", "its", "this", "that", "these", "those", "them", "they", "there", "one", "same", "instead", "also"),
    ("and", "what about", "how about", "same for", "then"),
)

_ZH = Language(
    "zh", "Chinese", "文档里没有找到相关说明", "（推断）", "问题：", "以下内容摘自文档：", "文档里没有出现：{terms}",
    Rules(
        "你是文档答疑助手。只根据 <docs> 里的文档片段回答用户的问题。",
        "规则：",
        "每句话后面用 [编号] 注明依据的是哪个片段，可以同时引用多个，如 [1][3]。",
        "片段里没有的信息不要写，哪怕你自己知道。",
        '如果这些片段不足以回答问题，就直接说"文档里没有找到相关说明"，不要猜。',
        "用中文回答，简洁，代码保持原样。",
        "每句话都以片段编号结尾，格式如下：……[2]。……[1][3]。",
        '片段间接说明的内容可以回答，但要在句首标明"（推断）"。',
        ("多久需要除垢一次？怎么做？",
         "机器每三个月需要除垢一次 [1]。可以用 Python 启动除垢 [1]：\n\n```python\nmachine.descale(tablets=1)\n```"),
    ),
    negations=("不", "没", "未"),
    pointers=("它", "这个", "那个", "这样", "那样", "这种", "那种", "其", "该", "同样", "也", "呢"),
    openers=("那", "还有", "那么", "另外"),
)

_FR = Language(
    "fr", "French", "Les documents ne traitent pas de ce point.", "(Déduction)", "Question : ",
    "Extraits des documents :", "Absent des documents : {terms}",
    Rules(
        "Tu réponds aux questions sur une documentation. Réponds uniquement d'après les passages dans <docs>.",
        "Règles :",
        "Après chaque phrase, écris [n] pour le passage sur lequel elle s'appuie ; plusieurs sont permis, comme [1][3].",
        "N'écris rien qui ne soit pas dans les passages, même si tu le sais.",
        "Si les passages ne suffisent pas pour répondre, réponds exactement « Les documents ne traitent pas de ce "
        "point. » et ne devine pas.",
        "Réponds en français, de façon concise, et garde le code tel quel.",
        "Chaque phrase se termine par les numéros de ses passages, ainsi : … [2]. … [1][3].",
        "Si les passages ne font que suggérer la réponse, tu peux répondre en commençant la phrase par « (Déduction) ».",
        ("Tous les combien faut-il détartrer la machine, et comment ?",
         "Détartrez la machine tous les trois mois [1]. Lancez un détartrage depuis Python [1] :\n\n"
         "```python\nmachine.descale(tablets=1)\n```"),
    ),
    frozenset(
        """le la les de des du un une et est pour dans que qui sur par pas au aux ce ces il elle on ne se je
        tu vous nous mon ma mes comment quel quelle quels quelles est-ce faut peut""".split()
    ),
    ("pas", "jamais", "aucun", "aucune", "sans", "ni"),
    ("ça", "cela", "celui", "celle", "ceux", "celles", "même", "aussi", "plutôt", "l'activer", "le désactiver",
     "la désactiver", "l'utiliser"),
    ("et", "et pour", "et si", "alors"),
)

_JA = Language(
    "ja", "Japanese", "ドキュメントには関連する説明が見つかりませんでした", "（推論）", "質問：", "以下はドキュメントからの引用です：",
    "ドキュメントにないもの：{terms}",
    Rules(
        "あなたはドキュメントの質問に答えるアシスタントです。<docs> の中の文書片だけを根拠に答えてください。",
        "ルール：",
        "各文の後に、根拠とした文書片の番号を [n] の形で書いてください。複数可：[1][3]。",
        "文書片にない情報は、たとえ知っていても書かないでください。",
        "文書片だけでは答えられない場合は「ドキュメントには関連する説明が見つかりませんでした」とだけ答え、推測しないでください。",
        "日本語で簡潔に答え、コードはそのまま残してください。",
        "各文は文書片の番号で終わります。形式：……[2]。……[1][3]。",
        "文書片から推論できるだけの内容は、文頭に「（推論）」と書いて答えてもかまいません。",
        ("どのくらいの頻度で、どうやってデスケーリングすればいいですか？",
         "マシンは3か月ごとにデスケーリングしてください [1]。Python からデスケーリングを開始できます [1]：\n\n"
         "```python\nmachine.descale(tablets=1)\n```"),
    ),
    negations=("ない", "ません", "ず", "不", "無"),
    pointers=("それ", "これ", "あれ", "その", "この", "同じ"),
    openers=("じゃあ", "では", "それで", "あと"),
)

LANGUAGES: dict[str, Language] = {lang.code: lang for lang in (_EN, _ZH, _FR, _JA)}
ANSWER_LANGUAGES = tuple(LANGUAGES)  # the languages RepoBot answers in: en, zh, fr, ja
LANGUAGE_CHOICES = ("auto",) + ANSWER_LANGUAGES  # for the CLI's --language and the window's menu
ESCAPE_PHRASES = tuple(lang.escape for lang in LANGUAGES.values())
STOPWORDS = frozenset().union(*(lang.stopwords for lang in LANGUAGES.values()))

# Languages RepoBot can recognise in documents (a multilingual tree), with the answer language to use.
READ_LANGUAGES = ("en", "zh", "ja", "ko", "fr", "de", "es", "pt", "it", "tr", "ru", "uk", "hi")
_LATIN_MARKERS = {
    "en": "the is are does do how what which can with for to of in by not and this that you",
    "fr": "le la les des une est que qui pour dans avec comment quel quelle sont par pas sur faut peut vous",
    "de": "der die das und ist nicht mit für von den ein eine wie auch sie werden kann sich",
    "es": "el los las del que una para con por como está son puede también pero más",
    "pt": "o os as do da dos das que uma para com por como não são pode também você",
    "it": "il gli della che una per con come non sono può anche questo nella",
    "tr": "ve bir bu için ile olarak da de gibi daha nasıl değil çok",
}
_MARKER_WORDS = {code: frozenset(words.split()) for code, words in _LATIN_MARKERS.items()}
_WORD = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)*", re.UNICODE)
_SCRIPTS = (
    ("ja", re.compile(f"[{KANA}]")),
    ("ko", re.compile(f"[{HANGUL}]")),
    ("zh", re.compile(f"[{CJK_IDEOGRAPHS}]")),
    ("ru", re.compile(r"[\u0400-\u04ff]")),
    ("hi", re.compile(r"[\u0900-\u097f]")),
)
_UKRAINIAN = re.compile(r"[іїєґІЇЄҐ]")
_FRENCH_ACCENTS = re.compile(r"[éèêàùçôîû]", re.I)


def detect_language(text: str) -> str:
    """The language of a question or a page, by script first, then by common words.

    Two kana or ideographs are enough for Japanese or Chinese (a question names
    code in Latin letters around them). Latin-script text is scored by its most
    common words; English wins ties, since code and identifiers are English.

    >>> detect_language("Wie kann ich die Anfrage abbrechen?"), detect_language("Как отменить запрос?")
    ('de', 'ru')
    """
    for code, pattern in _SCRIPTS:
        if len(pattern.findall(text)) >= 2:
            if code == "ru" and _UKRAINIAN.search(text):
                return "uk"
            return code
    words = [w.lower() for w in _WORD.findall(text)]
    scores = {code: sum(w in markers for w in words) for code, markers in _MARKER_WORDS.items()}
    scores["fr"] += len(_FRENCH_ACCENTS.findall(text))
    best = max(scores, key=lambda code: (scores[code], code == "en"))
    return best if scores[best] > scores["en"] else "en"


def answer_language(code: str) -> Language:
    """The language to answer in for a detected language: itself if RepoBot answers in it, else English.

    >>> answer_language("de").code, answer_language("zh").code
    ('en', 'zh')
    """
    return LANGUAGES.get(code, _EN)


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


def negated(text: str) -> bool:
    """Whether a sentence is negative, in any answer language ("does not", "n'est pas", "不会").

    Code is not prose: ``timeout=None`` and backticked spans are not negations.

    >>> negated("HTTPX does not follow redirects."), negated("Pass `timeout=None`."), negated("默认不会跟随")
    (True, False, True)
    """
    return bool(_NEGATION.search(_ASSIGNMENT.sub(" ", strip_inline_code(text))))

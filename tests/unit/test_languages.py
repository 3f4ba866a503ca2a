"""One language registry: detection, answer languages, negation, and the rewrite's acceptance rules."""

import pytest

from repobot.engine.languages import (
    ANSWER_LANGUAGES, LANGUAGE_CHOICES, answer_language, detect_language, language, negated,
)
from repobot.engine.rewrite import accept_query, accept_translation, sentence_messages


@pytest.mark.parametrize("text, code", [
    ("httpx 默认会自动跟随重定向吗？怎么开启？", "zh"),
    ("検索用のクエリパラメータ q を最大50文字までに制限したいです。", "ja"),
    ("Je veux renvoyer l'utilisateur vers /dashboard après le login.", "fr"),
    ("Wie kann ich eine Datei hochladen und die Größe prüfen?", "de"),
    ("Как загрузить файл?", "ru"),
    ("파일을 업로드하는 방법", "ko"),
    ("¿Cómo configuro un proxy en httpx?", "es"),  # its words are French's too ("un", "en"): ¿ and "cómo" tell
    ("Cómo subo varios archivos a la vez?", "es"),  # French by "la" alone before: ó is never French
    ("Como faço para configurar CORS no FastAPI?", "pt"),  # Spanish before: "como" and "para" are both's
    ("É possível enviar cookies em cada requisição?", "pt"),  # French before, by its é and ç
    ("How do I use `httpx.Client(follow_redirects=True)`?", "en"),
    # Short questions of a few content words, read as English or a neighbour by common words alone before:
    ("vale a pena trocar requests por httpx num projeto síncrono?", "pt"),
    ("pandas read_excel dando erro pedindo openpyxl", "pt"),
    ("diferencia entre path params y query params en fastapi", "es"),
    ("differenza tra `apply` e `map` in pandas", "it"),
    ("come restituire un errore 404 personalizzato in FastAPI", "it"),
    ("httpx follow_redirects default transport retries", "en"),  # a rewrite's search terms stay English
])
def test_detect_language(text, code):
    assert detect_language(text) == code


def test_answer_languages_are_one_list_for_the_cli_and_the_window():
    assert ANSWER_LANGUAGES == ("en", "zh", "fr", "ja") and LANGUAGE_CHOICES[0] == "auto"
    assert answer_language("ko").code == "en"


def test_negation_in_each_language_but_not_in_code():
    assert negated("Les redirections ne sont pas suivies.") and negated("リダイレクトしません")
    assert not negated("Set `follow_redirects=True`.") and not negated("Pass timeout=None to the client.")


@pytest.mark.parametrize("output", ["", "   ", "是的，支持。", "Yes, HTTPX supports HTTP/3.", "Can pandas read parquet files?",
                                    "The documents do not cover this.", "x" * 500])
def test_a_bad_rewrite_is_refused(output):
    assert accept_query(output, "httpx 支持 HTTP/3 吗？", "en") is None


def test_a_good_rewrite_keeps_only_its_first_line():
    assert accept_query('"Does HTTPX retry failed requests?"\nNote: …', "httpx 会自动重试吗？", "en") == (
        "Does HTTPX retry failed requests?")


def test_a_rewrite_that_took_the_examples_subject_is_used_without_it():
    # "Peut-on …" has no subject; the 0.5B took the translation example's (pandas) and the answer began "Yes, pandas …"
    assert accept_query("Can pandas limit the number of concurrent connections?",
                        "Peut-on limiter le nombre de connexions simultanées ?", "en") == (
        "Can limit the number of concurrent connections?")
    assert accept_query("Can pandas read parquet files?", "Peut-on lire des fichiers ?", "en") is None  # the example
    assert accept_query("Does pandas work with httpx?", "pandas 和 httpx 能一起用吗？", "en") == (
        "Does pandas work with httpx?")  # the user's own word stays


def test_a_rewrite_that_answers_in_chinese_or_japanese_is_refused():
    asked = "Can I run a function after returning the response, like sending an email?"
    assert accept_query("はい、関数が返り値を取得した後、メールを送信することができます。", asked, "ja") is None
    assert accept_query("可以，使用 BackgroundTasks。", asked, "zh") is None
    assert accept_query("可以在返回响应后运行函数吗？", asked, "zh") == "可以在返回响应后运行函数吗？"


def test_a_rewrite_that_kept_a_word_of_the_question_is_used_without_it():
    asked = "对方服务要求双向 TLS，必须带上我们自己的客户端证书和私钥，httpx 里该怎么配置？"
    written = "The service requires双向 TLS, and we must include our own client certificate and private key."
    assert accept_query(written, asked, "en") == (
        "The service requires TLS, and we must include our own client certificate and private key.")
    assert accept_query("我们服务要求 mutual TLS 怎么配置", asked, "en") is None  # mostly Chinese: not a translation


@pytest.mark.parametrize("source, target", [("en", "zh"), ("en", "fr"), ("en", "ja"), ("zh", "en")])
def test_a_sentence_is_translated_alone_after_the_example_in_both_languages(source, target):
    messages = sentence_messages(" Off by default. ", source, target)
    assert messages[0]["content"].startswith(f"Translate the {language(source).name} text into {language(target).name}")
    assert [m["content"] for m in messages[1:]] == [language(source).translation_example,
                                                     language(target).translation_example, "Off by default."]
    assert "`clear=True`" in language(target).translation_example  # the same sentence in every language
    assert accept_translation(language(target).translation_example, target) is None  # the example, copied
    assert accept_translation("\n x \n y", target) == "x" and accept_translation("  ", target) is None


def test_a_sentence_translation_that_copied_the_example_is_not_used():
    from repobot.engine.translate import translate_sentences

    replies = {"Create the session in the background task itself.": "バックグラウンドタスク内でセッションを作成すると、"
                                                                     "キャッシュはクリアされません。",  # the example's cache
               "Close it when the request ends.": "リクエストの終了時に閉じます。"}
    found = translate_sentences(lambda messages, cap: replies[messages[-1]["content"]], list(replies), "en", "ja", 96)
    assert found == {"Close it when the request ends.": "リクエストの終了時に閉じます。"}  # the first is shown in English


def test_a_japanese_translation_that_mixes_in_chinese_is_not_used():
    """Seen: "環境変数ガイドの詳細な説明と、如何创建和读取環境变量以及 `PATH` 環境変数の動作…" (创, 读, 变 are
    simplified Chinese, which Japanese never writes); 3 of 49 stored Japanese answers had such a sentence."""
    from repobot.engine.translate import translate_sentences

    replies = {"Read the guide on environment variables.": "如何创建和读取環境变量のガイドを読んでください。",
               "Settings can come from a .env file.": "設定は .env ファイルから読み込めます。"}
    found = translate_sentences(lambda messages, cap: replies[messages[-1]["content"]], list(replies), "en", "ja", 96)
    assert found == {"Settings can come from a .env file.": "設定は .env ファイルから読み込めます。"}
    zh = translate_sentences(lambda messages, cap: "请从 .env 文件读取设置。", ["Read settings from .env."], "en", "zh", 96)
    assert zh == {"Read settings from .env.": "请从 .env 文件读取设置。"}  # the same characters are right in Chinese
    kept = translate_sentences(lambda messages, cap: "Décodez `'变量'` en GBK.", ["Decode `'变量'` as GBK."], "en", "fr", 96)
    assert kept == {"Decode `'变量'` as GBK.": "Décodez `'变量'` en GBK."}  # letters the sentence itself has


def test_a_translation_that_loses_the_negation_is_asked_again_and_never_shown():
    """Seen: "any content encoding … will not be automatically decoded" shown as "…都会被自动解码" (will be decoded)."""
    from repobot.engine.quote import Choice
    from repobot.engine.support import Support
    from repobot.engine.translate import shown_in, translate_sentences

    sentence = "Any content encoding will not be automatically decoded."
    flipped, quoted = "任何内容编码都会被自动解码。", "任何内容编码都不会被自动解码。"
    asked = []

    def complete(messages, cap):
        asked.append(messages[-1]["content"])
        return flipped if messages[-1]["content"] == sentence else quoted

    assert translate_sentences(complete, [sentence], "en", "zh", 96) == {sentence: quoted}
    assert asked == [sentence, f'"{sentence}"']  # asked once more, in quotation marks
    limit = "The maximum number of connections, or `None` for no limits."
    kept = translate_sentences(lambda messages, cap: "最大连接数，或 `None` 表示无限制。", [limit], "en", "zh", 96)
    assert kept == {limit: "最大连接数，或 `None` 表示无限制。"}  # 无 ("no") is a negation too

    assert translate_sentences(lambda messages, cap: flipped, [sentence], "en", "zh", 96) == {}  # nor checked as such
    answer = Choice("verified", f"{sentence[:-1]} [1].", [Support(f"{sentence[:-1]} [1].", [1], "supported", {}, None, "")])
    shown = shown_in(lambda messages, cap: flipped, answer, "en", "zh")  # both tries lose it: shown as checked
    assert shown.text == answer.text and shown.sentences[0].checked_as is None

"""A question in a language the translated tree has but the index leaves out is also searched in that language's
pages, and each hit counts as its indexed original: the words the user typed find the page the rewrite missed."""

import shutil

import pytest

from repobot.engine.collection import Collection
from repobot.engine.pipeline import AskOptions, Pipeline
from repobot.engine.tokens import tokenize
from tests.conftest import fake_models

PAGES = {  # (English original, its Japanese translation)
    "reload.md": ("# Reload\n\nRun `fastapi dev`: the server restarts when you save a file.\n",
                  "# リロード\n\n`fastapi dev` を実行すると、ファイルを保存するたびにサーバーが自動で再起動します。\n"),
    "deploy.md": ("# Deployment\n\nRun the server with several workers in production.\n\n## Restarts\n\n"
                  "A process manager restarts the server when it crashes.\n",
                  "# デプロイ\n\n本番ではワーカーを複数にしてサーバーを実行します。\n\n## 再起動\n\n"
                  "プロセスマネージャーはクラッシュしたサーバーを再起動します。\n"),
    "cors.md": ("# CORS\n\nAdd `CORSMiddleware` with the allowed origins.\n",
                "# CORS\n\n許可するオリジンを指定して `CORSMiddleware` を追加します。\n"),
}


@pytest.fixture
def tree(tmp_path, monkeypatch):
    monkeypatch.setenv("LC_ALL", "C")  # an English user: English pages are indexed, the Japanese ones are not
    root = tmp_path / "docs"
    for name, (en, ja) in PAGES.items():
        for lang, text in (("en", en), ("ja", ja)):
            (root / lang / "docs").mkdir(parents=True, exist_ok=True)
            (root / lang / "docs" / name).write_text(text, encoding="utf-8")
    (root / "ja" / "docs" / "only-ja.md").write_text("# 日本語だけ\n\n保存するたびに翻訳します。\n", encoding="utf-8")
    return root


def test_a_twin_searches_the_left_out_language_and_gives_the_originals_chunks(tree):
    collection = Collection(tree, fake_models())
    collection.update()
    assert collection.selected == {"en"}
    twin = collection.twin("ja")
    hits = twin.search(tokenize("保存するたびに自動で再起動したい"), 5)
    sources = [collection.index.chunks[i].source for i, _ in hits]
    assert sources[0] == "en/docs/reload.md"
    assert all(s.startswith("en/") for s in sources)  # a page with no original (only-ja.md) is never a hit
    assert collection.twin("en") is None and collection.twin("ko") is None  # indexed; not in the tree
    assert collection.twin("ja") is twin  # read once


def test_a_twin_is_read_again_after_the_folder_changes(tree):
    collection = Collection(tree, fake_models())
    collection.update()
    before = collection.twin("ja")
    (tree / "ja" / "docs" / "cors.md").write_text("# CORS\n\nオリジンの一覧。\n", encoding="utf-8")
    collection.update()
    assert collection.twin("ja") is not before


def test_the_hit_is_the_original_chunk_at_the_same_place_in_the_page(tree):
    collection = Collection(tree, fake_models())
    collection.update()
    hits = collection.twin("ja").search(tokenize("クラッシュしたサーバー"), 1)
    assert collection.index.chunks[hits[0][0]].heading == "Deployment > Restarts"


def test_the_users_words_find_the_page_a_lossy_rewrite_misses(tree):
    question = "開発中、ファイルを保存するたびにサーバーを自動で再起動させるには？"
    lossy = "What does a process manager do in production?"  # a fluent rewrite about something else
    without = Pipeline(tree, models=fake_models(lossy))
    without.collection.twin = lambda language: None  # as before twins
    missed = without.search(question, AskOptions(k=3, mode="bm25"))
    assert missed.rewritten == lossy and "en/docs/reload.md" not in [h.chunk.source for h in missed.hits]
    found = Pipeline(tree, models=fake_models(lossy)).search(question, AskOptions(k=3, mode="bm25"))
    assert "en/docs/reload.md" in [h.chunk.source for h in found.hits]
    assert all(h.chunk.source.startswith("en/") for h in found.hits)  # the model still reads the originals


def test_without_a_translated_tree_nothing_changes(docs):
    collection = Collection(docs, fake_models())
    collection.update()
    assert collection.selected is None and collection.twin("zh") is None


def test_pages_gone_since_the_update_leave_the_search_as_before(tree):
    pipe = Pipeline(tree, models=fake_models("How do I restart the server?"))
    pipe.collection.update()
    shutil.rmtree(tree / "ja")
    assert pipe.collection.twin("ja") is None
    hits = pipe.search("サーバーを再起動するには？", AskOptions(k=2, mode="bm25")).hits
    assert hits and all(h.chunk.source.startswith("en/") for h in hits)


def test_an_answer_says_the_pages_in_the_questions_language_were_only_searched_and_how_to_index_them(tree):
    """A French (here Japanese) question on FastAPI's tree was answered from the English pages, and nothing said the
    tree had pages in its language, or how to have them read."""
    pipe = Pipeline(tree, models=fake_models("How do I restart the server?"))
    answer = pipe.ask("サーバーを再起動するには？", AskOptions(k=2, mode="bm25"))
    assert ("Answered from the en pages. This folder also has 4 pages in Japanese, which were only searched for your "
            f"question: to have them read too, add Japanese in Languages… (repobot index --corpus {pipe.collection.root} "
            "--languages en,ja).") in answer.notes
    dense = pipe.ask("サーバーを再起動するには？", AskOptions(k=2, mode="dense"))
    assert not any(n.startswith("Answered from the") for n in dense.notes)  # the Japanese pages were not searched
    english = pipe.ask("How do I restart the server?", AskOptions(k=2, mode="bm25"))
    assert not any(n.startswith("Answered from the") for n in english.notes)  # its language is indexed

"""The real embedders: the ONNX graphs give the torch model's vectors, and every chunk fits the window."""

import numpy as np
import pytest

from repobot.engine.chunk import chunk_markdown, piece_budget
from repobot.engine.embed import OnnxEmbedder, SentenceTransformerEmbedder, default_embedding_model_dir
from repobot.engine.index import embedding_text
from repobot.engine.load import load_corpus
from repobot.engine.onnx_export import export_onnx

pytestmark = pytest.mark.integration

TEXTS = [
    "HTTPX does not follow redirects by default; pass follow_redirects=True.",
    "默认不会自动跟随重定向。",
    "Les délais d'attente sont de cinq secondes par défaut.",
    "```python\nclient = httpx.Client(timeout=None)\n```",
]


@pytest.fixture(scope="module")
def torch_embedder():
    return SentenceTransformerEmbedder()


@pytest.mark.parametrize("int8, floor", [(False, 0.9999), (True, 0.97)])
def test_onnx_export_matches_the_torch_model(tmp_path, torch_embedder, int8, floor):
    model_dir = default_embedding_model_dir()
    path = export_onnx(model_dir, tmp_path / "m.onnx", int8=int8)
    assert path.is_file() and not list(tmp_path.glob(".export-*"))  # the work folder is gone
    onnx = OnnxEmbedder(path, model_dir, int8=int8)
    assert onnx.dim == torch_embedder.dim == 384
    assert onnx.name == torch_embedder.name + ("-int8" if int8 else "")  # int8 vectors never mix with plain ones
    reference = torch_embedder.embed_many(TEXTS)
    vectors = onnx.embed_many(TEXTS)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert (vectors * reference).sum(axis=1).min() >= floor
    # a text's vector does not depend on the batch it is embedded in, nor on which core ran it
    assert np.allclose(onnx.embed_batch(TEXTS[:1])[0], vectors[0], atol=1e-6)
    assert np.allclose(onnx.embed_batch(TEXTS[::-1]), vectors[::-1], atol=1e-6)


def test_every_httpx_chunk_fits_the_window_unless_it_is_one_long_code_block(embedder, httpx_docs):
    budget = piece_budget(embedder.count_pieces, embedder.max_pieces)
    corpus = load_corpus(httpx_docs)
    chunks = [c for d in corpus.documents for c in chunk_markdown(d.source, d.text, budget)]
    over = [c for c in chunks if embedder.count_pieces(embedding_text(c)) + 2 > embedder.max_pieces]
    assert chunks and all("```" in c.text for c in over)
    assert len(over) <= len(chunks) // 20


def test_piece_count_is_the_model_tokenizer(embedder):
    assert embedder.max_pieces == 256
    assert embedder.count_pieces("follow_redirects") == 5  # follow _ red ##ire ##cts
    assert embedder.count_pieces("默认不会") == 4  # one piece per Chinese character

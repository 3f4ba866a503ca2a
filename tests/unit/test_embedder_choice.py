"""The embedding path is chosen by measurement on this machine: the fastest that passes the quality gate, remembered
for this machine, measured again on request."""

import time

import numpy as np

from repobot.engine import embedders
from tests.conftest import FakeEmbedder


def fake(name, delay, noise=0.0):
    class Timed(FakeEmbedder):
        def embed_batch(self, texts):
            time.sleep(delay * len(texts))
            vectors = super().embed_batch(texts)
            if noise:
                vectors = vectors + noise * np.random.default_rng(0).standard_normal(vectors.shape).astype(np.float32)
                vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
            return vectors

    Timed.name = name
    return Timed


def test_the_fastest_path_that_keeps_the_vectors_wins_and_is_remembered(monkeypatch, tmp_path):
    monkeypatch.setenv("REPOBOT_HOME", str(tmp_path))
    factories = {"torch": fake("torch", 0.004), "onnx": fake("onnx", 0.002), "int8": fake("int8", 0.0005, noise=5.0)}
    monkeypatch.setattr(embedders, "FACTORIES", factories)
    monkeypatch.setattr(embedders, "available", lambda: ["int8", "onnx", "torch"])
    assert embedders.chosen() == "onnx"  # int8 is fastest here but its vectors fail the gate
    measured = {m.name: m for m in embedders.last_measurements()}
    assert measured["int8"].chunks_per_s > measured["onnx"].chunks_per_s > measured["torch"].chunks_per_s
    assert not measured["int8"].passed and measured["onnx"].passed and measured["torch"].mean_cosine == 1.0

    factories["onnx"] = fake("onnx", 0.02)  # a slower machine now, but the choice is remembered …
    calls = []
    monkeypatch.setattr(embedders, "measure", lambda names, texts: calls.append(names) or [])
    assert embedders.chosen() == "onnx" and calls == []
    monkeypatch.undo()
    monkeypatch.setenv("REPOBOT_HOME", str(tmp_path))
    monkeypatch.setattr(embedders, "FACTORIES", factories)
    monkeypatch.setattr(embedders, "available", lambda: ["int8", "onnx", "torch"])
    assert embedders.chosen(remeasure=True) == "torch"  # … until it is measured again


def test_an_installation_with_one_path_does_not_measure(monkeypatch):
    monkeypatch.setattr(embedders, "available", lambda: ["int8"])
    monkeypatch.setattr(embedders, "measure", lambda *a: (_ for _ in ()).throw(AssertionError("measured")))
    assert embedders.chosen() == "int8"


def test_a_choice_that_cannot_be_remembered_is_still_used(monkeypatch, tmp_path):
    (tmp_path / "home").write_text("a file where RepoBot's data folder should be")
    monkeypatch.setenv("REPOBOT_HOME", str(tmp_path / "home"))
    monkeypatch.setattr(embedders, "FACTORIES", {"torch": fake("torch", 0.002), "onnx": fake("onnx", 0.0005)})
    monkeypatch.setattr(embedders, "available", lambda: ["onnx", "torch"])
    assert embedders.chosen() == "onnx"
    assert embedders.last_measurements() == []

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


def test_two_repobots_started_at_once_measure_once_and_agree(monkeypatch, tmp_path):
    """Both measured at once, each chose another path, and the second then embedded the whole folder again."""
    import threading

    monkeypatch.setenv("REPOBOT_HOME", str(tmp_path))
    monkeypatch.setattr(embedders, "available", lambda: ["int8", "onnx"])
    calls, answers = [], []

    def measure(names, texts):  # slow, and each run would pick another path
        calls.append(names)
        time.sleep(0.5)
        fastest = "int8" if len(calls) == 1 else "onnx"
        return [embedders.Measurement(n, 100.0 if n == fastest else 10.0, 1.0, 1.0, True) for n in names]

    monkeypatch.setattr(embedders, "measure", measure)
    threads = [threading.Thread(target=lambda: answers.append(embedders.chosen())) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    assert len(calls) == 1 and answers == ["int8", "int8"]

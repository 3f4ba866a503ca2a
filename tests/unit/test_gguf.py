"""A GGUF's header says how big the file must be: cut-off and damaged files are told apart from whole ones at once,
whatever their header claims, without reading their data or looping over made-up entries."""

import struct

import pytest

from repobot.engine.gguf import size_problem
from tests.conftest import tiny_gguf


def text(s: bytes) -> bytes:
    return struct.pack("<Q", len(s)) + s


def header(keys: bytes = b"", n_keys: int = 0, tensors: bytes = b"", n_tensors: int = 0) -> bytes:
    return b"GGUF" + struct.pack("<IQQ", 3, n_tensors, n_keys) + keys + tensors


def tensor(kind: int, *dims: int, offset: int = 0) -> bytes:
    return text(b"w") + struct.pack("<I", len(dims)) + struct.pack(f"<{len(dims)}Q", *dims) + struct.pack("<IQ", kind, offset)


def problem(tmp_path, data: bytes, size: int | None = None) -> str:
    """``size_problem`` of a file holding ``data``, made ``size`` bytes long (a sparse tail costs no disk)."""
    path = tmp_path / "m.gguf"
    with open(path, "wb") as fh:
        fh.write(data)
        fh.truncate(size or len(data))
    return size_problem(path, size or len(data))


def aligned(data: bytes, alignment: int = 32) -> bytes:
    return data + bytes(-len(data) % alignment)


def test_a_whole_file_passes_and_one_byte_short_is_cut_off(tmp_path):
    assert problem(tmp_path, tiny_gguf()) == ""
    assert problem(tmp_path, tiny_gguf()[:-1]).startswith("it is incomplete: it holds 1,247 of the 1,248 bytes")
    q8_1 = aligned(header(tensors=tensor(9, 32, 2), n_tensors=1)) + bytes(2 * 36)  # ggml's Q8_1 block: 36 bytes
    assert problem(tmp_path, q8_1) == ""


@pytest.mark.parametrize("value, expected", [
    (struct.pack("<II", 4, 64), ""),
    (struct.pack("<II", 4, 0), "damaged (general.alignment is not a 32-bit power of two)"),
    (struct.pack("<II", 4, 48), "damaged (general.alignment is not a 32-bit power of two)"),
    (struct.pack("<I", 8) + text(b"32"), "damaged (general.alignment is not a 32-bit power of two)"),
])
def test_the_alignment_must_be_a_power_of_two_held_as_ggml_reads_it(tmp_path, value, expected):
    data = aligned(header(text(b"general.alignment") + value, 1, tensor(0, 8), 1), 64) + bytes(32)
    assert problem(tmp_path, data).endswith(expected)


def test_tensor_types_ggml_does_not_have_are_damage_not_a_short_file(tmp_path):
    for kind in (4, 5, 99, 2**32 - 1):
        data = aligned(header(tensors=tensor(kind, 32), n_tensors=1)) + bytes(64)
        assert problem(tmp_path, data) == f"its header is damaged (tensor type {kind}, which ggml does not have)"


def test_made_up_counts_and_sizes_are_said_at_once_and_never_read_into_memory(tmp_path):
    big = 400 << 20
    cases = {  # each a sparse file of hundreds of MB that a careless reader would loop over or load
        "keys": (header(n_keys=30_000_000), big, "damaged (30,000,000 metadata keys)"),
        "tensors": (header(n_tensors=16_000_000), big, "damaged (16,000,000 tensors)"),
        "strings": (header(text(b"k") + struct.pack("<IIQ", 9, 8, 10_000_000), 1), big,
                    "damaged (10,000,000 entries in one list)"),
        "a 400 MB string": (header(text(b"k") + struct.pack("<IQ", 8, big), 1), big, "it is incomplete"),
        "a 400 MB name": (header(tensors=struct.pack("<Q", big), n_tensors=1), big, "it is incomplete"),
    }
    for name, (data, size, expected) in cases.items():  # (a loop over them took 10 to 75 s, a read 3 GB)
        assert expected in problem(tmp_path, data, size), name


def test_a_400_mb_byte_list_is_skipped_not_read(tmp_path):
    big = 400 << 20
    data = header(text(b"k") + struct.pack("<IIQ", 9, 0, big), 1)
    whole = len(data) + big + (-(len(data) + big) % 32)
    assert problem(tmp_path, data, whole) == ""


def test_a_vocabulary_only_file_has_no_data_section_to_pad_to(tmp_path):
    """`convert --vocab-only` writes no tensors and no padding; ggml opens such a file."""
    data = header(text(b"tokenizer.ggml.tokens") + struct.pack("<IIQ", 9, 8, 2) + text(b"a") + text(b"b"), 1)
    assert problem(tmp_path, data) == ""

"""GGUF: how many bytes a model file's own header says it holds, so a cut-off download is caught before loading.

A GGUF file is a header (magic, version, counts), key/value metadata, one
description per tensor (name, shape, type, offset), padding to the alignment,
then the tensors' data. The last byte a tensor needs is therefore known from the
header alone, and a file shorter than that is incomplete: llama.cpp would refuse
it only after seconds of loading, or the model picker would offer it.

>>> import struct
>>> def text(s): return struct.pack("<Q", len(s)) + s
>>> head = b"GGUF" + struct.pack("<IQQ", 3, 1, 1) + text(b"general.alignment") + struct.pack("<II", 4, 32)
>>> head += text(b"w") + struct.pack("<IQQ", 2, 64, 2) + struct.pack("<IQ", 2, 0)   # 64x2 Q4_0, at offset 0
>>> head += b"\\0" * (-len(head) % 32)
>>> needed_bytes(io.BytesIO(head)) == len(head) + 4 * 18      # 4 blocks of 32 weights, 18 bytes each
True
"""
from __future__ import annotations

import io
import struct
from typing import BinaryIO

# ggml type id -> (weights per block, bytes per block), as ggml's ggml_type_size has them
BLOCKS = {
    0: (1, 4), 1: (1, 2), 2: (32, 18), 3: (32, 20), 6: (32, 22), 7: (32, 24), 8: (32, 34), 9: (32, 36),
    10: (256, 84), 11: (256, 110), 12: (256, 144), 13: (256, 176), 14: (256, 210), 15: (256, 292),
    16: (256, 66), 17: (256, 74), 18: (256, 98), 19: (256, 50), 20: (32, 18), 21: (256, 110), 22: (256, 82),
    23: (256, 136), 24: (1, 1), 25: (1, 2), 26: (1, 4), 27: (1, 8), 28: (1, 8), 29: (256, 56), 30: (1, 2),
    34: (256, 54), 35: (256, 66), 39: (32, 17),
}
# metadata value type -> its fixed size in bytes (8 = string and 9 = array have their own layout)
SCALARS = {0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8}
STRING, ARRAY, UINT32 = 8, 9, 4
_U32, _U64 = struct.Struct("<I"), struct.Struct("<Q")


class HeaderError(ValueError):
    """The header cannot be read: it is not a GGUF of a known version, or it is damaged."""


class CutOff(HeaderError):
    """The file ends inside its header, or before what a count in the header promises."""


# the fewest bytes one element can take: a metadata value of each type, a key/value pair, a tensor description
SMALLEST = {**SCALARS, STRING: 8, ARRAY: 12}
SMALLEST_PAIR, SMALLEST_TENSOR = 8 + 4 + 1, 8 + 4 + 4 + 8
MAX_DIMS, LARGEST = 8, 1 << 50  # ggml's tensors have 4 dimensions at most; a petabyte is no model file
# real models have tens of keys, thousands of tensors and vocabularies under a million: far more is a damaged header,
# said at once rather than looped over (each entry read costs about a microsecond)
MAX_KEYS, MAX_TENSORS, MAX_ITEMS = 1 << 16, 1 << 20, 1 << 21
RETIRED_TYPES, LAST_TYPE = {4, 5}, 64  # Q4_2 and Q4_3 were removed from ggml; its type ids stay far below 64


class _Reader:
    """Reads a header from a file of known size, a few MB at a time into memory; a length or a count that cannot
    fit in the rest is ``CutOff`` at once, so a damaged count never makes it allocate or loop for long."""

    CHUNK = 1 << 22

    def __init__(self, fh: BinaryIO):
        self.fh = fh
        self.size = fh.seek(0, io.SEEK_END)
        self.pos = self.base = 0  # where the header is read; where ``buf`` starts, in the file
        self.buf = b""
        self.items = 0  # metadata entries and array elements gone through one by one

    def _have(self, n: int) -> int:
        """Make sure ``buf`` holds the next ``n`` bytes; their offset in it."""
        if n > self.size - self.pos:
            raise CutOff("the file ends inside its header")
        if self.pos + n > self.base + len(self.buf):
            self.fh.seek(self.pos)
            self.base, self.buf = self.pos, self.fh.read(max(n, self.CHUNK))
            if len(self.buf) < n:  # the file shrank while it was read
                raise CutOff("the file ends inside its header")
        return self.pos - self.base

    def skip(self, n: int) -> None:
        """Move past ``n`` bytes without reading them (a 3 GB string costs nothing)."""
        if n > self.size - self.pos:
            raise CutOff("the file ends inside its header")
        self.pos += n

    def one_more(self) -> None:
        self.items += 1
        if self.items > MAX_ITEMS:
            raise HeaderError("its header is damaged (millions of metadata entries)")

    def bytes(self, n: int) -> bytes:
        at = self._have(n)
        self.pos += n
        return self.buf[at : at + n]

    def u32(self) -> int:
        at = self._have(4)
        self.pos += 4
        return _U32.unpack_from(self.buf, at)[0]

    def u64(self) -> int:
        at = self._have(8)
        self.pos += 8
        return _U64.unpack_from(self.buf, at)[0]

    def count(self, smallest: int, most: int | None = None, what: str = "") -> int:
        """A count of elements of at least ``smallest`` bytes each (and at most ``most`` of them)."""
        n = self.u64()
        if n * smallest > self.size - self.pos:
            raise CutOff("the file ends inside its header")
        if most is not None and n > most:
            raise HeaderError(f"its header is damaged ({n:,} {what})")
        return n

    def skip_value(self, kind: int) -> None:
        """Read past one metadata value (an array of strings, such as the vocabulary, element by element)."""
        if kind in SCALARS:
            self.skip(SCALARS[kind])
        elif kind == STRING:
            self.skip(self.u64())
        elif kind == ARRAY:
            inner = self.u32()
            if inner not in SMALLEST:
                raise HeaderError(f"its header is damaged (unknown metadata type {inner})")
            if inner in SCALARS:  # skipped at once, however long
                self.skip(SCALARS[inner] * self.count(SCALARS[inner]))
            elif inner == STRING:  # the vocabulary: hundreds of thousands, so the loop is kept tight
                count = self.count(SMALLEST[inner], MAX_ITEMS, "entries in one list")
                self.items += count
                if self.items > MAX_ITEMS:
                    raise HeaderError("its header is damaged (millions of metadata entries)")
                for _ in range(count):
                    self.skip(self.u64())
            else:
                for _ in range(self.count(SMALLEST[inner], MAX_ITEMS, "entries in one list")):
                    self.one_more()
                    self.skip_value(inner)
        else:
            raise HeaderError(f"its header is damaged (unknown metadata type {kind})")


def needed_bytes(fh: BinaryIO) -> int:
    """The smallest size the file's header allows: where the data starts, plus the furthest tensor's end.

    A tensor of a type this table does not know counts only up to its start (a lower bound, never a false alarm).
    Raises CutOff when the file ends inside its header, HeaderError when it is not a GGUF v2/v3 header.

    >>> try:
    ...     needed_bytes(io.BytesIO(b"GGUF" + struct.pack("<IQQ", 3, 0, 2**40)))   # a trillion keys in 24 bytes
    ... except CutOff as err:
    ...     print(err)
    the file ends inside its header
    """
    read = _Reader(fh)
    if read.bytes(4) != b"GGUF" or read.u32() not in (2, 3):
        raise HeaderError("it is not a GGUF file of version 2 or 3")
    tensors, keys = read.u64(), read.count(SMALLEST_PAIR, MAX_KEYS, "metadata keys")
    if tensors > MAX_TENSORS:
        raise HeaderError(f"its header is damaged ({tensors:,} tensors)")
    alignment = 32
    for _ in range(keys):
        read.one_more()
        length = read.u64()
        key = read.bytes(length) if length <= 64 else read.skip(length)
        kind = read.u32()
        if key == b"general.alignment":
            alignment = read.u32() if kind == UINT32 else 0
            if alignment <= 0 or alignment & (alignment - 1):
                raise HeaderError("its header is damaged (general.alignment is not a 32-bit power of two)")
        else:
            read.skip_value(kind)
    if tensors * SMALLEST_TENSOR > read.size - read.pos:
        raise CutOff("the file ends inside its header")
    end = 0
    for _ in range(tensors):
        read.skip(read.u64())  # the name
        dims = read.u32()
        if dims > MAX_DIMS:
            raise HeaderError(f"its header is damaged (a tensor of {dims} dimensions)")
        count = 1
        for _ in range(dims):
            count *= read.u64()
        kind, offset = read.u32(), read.u64()
        if kind in RETIRED_TYPES or kind > LAST_TYPE:
            raise HeaderError(f"its header is damaged (tensor type {kind}, which ggml does not have)")
        per_block, block_bytes = BLOCKS.get(kind, (1, 0))
        end = max(end, offset + -(-count // per_block) * block_bytes)
    start = read.pos
    needed = start + (-start % alignment) + end if tensors else start  # a vocabulary-only file has no data section
    if needed > LARGEST:
        raise HeaderError("its header is damaged (it describes more data than any disk holds)")
    return needed


def size_problem(path, size: int) -> str:
    """"" when a file of ``size`` bytes holds everything its header describes, else why not, in a few words.

    >>> size_problem(io.BytesIO(b"GGUF\\x03\\x00\\x00\\x00"), 8)
    'it is incomplete: the file ends inside its header (a download or copy was cut off)'
    """
    try:
        with (open(path, "rb", buffering=1 << 20) if not isinstance(path, io.IOBase) else path) as fh:
            needed = needed_bytes(fh)
    except CutOff as err:
        return f"it is incomplete: {err} (a download or copy was cut off)"
    except HeaderError as err:
        return str(err)
    except RecursionError:  # arrays nested thousands deep
        return "its header is damaged (arrays nested too deep)"
    if size < needed:
        return (f"it is incomplete: it holds {size:,} of the {needed:,} bytes its header describes "
                "(a download or copy was cut off)")
    return ""

"""Reading an ``.npz`` someone else made: every entry checked before any memory is set aside for it.

``numpy.load`` trusts a file: the shape an entry's header declares is allocated before its bytes are
read (a 300-byte file can ask for terabytes: ``MemoryError``), a compressed entry is inflated whole
(a small deflate bomb fills memory), and zip's own errors (a bad CRC: ``BadZipFile``) come out as they
are. :func:`read_npz` reads the same files (``numpy.savez`` and ``savez_compressed``, ``.npy`` format
1.0 and 2.0) with limits:

* at most :data:`MAX_ENTRIES` entries, each at most :data:`MAX_ENTRY_BYTES` and all together at most
  :data:`MAX_TOTAL_BYTES` once decompressed, as the zip's directory declares them; an entry is then
  streamed with that cap, so a directory that understates a size cannot make it read more;
* an entry's header must declare exactly the bytes it holds (checked before the array is made), a plain
  numeric or string dtype (no objects, so no pickles), and no more dimensions than :data:`MAX_DIMS`.

Whatever is wrong is a :class:`NpzError` (a ``ValueError``) saying what, never another exception.
"""
from __future__ import annotations

import io
import math
import stat
import zipfile
from pathlib import Path

import numpy as np

#: entries an .npz may hold
MAX_ENTRIES = 4096
#: bytes one entry may hold, decompressed (256 MiB: a 8192 x 8192 float32 layer)
MAX_ENTRY_BYTES = 256 * 2**20
#: bytes all entries may hold together, decompressed (1 GiB)
MAX_TOTAL_BYTES = 2**30
#: dimensions an entry may have
MAX_DIMS = 8
#: dtype kinds an entry may have: booleans, integers, floats, byte and unicode strings
KINDS = "biufSU"


class NpzError(ValueError):
    """An ``.npz`` that :func:`read_npz` refuses; the message says why, on one line."""


def _header(f: io.BytesIO, name: str) -> tuple[tuple[int, ...], bool, np.dtype]:
    try:
        version = np.lib.format.read_magic(f)
        if version == (1, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_1_0(f)
        elif version == (2, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_2_0(f)
        else:
            raise NpzError(f"entry {name}: .npy format {version[0]}.{version[1]} (this reader takes 1.0 and 2.0)")
    except NpzError:
        raise
    except (ValueError, TypeError, SyntaxError, EOFError, OverflowError, MemoryError, RecursionError) as e:
        raise NpzError(f"entry {name}: not an .npy array header ({type(e).__name__}: {e})") from None
    return tuple(shape), bool(fortran), np.dtype(dtype)


def _array(data: bytes, name: str) -> np.ndarray:
    """The array an ``.npy`` entry's bytes hold, its header checked against them first."""
    f = io.BytesIO(data)
    shape, fortran, dtype = _header(f, name)
    if dtype.hasobject or dtype.kind not in KINDS or dtype.fields is not None or dtype.subdtype is not None:
        raise NpzError(f"entry {name}: dtype {dtype} (only plain numbers and strings are read)")
    if len(shape) > MAX_DIMS or any(not isinstance(n, int) or n < 0 for n in shape):
        raise NpzError(f"entry {name}: shape {shape} refused (at most {MAX_DIMS} non-negative dimensions)")
    want = math.prod(shape) * dtype.itemsize  # Python integers: no overflow
    have = len(data) - f.tell()
    if want != have:
        raise NpzError(f"entry {name}: its header declares shape {shape} of {dtype} ({want:,} bytes), "
                       f"but it holds {have:,} bytes")
    if dtype.itemsize == 0:
        return np.zeros(shape, dtype=dtype)
    flat = np.frombuffer(data, dtype=dtype, count=math.prod(shape), offset=f.tell())
    return flat.reshape(shape, order="F" if fortran else "C").copy()


def read_npz(path: str | Path) -> dict[str, np.ndarray]:
    """Every entry of the ``.npz`` at ``path`` by name (without ``.npy``); :class:`NpzError` for a file that
    is not one, is damaged, or breaks a limit (module docstring). ``OSError`` if it cannot be opened."""
    path = Path(path)
    if not stat.S_ISREG(path.stat().st_mode):  # a device or a FIFO would be read forever
        raise NpzError("not a regular file")
    try:
        with zipfile.ZipFile(path) as z:
            infos = z.infolist()
            if len(infos) > MAX_ENTRIES:
                raise NpzError(f"{len(infos):,} entries, more than the {MAX_ENTRIES:,} an .npz here may hold")
            total = sum(max(0, i.file_size) for i in infos)
            for info in infos:
                if info.file_size > MAX_ENTRY_BYTES:
                    raise NpzError(f"entry {info.filename} declares {info.file_size:,} bytes decompressed, more than "
                                   f"the {MAX_ENTRY_BYTES:,} an entry may hold")
            if total > MAX_TOTAL_BYTES:
                raise NpzError(f"its entries declare {total:,} bytes decompressed, more than the "
                               f"{MAX_TOTAL_BYTES:,} an .npz may hold")
            arrays: dict[str, np.ndarray] = {}
            for info in infos:
                name = info.filename
                if info.is_dir() or not name.endswith(".npy"):
                    raise NpzError(f"entry {name!r} is not an .npy array")
                with z.open(info) as member:  # stops at the declared size; a CRC that fails raises
                    data = member.read(info.file_size + 1)
                if len(data) != info.file_size:
                    raise NpzError(f"entry {name}: {len(data):,} bytes, its directory says {info.file_size:,}")
                key = name[: -len(".npy")]
                if key in arrays:
                    raise NpzError(f"entry {name} appears twice")
                arrays[key] = _array(data, name)
            return arrays
    except NpzError:
        raise
    except (FileNotFoundError, IsADirectoryError, PermissionError):
        raise
    except Exception as e:  # a file made by anyone: zipfile, zlib and lzma raise many kinds
        # a damaged zip: bad CRC, truncated or invalid deflate data, an unsupported compression or encryption
        raise NpzError(f"damaged or not an .npz ({type(e).__name__}: {' '.join(str(e).split())[:200]})") from None


__all__ = ["KINDS", "MAX_DIMS", "MAX_ENTRIES", "MAX_ENTRY_BYTES", "MAX_TOTAL_BYTES", "NpzError", "read_npz"]

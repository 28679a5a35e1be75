"""Members of a ZIP archive, including zstandard-compressed ones (method 93).

Inspect AI writes its ``.eval`` logs with zstandard compression, which Python's ``zipfile``
reads only from Python 3.14 on.  Those members are sliced out of the archive and decompressed
with cramjam (shipped with the bundle for fastparquet), zstandard or pyarrow, whichever is
installed; stored and deflated members go through ``zipfile``.
"""

from __future__ import annotations

import io
import struct
import zipfile

from workbench.core.errors import DataError

ZSTD = 93


def open_zip(data: bytes, shown: str) -> zipfile.ZipFile:
    try:
        return zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, OSError, ValueError) as err:
        raise DataError(f"File {shown} is a damaged ZIP archive ({err}); expected a complete "
                        "Inspect .eval log.") from None


def read_member(archive: zipfile.ZipFile, data: bytes, name: str, shown: str) -> bytes:
    """The uncompressed bytes of member ``name``."""
    info = archive.getinfo(name)
    try:
        if info.compress_type != ZSTD:
            return archive.read(name)
        offset = info.header_offset
        if data[offset:offset + 4] != b"PK\x03\x04":
            raise zipfile.BadZipFile("bad local header")
        name_len, extra_len = struct.unpack("<HH", data[offset + 26:offset + 30])
        start = offset + 30 + name_len + extra_len
        raw = data[start:start + info.compress_size]
        return _zstd(raw, info.file_size, shown)
    except (zipfile.BadZipFile, OSError, ValueError, EOFError, RuntimeError, NotImplementedError) as err:
        raise DataError(f"Member '{name}' of file {shown} cannot be read ({err}); expected a "
                        "complete archive.") from None


def _zstd(raw: bytes, size: int, shown: str) -> bytes:
    try:
        import cramjam

        return bytes(cramjam.zstd.decompress(raw, output_len=size))
    except ImportError:
        pass
    try:
        import zstandard

        return zstandard.ZstdDecompressor().decompress(raw, max_output_size=size)
    except ImportError:
        pass
    try:
        import pyarrow

        return pyarrow.decompress(raw, decompressed_size=size, codec="zstd").to_pybytes()
    except ImportError:
        raise DataError(f"File {shown} is compressed with zstandard, and this installation has no "
                        "zstandard decoder (cramjam, zstandard or pyarrow); install one of them."
                        ) from None

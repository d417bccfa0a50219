"""Files refused by their first bytes, never opened: pickles and the compressed files joblib writes.

A pickle runs whatever code it names while it loads, so a model file that is a pickle (``pickle.dump``,
``joblib.dump``, ``torch.save`` of an old kind) is never unpickled: the sniffers below look only at the
opening bytes, and the refusal says what to save instead.

- pickle protocols 2-5 open with the PROTO opcode ``0x80`` and the protocol number; protocols 0 and 1
  have no header, so a file ending in ``.`` (STOP) has its first :data:`PREFIX` bytes read as opcodes by
  :func:`pickletools.genops` (a disassembler: it names opcodes and executes nothing): valid opcodes up to a
  STOP, or filling the whole prefix of a longer file, make a pickle. Only the prefix is read, so a
  190 MB run of opcodes is refused as fast as a small pickle;
- joblib's compressed pickles are zlib (``0x78``), gzip (``1f 8b``), bz2 (``BZh``), xz (``fd 37 7a 58 5a 00``)
  lzma-alone (``5d 00 00``) or lz4 (``04 22 4d 18``) streams, or carry joblib's own ``ZF`` header.
"""

from __future__ import annotations

import io
import pickletools

from engine.errors import DataError

SAVE_INSTEAD = ("Save the model with skops.io.dump (scikit-learn), save_model (XGBoost JSON/UBJSON or the "
                "LightGBM text file) or as ONNX, and open that file.")

#: The opening bytes of a headerless pickle that are disassembled.
PREFIX = 64 * 1024


def is_pickle(data: bytes) -> bool:
    if len(data) >= 2 and data[0] == 0x80 and 2 <= data[1] <= 5:
        return True
    if data[-256:].rstrip()[-1:] != b".":           # every pickle ends with STOP
        return False
    stream = io.BytesIO(data[:PREFIX])
    try:
        for op, _, _ in pickletools.genops(stream):
            if op.name == "STOP":
                return True
    except Exception:  # noqa: BLE001 - any failure to disassemble means "not a pickle" ...
        pass
    return len(data) > PREFIX and stream.tell() >= PREFIX      # ... unless the prefix ran out first


def refuse_pickle(data: bytes):
    raise DataError("This file is a Python pickle, which can run any code when it is opened, so the explorer "
                    "never opens pickles. " + SAVE_INSTEAD)


_COMPRESSED = (b"\x1f\x8b", b"BZh", b"\xfd7zXZ\x00", b"\x5d\x00\x00", b"\x04\x22\x4d\x18", b"ZF")


def is_compressed(data: bytes) -> bool:
    if data.startswith(_COMPRESSED):
        return True
    # zlib: 0x78 then a flag byte making the 16-bit header a multiple of 31
    return len(data) >= 2 and data[0] == 0x78 and (data[0] * 256 + data[1]) % 31 == 0


def refuse_compressed(data: bytes):
    raise DataError("This file is compressed, as joblib saves pickles; a pickle can run any code when it is "
                    "opened, so the explorer does not unpack it. " + SAVE_INSTEAD)

"""Files refused by their first bytes, never opened: pickles and the compressed files joblib writes.

A pickle runs whatever code it names while it loads, so a model file that is a pickle (``pickle.dump``,
``joblib.dump``, ``torch.save`` of an old kind) is never unpickled: the sniffers below look only at the
opening bytes, and the refusal says what to save instead.

- pickle protocols 2-5 open with the PROTO opcode ``0x80`` and the protocol number; protocols 0 and 1
  have no header, so the bytes are read as opcodes by :func:`pickletools.genops` (a disassembler: it
  names opcodes and executes nothing): a run of valid opcodes ending in ``.`` STOP is a pickle;
- joblib's compressed pickles are zlib (``0x78``), gzip (``1f 8b``), bz2 (``BZh``), xz (``fd 37 7a 58 5a 00``)
  lzma-alone (``5d 00 00``) or lz4 (``04 22 4d 18``) streams, or carry joblib's own ``ZF`` header.
"""

from __future__ import annotations

import io
import pickletools

from engine.errors import DataError

SAVE_INSTEAD = ("Save the model with skops.io.dump (scikit-learn), save_model (XGBoost JSON/UBJSON or the "
                "LightGBM text file) or as ONNX, and open that file.")

def is_pickle(data: bytes) -> bool:
    if len(data) >= 2 and data[0] == 0x80 and 2 <= data[1] <= 5:
        return True
    if data.rstrip()[-1:] != b".":                  # every pickle ends with STOP
        return False
    try:
        ops = [op.name for op, _, _ in pickletools.genops(io.BytesIO(data))]
    except Exception:  # noqa: BLE001 - any failure to disassemble means "not a pickle"
        return False
    return ops[-1:] == ["STOP"]


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

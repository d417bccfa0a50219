"""Class-code guesses a script gets looked at per minute, straight to a replica's port (issue 40, finding 10).

Each guess is a new "browser" (a fresh XSRF cookie) opening ``/?room=<random code>`` over Streamlit's own
websocket (:class:`benchmarks.ws_student.WsStudent`), with made-up ``X-Forwarded-For`` and ``X-Real-IP``
headers when ``--spoof``: what a script that drops its cookies and names a new address every time sends. A
guess is *looked at* when the page says "No class has that code" (the code was checked), *refused* when it
says "Too many wrong class codes" (the wrong-code wait of live/store.py held it back). Run by hand::

    python benchmarks/guess_codes.py http://127.0.0.1:8501 --seconds 60 --spoof

Before issue 40 the app believed X-Real-IP from any connection of the machine (and uvicorn X-Forwarded-For):
every guess was a new address, so no wait ever started.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.ws_student import WsStudent  # noqa: E402

ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # live.rooms.ALPHABET


class Guesser(WsStudent):
    def __init__(self, base: str, spoof: bool) -> None:
        super().__init__(base, "".join(random.choice(ALPHABET) for _ in range(6)), "guess", timeout=30.0)
        self.spoof = spoof

    async def connect(self) -> None:
        from websockets.asyncio.client import connect

        made_up = f"198.51.{random.randrange(256)}.{random.randrange(256)}"
        headers = {"Cookie": f"_streamlit_xsrf={self.cookie}"}
        if self.spoof:
            headers.update({"X-Forwarded-For": made_up, "X-Real-IP": made_up})
        self.ws = await connect(self.base.replace("http", "ws", 1) + "/_stcore/stream", subprotocols=["streamlit"],
                                max_size=None, open_timeout=self.timeout, additional_headers=headers,
                                ping_interval=None)
        self._reader = asyncio.create_task(self._read())
        await self.rerun()


async def main(base: str, seconds: float, spoof: bool) -> None:
    looked = refused = other = 0
    start = time.monotonic()
    while time.monotonic() - start < seconds:
        g = Guesser(base, spoof)
        try:
            await g.connect()
            await g.wait_for("No class has that code|Too many wrong class codes")
            if "Too many wrong class codes" in g.text():
                refused += 1
            else:
                looked += 1
        except Exception:  # noqa: BLE001 - a page that never said either
            other += 1
        finally:
            await g.close()
    minutes = (time.monotonic() - start) / 60
    print(f"{looked / minutes:.0f} guesses looked at per minute, {refused / minutes:.0f} refused, "
          f"{other} other, in {minutes * 60:.0f} s (spoofed headers: {spoof})")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("base")
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--spoof", action="store_true")
    args = parser.parse_args()
    asyncio.run(main(args.base, args.seconds, args.spoof))

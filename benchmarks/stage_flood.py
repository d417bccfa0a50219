"""How many stage-route requests one client gets answered per second (issue 40, finding 11), by hand::

    python benchmarks/stage_flood.py http://127.0.0.1:8501 --seconds 10 --connections 8 [--cookies] [--spoof]

``--connections`` keep-alive connections from one address ask ``/api/live/stage`` (a wrong key: the route's
cheapest answer, 404) as fast as the server answers; ``--cookies`` sends a new made-up ``_streamlit_xsrf``
cookie with each request (a client inventing browsers), ``--spoof`` made-up ``X-Forwarded-For``/``X-Real-IP``.
Prints the answers per second by status: before issue 40 every request was answered (3,739 a second on one
process); now a browser gets a burst and 4 a second, an address 600 a second, the rest ``429``.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import secrets
import time


async def client(host: str, port: int, until: float, counts: dict, cookies: bool, spoof: bool) -> None:
    reader, writer = await asyncio.open_connection(host, port)
    try:
        while time.monotonic() < until:
            extra = ""
            if cookies:
                extra += f"Cookie: _streamlit_xsrf={secrets.token_hex(16)}\r\n"
            if spoof:
                ip = f"198.51.{random.randrange(256)}.{random.randrange(256)}"
                extra += f"X-Forwarded-For: {ip}\r\nX-Real-IP: {ip}\r\n"
            writer.write(f"GET /api/live/stage?room=ABCDEF&key=0 HTTP/1.1\r\nHost: {host}\r\n{extra}\r\n".encode())
            await writer.drain()
            status = int((await reader.readline()).split()[1])
            length = 0
            while (line := await reader.readline()) not in (b"\r\n", b""):
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
            await reader.readexactly(length)
            counts[status] = counts.get(status, 0) + 1
    finally:
        writer.close()


async def main(base: str, seconds: float, connections: int, cookies: bool, spoof: bool) -> None:
    host, port = base.split("//")[1].split(":")
    counts: dict[int, int] = {}
    until = time.monotonic() + seconds
    await asyncio.gather(*(client(host, int(port), until, counts, cookies, spoof) for _ in range(connections)))
    print(", ".join(f"{status}: {n / seconds:.0f}/s" for status, n in sorted(counts.items())),
          f"(cookies={cookies}, spoof={spoof}, {connections} connections, {seconds:.0f} s)")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("base")
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--connections", type=int, default=8)
    parser.add_argument("--cookies", action="store_true")
    parser.add_argument("--spoof", action="store_true")
    args = parser.parse_args()
    asyncio.run(main(args.base, args.seconds, args.connections, args.cookies, args.spoof))

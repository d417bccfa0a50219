"""Live classroom rooms: the teacher's tree and question shared with students' own browsers.

App infrastructure, not learning: nothing here imports the engine, the ui or Streamlit, and the
engine never imports this package. :mod:`live.rooms` holds the room document and its rules (codes,
tokens, joining, answers, reveal, scores, expiry); :mod:`live.roster` locking and removing;
:mod:`live.nicknames` what a nickname shows and when two look alike (UTS #39, table in ``live/data``);
:mod:`live.limits` who asks and how much one client may ask; :mod:`live.store` the store interface and
the in-process store; :mod:`live.redis_store` the same store in Redis for several replicas;
:func:`live.backend.get_store` picks one (Redis when ``DTX_REDIS_URL`` is set); :mod:`live.stage_route`
answers a room's stage number over plain HTTP (an ASGI middleware app.py mounts) for the students' pages.
"""

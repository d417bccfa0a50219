"""Teaching in front of a class: ``presenter`` (presenter view, narration and keyboard steps), ``quiz``
(the class guesses the next split), ``lessons`` (ready-made states, one address each), ``lesson_io`` (a
teacher's own lesson file: save, open, the lessons folder, notes on steps) and ``share`` (settings, data and
step in the address bar, read back with a warning on bad values).
"""

"""Teaching aids built on the learners: narration, translations, the quiz and the theory pages' numbers.

``narration`` says each growth step in a sentence, ``narration_prune_boost`` each pruning decision and
boosting round, ``i18n`` holds their English and German words, ``quiz`` marks a class's guess of the
next split, ``theory`` computes impurity curves, zero-gain examples and PAC sample sizes, and ``lesson_file`` /
``lesson_replay`` write and read a teacher's lesson file (``.dtx``: data, settings, the tree's history,
notes) and replay it on its data, checked.
"""


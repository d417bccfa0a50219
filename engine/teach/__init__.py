"""Teaching aids built on the learners: narration, translations, the quiz and the theory pages' numbers.

``narration`` says each growth step in a sentence, ``narration_prune_boost`` each pruning decision and
boosting round, ``i18n`` holds their English and German words, ``quiz`` marks a class's guess of the
next split, and ``theory`` computes impurity curves, zero-gain examples and PAC sample sizes.
"""


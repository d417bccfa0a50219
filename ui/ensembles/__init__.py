"""The Ensembles page: ``train`` sets up and trains bagging, random forests or AdaBoost with a progress bar;
``views`` shows votes, members, the decision map, size and variance and importances; ``rounds`` walks
through AdaBoost round by round.
"""

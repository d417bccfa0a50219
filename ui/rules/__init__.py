"""The Rules page (``views``): decision lists one rule at a time, k-DT through monomial features, and the
Grow page's tree as rules.
"""

"""Streamlit glue shared by the pages: session-state keys, cached loaders, widgets, error display.

Dependency direction: pages -> ui -> engine.viz -> engine. Nothing in ``engine`` imports this package.
"""

"""Accessibility (WCAG 2.1 AA): the page-wide fixes (:mod:`ui.access.a11y`: focusable formulas, charts named by
their description, the current page marked) and the tree diagrams' ARIA trees and status regions
(:mod:`ui.access.aria_tree`) for the keyboard and screen readers."""

"""The Prune page's views (``views``): run a pruning method on the Grow page's tree, show before and after
side by side with the cut subtrees greyed, the decision log, and hand the pruned tree back to Grow.
"""

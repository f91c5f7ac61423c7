"""mlnb: Naive Bayes for single-label and multi-label classification."""

__version__ = "0.1.0.dev0"

"""Fuzi's lab: evaluation sets, their build scripts, training and benchmarks (README.md here). It
imports the product and is never imported by it."""

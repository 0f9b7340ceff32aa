"""Facade layer: iModel and iModelManager."""

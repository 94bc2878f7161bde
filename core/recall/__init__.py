"""Recall: hybrid (full-text + vector) retrieval over memories, notes, exchanges and facts."""

from core.recall.service import RecallQuery, RecallResult, RecallService

__all__ = ["RecallQuery", "RecallResult", "RecallService"]

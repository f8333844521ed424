"""Scheduled posts: the daily passage (每日一章) and the opt-in group digest; see docs/schedule.md."""

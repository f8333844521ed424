"""Group quizzes (/quiz, /leaderboard, the daily quiz): see docs/learning.md, "Group quizzes"."""

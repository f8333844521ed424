"""Recitation (背诵): cloze cards from the person's deck, scheduled with FSRS (docs/learning.md).

`check` (the answer checker and its variant table), `cloze` (a line with one phrase blanked),
`scheduling` (the `fsrs` library), `models`/`store` (tables), `commands` (`/recite …` and the answer
to an open card), `reminders` (one DM a day, claimed once across replicas).
"""

"""The learner's practice loop: quiz, mock interviews, spaced review, watch, repro snippets, progress, the
notebook magic and the bench."""

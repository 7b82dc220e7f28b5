"""The check engine: finds a kata's parts, runs its hidden tests against a learner's file through the sandbox,
and turns what came back into results (names, evidence, the not-started and error readings)."""

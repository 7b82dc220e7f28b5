"""Hidden tests, one file per kata: test_<slug>.py, fed the learner's module by the runner."""

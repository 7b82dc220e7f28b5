"""Never finishes importing."""
while True:
    pass

"""The headless command line over the same analyses the GUI runs."""

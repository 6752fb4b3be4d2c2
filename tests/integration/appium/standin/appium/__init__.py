"""Stand-in for the Appium Python client (module layout only; see PROVENANCE.md)."""

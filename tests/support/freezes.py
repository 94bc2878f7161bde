"""The one bound the window's "never freezes" tests share.

These tests are not speed targets (those live in ``benchmarks/``): they catch work that
runs on the UI thread when it should not, which freezes the window for seconds (laying out a
1.8 MB paste, rendering a long chat at once, a dream stage on the event loop). A person
notices a hang from about half a second, but scheduler jitter on a two-core machine under
heavy load reached 531 ms (load 7, several test runs at once), so the bound is a second:
still far below the freezes these tests exist for (seconds), and out of reach of noise.
"""

FROZEN_MS = 1_000

"""The one bound the window's "never freezes" tests share.

These tests are not speed targets (those live in ``benchmarks/``): they catch work that
runs on the UI thread when it should not, which freezes the window for seconds (laying out a
1.8 MB paste, rendering a long chat at once, a dream stage on the event loop). A person
notices a hang from about half a second; scheduler jitter on a loaded two-core CI machine
stays well below it (a quarter of a second was seen), so the bound tells a freeze from noise.
"""

FROZEN_MS = 500

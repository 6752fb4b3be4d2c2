"""Checks the public header list the build was configured with against the directory, and the umbrella header."""
import os
import re
import sys

include_dir, configured = sys.argv[1], sorted(sys.argv[2:])
present = sorted(f for f in os.listdir(include_dir) if f.endswith(".h"))
status = 0
if present != configured:
    print(f"headers in {include_dir}: {present}")
    print(f"headers the build was configured with: {configured}")
    print("a public header was added or removed since configuring: run meson setup --reconfigure")
    status = 1
umbrella = open(os.path.join(include_dir, "swipium.h")).read()
included = set(re.findall(r"^#include <swipium/([A-Za-z0-9_.-]+\.h)>", umbrella, flags=re.M))
missing = [h for h in present + ["version.h"] if h != "swipium.h" and h not in included]
if missing:
    print(f"public headers not included by swipium/swipium.h: {missing}; add an #include line for each")
    status = 1
sys.exit(status)

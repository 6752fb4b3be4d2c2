"""Compares the dynamic symbols libswipium exports with the list in libswipium.sym."""
import re
import subprocess
import sys

lib, symfile = sys.argv[1], sys.argv[2]
text = re.sub(r"/\*.*?\*/", "", open(symfile).read(), flags=re.S)
listed = set(re.findall(r"^\s*(sw_[A-Za-z0-9_]+);", text, flags=re.M))
out = subprocess.run(["nm", "-D", "--defined-only", lib], capture_output=True, text=True, check=True).stdout
exported = {line.split()[-1].split("@")[0] for line in out.splitlines() if len(line.split()) == 3 and line.split()[1] in ("T", "D", "B", "R")}
exported = {s for s in exported if not s.startswith("_")}
missing = sorted(listed - exported)
extra = sorted(exported - listed)
if missing:
    print("listed in libswipium.sym but not exported (no SW_API or no definition):", missing)
if extra:
    print("exported but not listed in libswipium.sym:", extra)
if any(s.startswith("sw__") for s in listed):
    print("internal sw__ symbols must not be exported")
    sys.exit(1)
sys.exit(1 if missing or extra else 0)

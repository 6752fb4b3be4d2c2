#!/usr/bin/env python3
"""bench-appscan.py: the static app scanner on a generated 5,000-file React Native tree.

Usage: bench-appscan.py <path to libswipium.so> [runs] [files]
Prints, in one run on the same tree:
- sw_appscan_static (in process, code index on) against `find ROOT -type f -print0 | xargs -0 grep -c Screen`
  (two processes joined by a pipe: a baseline that opens every file once); target: scan <= 5x baseline;
- the same scan after a sparse 200 MB generated bundle (src/generated/bundle.js) is added; target: within
  2x the clean scan + 1 s, and bytesRead unchanged (the big file is neither read nor hashed).
Best of RUNS (default 5) interleaved runs each. Exits 1 when a target is missed.
"""
import ctypes
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time

LIB = sys.argv[1]
RUNS = int(sys.argv[2]) if len(sys.argv) > 2 else 5
FILES = int(sys.argv[3]) if len(sys.argv) > 3 else 5000

COMPONENT = """import React, {{ useState }} from 'react';
import {{ View, Text, Pressable, StyleSheet }} from 'react-native';
import {{ useTheme }} from '../theme';

type Props = {{ title: string; onPress?: () => void; count?: number }};

// {name}: a generated component of the benchmark tree
export function {name}({{ title, onPress, count = 0 }}: Props) {{
  const theme = useTheme();
  const [open, setOpen] = useState(false);
  const label = `${{title}} (${{count}})`;
  return (
    <View style={{[styles.box, {{ backgroundColor: theme.bg }}]}}>
      <Pressable onPress={{() => {{ setOpen(!open); onPress?.(); }}}}>
        <Text style={{styles.text}}>{{label}} - don't tap twice</Text>
      </Pressable>
      {{open && <Text>{{'details of ' + title}}</Text>}}
    </View>
  );
}}

const styles = StyleSheet.create({{
  box: {{ padding: 12, borderRadius: 8, margin: 4 }},
  text: {{ fontSize: 16, fontWeight: '600' }},
}});
"""

SCREEN = """import React from 'react';
import {{ ScrollView, Text, TextInput }} from 'react-native';
import {{ {comp} }} from '../components/{comp}';

export default function {name}({{ navigation }}) {{
  return (
    <ScrollView>
      <Text>{name}</Text>
      <{comp} title="{name}" onPress={{() => navigation.navigate('{next}')}} />
      {pw}
    </ScrollView>
  );
}}
"""

UTIL = """export const {name}_KEY = '{name}';
export function {name}(value: number): number {{
  // a generated helper: /* not a comment */ and 'quotes' in a string
  const re = /[a-z]+\\/(\\d+)/g;
  return value * {n} + '{name}'.length;
}}
"""


def generate(root, files):
    random.seed(14)
    screens = max(50, files // 20)
    navs = 10
    utils = files // 5
    comps = files - screens - navs - utils - 2
    os.makedirs(os.path.join(root, "src", "components"))
    os.makedirs(os.path.join(root, "src", "screens"))
    os.makedirs(os.path.join(root, "src", "navigation"))
    os.makedirs(os.path.join(root, "src", "utils"))
    with open(os.path.join(root, "package.json"), "w") as f:
        json.dump({"name": "bench", "dependencies": {"react-native": "0.76.0", "@react-navigation/native": "7.0.0",
                                                      "@react-navigation/native-stack": "7.0.0"}}, f)
    with open(os.path.join(root, "src", "navigation", "routes.ts"), "w") as f:
        f.write("export const Routes = {\n" + "".join(f"  S{i}: 'Screen{i}',\n" for i in range(screens)) + "} as const;\n")
    for i in range(comps):
        with open(os.path.join(root, "src", "components", f"Comp{i}.tsx"), "w") as f:
            f.write(COMPONENT.format(name=f"Comp{i}"))
    for i in range(screens):
        with open(os.path.join(root, "src", "screens", f"Screen{i}.tsx"), "w") as f:
            f.write(SCREEN.format(name=f"Screen{i}", comp=f"Comp{i % max(comps, 1)}", next=f"Screen{(i + 1) % screens}",
                                  pw="<TextInput secureTextEntry />" if i % 25 == 0 else ""))
    per = (screens + navs - 1) // navs
    for n in range(navs):
        body = "".join(f"      <Stack.Screen name={{Routes.S{i}}} component={{Screen{i}}} />\n"
                       for i in range(n * per, min(screens, (n + 1) * per)))
        with open(os.path.join(root, "src", "navigation", f"Nav{n}.tsx"), "w") as f:
            f.write("import { createNativeStackNavigator } from '@react-navigation/native-stack';\n"
                    "const Stack = createNativeStackNavigator();\n"
                    f"export function Nav{n}() {{\n  return (\n    <Stack.Navigator>\n{body}    </Stack.Navigator>\n  );\n}}\n")
    for i in range(utils):
        with open(os.path.join(root, "src", "utils", f"util{i}.ts"), "w") as f:
            f.write(UTIL.format(name=f"util{i}", n=i))
    return screens


def scan(lib, root):
    out = ctypes.c_void_p()
    err = ctypes.c_void_p()
    t0 = time.perf_counter()
    rc = lib.sw_appscan_static(root.encode(), None, ctypes.byref(out), ctypes.byref(err))
    dt = time.perf_counter() - t0
    if rc != 0:
        raise SystemExit(f"sw_appscan_static failed: {rc}")
    j = json.loads(ctypes.string_at(out.value).decode())
    lib.sw_free(out)
    return dt, j


def grep_baseline(root):
    t0 = time.perf_counter()
    find = subprocess.Popen(["find", root, "-type", "f", "-print0"], stdout=subprocess.PIPE)
    xargs = subprocess.Popen(["xargs", "-0", "grep", "-c", "Screen"], stdin=find.stdout, stdout=subprocess.DEVNULL)
    find.stdout.close()
    xargs.wait()
    find.wait()
    return time.perf_counter() - t0


def main():
    lib = ctypes.CDLL(LIB)
    lib.sw_appscan_static.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p),
                                      ctypes.POINTER(ctypes.c_void_p)]
    lib.sw_free.argtypes = [ctypes.c_void_p]
    tmp = tempfile.mkdtemp(prefix="sw-bench-appscan-")
    ok = True
    try:
        root = os.path.join(tmp, "app")
        os.makedirs(root)
        screens = generate(root, FILES)
        nfiles = sum(len(f) for _, _, f in os.walk(root))
        scan(lib, root)  # warm the page cache for both sides
        grep_baseline(root)
        s_times, g_times = [], []
        for _ in range(RUNS):
            s, j = scan(lib, root)
            s_times.append(s)
            g_times.append(grep_baseline(root))
        clean, base = min(s_times), min(g_times)
        found = len(j["screens"])
        read_clean = j["stats"]["bytesRead"]
        print(f"bench-appscan: {nfiles} files ({screens} navigator screens), best of {RUNS} interleaved runs")
        print(f"  sw_appscan_static            {clean * 1000:8.1f} ms  screens found {found}, "
              f"bytes read {read_clean}")
        print(f"  find | xargs grep -c Screen  {base * 1000:8.1f} ms  (baseline)")
        ratio = clean / base
        print(f"  ratio scan / baseline        {ratio:8.2f}x  (target <= 5x)")
        ok &= ratio <= 5 and found == screens

        big = os.path.join(root, "src", "generated", "bundle.js")
        os.makedirs(os.path.dirname(big))
        with open(big, "wb") as f:
            f.truncate(200 * 1024 * 1024)  # sparse: the test machine's disk is not filled
        b_times = []
        for _ in range(RUNS):
            b, jb = scan(lib, root)
            b_times.append(b)
        withbig = min(b_times)
        read_big = jb["stats"]["bytesRead"]
        limit = 2 * clean + 1.0
        print(f"  with a 200 MB bundle added   {withbig * 1000:8.1f} ms  bytes read {read_big} "
              f"(target <= 2 x clean + 1 s = {limit * 1000:.0f} ms; bytes read unchanged)")
        ok &= withbig <= limit and read_big == read_clean
        notes = [n["code"] for n in jb["parserNotes"]]
        print(f"  parser notes with the bundle: {', '.join(notes)}")
        ok &= "file-too-large" in notes
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("bench-appscan:", "targets met" if ok else "TARGET MISSED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

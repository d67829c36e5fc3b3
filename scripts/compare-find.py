#!/usr/bin/env python3
# Usage: scripts/compare-find.py OLD_FSLENS NEW_FSLENS WORKSPACE...
# Runs the same finds with two fslens binaries and reports any answer that differs
# (timings, elapsed time and the new filesSearched account left out).
import json, os, random, re, subprocess, sys
old, new = sys.argv[1], sys.argv[2]
workspaces = sys.argv[3:]
def run(binary, ws, args):
    env = dict(os.environ, FSLENS_CACHE_DIR="off")
    env.pop("FSLENS_FSAC", None)
    p = subprocess.run([binary, "find", *args, "--json", "--no-share", "--fsac", "/nonexistent/fsac", "--workspace", ws],
                       capture_output=True, text=True, env=env, timeout=300)
    if p.returncode != 0:
        return {"failed": p.returncode, "stderr": p.stderr.strip().splitlines()[-1:] }
    answer = json.loads(p.stdout)
    for key in ("timingsMs", "elapsedMs", "filesSearched"):
        answer.pop(key, None)
    return answer
random.seed(7)
total = differ = 0
for ws in workspaces:
    files = [os.path.join(d, f) for d, _, fs in os.walk(ws) for f in fs if f.endswith((".fs", ".fsi", ".fsx"))]
    words = {}
    ops = set()
    for path in files:
        text = open(path, encoding="utf-8", errors="replace").read()
        for word in re.findall(r"\b[A-Za-z_][A-Za-z0-9_']*\b", text):
            words[word] = words.get(word, 0) + 1
        for op in re.findall(r"\(([!%&*+\-./<=>?@^|~]{1,4})\)", text):
            ops.add(op)
    common = sorted(words, key=lambda w: -words[w])[:15]
    rare = random.sample(sorted(w for w in words if words[w] <= 2), min(15, len(words)))
    middle = random.sample(sorted(w for w in words if 3 <= words[w] <= 40), min(15, len(words)))
    queries = [[w] for w in common + rare + middle] + [[o] for o in sorted(ops)[:12]]
    queries += [[w, "--substring"] for w in random.sample(middle, 5)] + [["zzNoSuchName"]]
    queries += [[w[:3].lower(), "--substring"] for w in random.sample(common, 4)]
    types, fields = set(), set()
    for path in files:
        text = open(path, encoding="utf-8", errors="replace").read()
        types.update(re.findall(r"\btype\s+(?:private\s+|internal\s+)?([A-Z][A-Za-z0-9_]*)", text))
        fields.update(re.findall(r"\{\s*(?:mutable\s+)?([A-Z][A-Za-z0-9_]*)\s*:", text))
    queries += [[t, "--kind", "members"] for t in random.sample(sorted(types), min(6, len(types)))]
    queries += [["--kind", "field", "--field", f] for f in random.sample(sorted(fields), min(6, len(fields)))]
    # positions: a word on a random line
    for path in random.sample(files, min(8, len(files))):
        lines = open(path, encoding="utf-8", errors="replace").read().split("\n")
        candidates = [(n, m.group(0)) for n, line in enumerate(lines) for m in re.finditer(r"\b[A-Za-z_][A-Za-z0-9_]{3,}\b", line)]
        if candidates:
            n, word = random.choice(candidates)
            queries.append(["--kind", "position", "--path", path, "--line", str(n), "--word", word])
    for args in queries:
        total += 1
        a, b = run(old, ws, args), run(new, ws, args)
        if a != b:
            differ += 1
            print("DIFFERS", ws, args)
            for key in sorted(set(a) | set(b)):
                if a.get(key) != b.get(key):
                    print("   ", key, json.dumps(a.get(key))[:300], "=>", json.dumps(b.get(key))[:300])
        else:
            print("same", os.path.basename(ws), args[:2], a.get("totalSites"), a.get("status"))
print(f"{total} finds, {differ} differ")

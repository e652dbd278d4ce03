# 4100-watch-hooks.py - summarize what the test receiver (4100-watch.lib) and exec hook got, sorted
import json

rows = []
for line in open("hooks.txt"):
    path, body = line.split(" ", 1)
    d = json.loads(body)
    if path == "/generic":
        rows.append(f"generic {d['state']} {d['severity']} {d['rule']} gpu={d['gpu']} code={d['code']}")
    elif path == "/slack":
        rows.append("slack " + d["text"].split(" on ")[0] + " on")
    else:
        a = d[0]
        rows.append(f"am {a['labels']['alertname']} gpu={a['labels']['gpu']} severity={a['labels']['severity']} "
                    f"resolved={'endsAt' in a}")
for r in sorted(rows):
    print(r)
ex = open("exec.txt").read().splitlines()
print("exec", [json.loads(l)["state"] for l in ex if l.startswith("{")], [l for l in ex if l.startswith("env")])

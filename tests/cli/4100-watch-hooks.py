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
        # Alertmanager v2: endsAt on every alert (Prometheus's way); resolved = endsAt not after the send
        import datetime
        a = d[0]
        ends = datetime.datetime.fromisoformat(a["endsAt"].replace("Z", "+00:00"))
        starts = datetime.datetime.fromisoformat(a["startsAt"].replace("Z", "+00:00"))
        resolved = ends <= datetime.datetime.now(datetime.timezone.utc)
        assert a["generatorURL"].startswith("gpuscope://") and starts <= ends, a
        rows.append(f"am {a['labels']['alertname']} gpu={a['labels']['gpu']} severity={a['labels']['severity']} "
                    f"resolved={resolved}")
for r in sorted(rows):
    print(r)
ex = open("exec.txt").read().splitlines()
print("exec", [json.loads(l)["state"] for l in ex if l.startswith("{")], [l for l in ex if l.startswith("env")])

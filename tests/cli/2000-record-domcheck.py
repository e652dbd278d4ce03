#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# 2000-record-domcheck.py DOM.html - used by the 2*-record-* CLI tests: read the DOM
# of an HTML report as headless Chromium drew it (--dump-dom) and print, per chart,
# what a person would see: how many line segments and lone dots each series has,
# the slowdown bands, whether the time labels repeat, the y-axis ticks, the dates;
# then the heatmap rows, the small multiples, the toggles and the hover readout.
import html.parser
import re
import sys


class Dom(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.stack, self.charts, self.cur, self.tip, self.in_tip = [], [], None, "", False
        self.text_of = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        cls = a.get("class", "")
        if tag == "div" and cls in ("chart", "heat", "mult"):
            self.cur = {"kind": cls, "metric": a.get("data-metric", ""), "paths": [], "dots": 0, "bands": 0,
                        "texts": [], "rects": 0, "title": ""}
            self.charts.append(self.cur)
        if tag == "div" and a.get("id") == "gs-tip":
            self.in_tip = "display: block" in a.get("style", "")
        if self.cur is not None:
            if tag == "path" and cls == "line":
                self.cur["paths"].append(a.get("d", ""))
            elif tag == "circle":
                self.cur["dots"] += 1
            elif tag == "rect" and cls == "thr":
                self.cur["bands"] += 1
            elif tag == "rect":
                self.cur["rects"] += 1
            elif tag in ("text", "h3"):
                self.text_of = tag
        if tag not in ("input", "br", "meta", "line", "rect", "circle", "path"):
            self.stack.append(tag)

    def handle_endtag(self, tag):
        if self.stack and self.stack[-1] == tag:
            self.stack.pop()
        self.text_of = None
        if tag == "div" and self.in_tip:
            self.in_tip = False

    def handle_data(self, data):
        if self.in_tip:
            self.tip += data + " "
        if self.cur is not None and self.text_of == "text":
            self.cur["texts"].append(data)
        elif self.cur is not None and self.text_of == "h3":
            self.cur["title"] = data


d = Dom()
d.feed(open(sys.argv[1], encoding="utf-8").read())
for c in d.charts:
    if c["kind"] != "chart":
        continue
    segs = [p.count("M") for p in c["paths"]]
    times = [t for t in c["texts"] if re.fullmatch(r"\d\d:\d\d(:\d\d)?", t)]
    dates = sorted(set(t for t in c["texts"] if re.fullmatch(r"[A-Z][a-z]{2} \d+", t)))
    ticks = [t for t in c["texts"] if re.fullmatch(r"[\d.\u2009]+", t)]
    print(f"{c['metric']}: segments {segs} dots {c['dots']} bands {c['bands']} times {len(times)}"
          f"{' repeated' if len(set(times)) != len(times) else ' distinct'} dates {dates} y {' '.join(ticks)}")
heat = [c for c in d.charts if c["kind"] == "heat"]
print("heatmaps", [(c["metric"], len([t for t in c["texts"] if t.startswith("GPU ")])) for c in heat])
print("small multiples", len([c for c in d.charts if c["kind"] == "mult"]))
print("readout", re.sub(r"\s+", " ", d.tip).strip() or "-")

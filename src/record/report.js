/* SPDX-License-Identifier: MIT */
/*
 * report.js - draws the charts of a gpuscope HTML report from the JSON in
 * #gs-data (written by src/record/report_html.c), at the width of the page:
 * a line chart per metric with a line per GPU (GPU toggles above them), GPU x
 * time heatmaps of utilization, memory and temperature, small multiples per
 * GPU, per-process GPU memory; red bands where a GPU was in a HW/thermal
 * slowdown or power brake, Xid and lost-GPU lines, annotations; a hover
 * readout (time, GPU, value) everywhere. Plain ES5, no libraries, nothing
 * fetched. Times are shown in the zone of the machine that made the report
 * (D.tz), whatever the browser's zone is.
 */
(function () {
    'use strict';
    var D = JSON.parse(document.getElementById('gs-data').textContent);
    var NS = 'http://www.w3.org/2000/svg';
    var SPAN = D.to - D.from, BW = SPAN / D.w;
    var PALETTE = ['#1f77b4', '#ff7f0e', '#2ca02c', '#9467bd', '#8c564b', '#e377c2', '#17becf', '#bcbd22',
                   '#7f7f7f', '#393b79', '#637939', '#8c6d31', '#7b4173', '#3182bd', '#e6550d', '#31a354'];
    var MON = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
    var visible = D.gpus.map(function () { return true; });
    var tip = document.getElementById('gs-tip');

    function color(i) { return PALETTE[i % PALETTE.length]; }
    function dash(i) { return ['', '6 3', '2 2', '8 3 2 3'][Math.floor(i / PALETTE.length) % 4]; }
    function metric(key) {
        for (var i = 0; i < D.metrics.length; i++) if (D.metrics[i].key === key) return D.metrics[i];
        return null;
    }

    /* ---- time in the report's zone ------------------------------------------------------- */
    function offset(t) {
        var o = D.tz.length ? D.tz[0][1] : 0;
        for (var i = 1; i < D.tz.length && D.tz[i][0] <= t; i++) o = D.tz[i][1];
        return o * 1000;
    }
    function local(t) { return new Date(t + offset(t)); }
    function pad(n) { return (n < 10 ? '0' : '') + n; }
    function clock(t, secs) {
        var d = local(t);
        return pad(d.getUTCHours()) + ':' + pad(d.getUTCMinutes()) + (secs ? ':' + pad(d.getUTCSeconds()) : '');
    }
    function day(t) { var d = local(t); return d.getUTCFullYear() * 10000 + d.getUTCMonth() * 100 + d.getUTCDate(); }
    function date(t) { var d = local(t); return MON[d.getUTCMonth()] + ' ' + d.getUTCDate(); }
    function fullDate(t) {
        var d = local(t);
        return d.getUTCFullYear() + '-' + pad(d.getUTCMonth() + 1) + '-' + pad(d.getUTCDate()) + ' ' + clock(t, true);
    }
    var CROSSES_MIDNIGHT = day(D.from) !== day(D.to - 1);

    var STEPS = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400,
                 172800, 604800].map(function (s) { return s * 1000; });
    /* Round local times (every 5 min, every 6 h, midnights) that fit the width. */
    function timeTicks(px) {
        var want = Math.max(3, Math.floor(px / 95)), step = STEPS[STEPS.length - 1], ticks = [];
        for (var i = 0; i < STEPS.length; i++) if (SPAN / STEPS[i] <= want) { step = STEPS[i]; break; }
        var o = offset(D.from);
        for (var l = Math.ceil((D.from + o) / step) * step; l - o <= D.to; l += step) {
            var t = l - offset(l - o); /* the same local time across a DST change */
            if (t >= D.from && t <= D.to) ticks.push(t);
        }
        return { ticks: ticks, step: step };
    }
    function niceScale(max, n) {
        if (!(max > 0)) max = 1;
        var raw = max / (n || 4), mag = Math.pow(10, Math.floor(Math.log(raw) / Math.LN10)), r = raw / mag;
        var step = (r <= 1 ? 1 : r <= 2 ? 2 : r <= 2.5 ? 2.5 : r <= 5 ? 5 : 10) * mag;
        return { step: step, top: Math.ceil(max / step - 1e-9) * step };
    }
    function num(v, step) {
        var dec = 0;
        while (dec < 4 && Math.abs(step * Math.pow(10, dec) - Math.round(step * Math.pow(10, dec))) > 1e-6) dec++;
        var s = v.toFixed(dec);
        return Math.abs(v) >= 10000 ? s.replace(/\B(?=(\d{3})+(?!\d))/g, '\u2009') : s;
    }
    function fmtVal(v, unit) {
        if (v === null || v === undefined) return '\u2013';
        var a = Math.abs(v);
        return (a >= 100 ? v.toFixed(0) : a >= 10 ? v.toFixed(1) : v.toFixed(2)) + ' ' + unit;
    }

    /* ---- SVG helpers -------------------------------------------------------------------- */
    function el(name, attrs, parent, text) {
        var e = document.createElementNS(NS, name);
        for (var k in attrs) if (attrs.hasOwnProperty(k)) e.setAttribute(k, attrs[k]);
        if (text !== undefined) e.textContent = text;
        if (parent) parent.appendChild(e);
        return e;
    }
    function showTip(ev, html) {
        tip.innerHTML = html;
        tip.style.display = 'block';
        var x = ev.clientX + 14, y = ev.clientY + 14;
        if (x + tip.offsetWidth > window.innerWidth - 4) x = ev.clientX - tip.offsetWidth - 14;
        if (y + tip.offsetHeight > window.innerHeight - 4) y = ev.clientY - tip.offsetHeight - 14;
        tip.style.left = Math.max(2, x) + 'px';
        tip.style.top = Math.max(2, y) + 'px';
    }
    function hideTip() { tip.style.display = 'none'; }
    function esc(s) {
        return String(s).replace(/[&<>"]/g, function (c) { return { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' }[c]; });
    }
    /* The value at bucket b, or the nearest one within maxgap buckets (the lines bridge those). */
    function near(data, b, maxgap) {
        for (var k = 0; k <= maxgap; k++) {
            if (b - k >= 0 && data[b - k] !== null) return data[b - k];
            if (b + k < data.length && data[b + k] !== null) return data[b + k];
        }
        return null;
    }

    /* The time axis, grid and event lines of a plot box [L, L+pw] x [T, T+ph]. */
    function timeAxis(svg, L, T, pw, ph, x, nogrid) {
        var tt = timeTicks(pw), prevDay = null, secs = tt.step < 60000, days = tt.step >= 86400000;
        tt.ticks.forEach(function (t, i) {
            var px = x((t - D.from) / BW);
            el('line', { x1: px, x2: px, y1: nogrid ? T + ph : T, y2: T + ph + (nogrid ? 4 : 0), stroke: nogrid ? '#666' : '#e4e4e4' }, svg);
            var label = days ? date(t) : clock(t, secs);
            var d = day(t), showDate = !days && (CROSSES_MIDNIGHT || SPAN >= 86400000) && (i === 0 || d !== prevDay);
            prevDay = d;
            el('text', { x: px, y: T + ph + 13, 'text-anchor': 'middle' }, svg, label);
            if (showDate) el('text', { x: px, y: T + ph + 25, 'text-anchor': 'middle', 'font-weight': 'bold' }, svg, date(t));
        });
    }
    function markLines(svg, T, ph, x, gpuFilter) {
        D.marks.forEach(function (m) {
            if (m.t < D.from || m.t >= D.to) return;
            if (gpuFilter !== undefined && m.gpu >= 0 && m.gpu !== gpuFilter) return;
            var px = x((m.t - D.from) / BW), isMark = m.kind === 'mark';
            var ln = el('line', { 'class': 'ev-' + m.kind, x1: px, x2: px, y1: T, y2: T + ph, stroke: isMark ? '#1f4fd6' : '#d62728',
                                  'stroke-dasharray': isMark ? '4 2' : 'none' }, svg);
            el('title', {}, ln, isMark ? m.text : m.kind + ' ' + m.code + (m.gpu >= 0 ? ' on GPU ' + m.gpu : ''));
            if (isMark || m.kind === 'xid')
                el('text', { x: px + 2, y: T + 10, fill: isMark ? '#1f4fd6' : '#d62728', 'font-size': 10 }, svg,
                   isMark ? m.text : 'Xid ' + m.code);
        });
    }

    /* ---- a line chart: series [{label, color, dash, data, bands, gpu}] --------------------- */
    function lineChart(box, o) {
        box.innerHTML = '';
        if (o.title) { var h = document.createElement('h3'); h.textContent = o.title + (o.unit ? ' (' + o.unit + ')' : ''); box.appendChild(h); }
        if (o.legend) {
            var lg = document.createElement('div');
            lg.className = 'legend';
            lg.innerHTML = o.series.map(function (s) {
                return '<span class="sw" style="background:' + s.color + '"></span>' + esc(s.label);
            }).join(' &nbsp; ');
            box.appendChild(lg);
        }
        var W = Math.max(240, box.clientWidth), H = o.height || 190, L = 52, R = 16, T = 8, B = CROSSES_MIDNIGHT || SPAN >= 86400000 ? 32 : 22;
        var pw = W - L - R, ph = H - T - B;
        var svg = el('svg', { width: W, height: H, viewBox: '0 0 ' + W + ' ' + H, role: 'img' }, box);
        var max = 0;
        o.series.forEach(function (s) { s.data.forEach(function (v) { if (v !== null && v * o.scale > max) max = v * o.scale; }); });
        (o.thresholds || []).forEach(function (th) { if (th.v * o.scale > max) max = th.v * o.scale; });
        var sc = o.fixedMax ? { top: o.fixedMax, step: o.fixedMax / 4 } : niceScale(max * 1.05);
        function x(b) { return L + b * pw / D.w; }
        function y(v) { return T + ph * (1 - Math.min(Math.max(v * o.scale / sc.top, 0), 1)); }
        el('rect', { x: L, y: T, width: pw, height: ph, fill: '#fafafa', stroke: '#ccc' }, svg);
        o.series.forEach(function (s) {
            (s.bands || []).forEach(function (r) {
                el('rect', { 'class': 'thr', x: x(r[0]), y: T, width: Math.max(1, x(r[1]) - x(r[0])), height: ph,
                             fill: '#d62728', 'fill-opacity': 0.13 }, svg);
            });
        });
        for (var v = 0; v <= sc.top + 1e-9; v += sc.step) {
            var py = T + ph * (1 - v / sc.top);
            if (v > 0) el('line', { x1: L, x2: L + pw, y1: py, y2: py, stroke: '#e4e4e4' }, svg);
            el('text', { x: L - 5, y: py + 4, 'text-anchor': 'end' }, svg, num(v, sc.step));
        }
        timeAxis(svg, L, T, pw, ph, x);
        markLines(svg, T, ph, x, o.gpuFilter);
        o.series.forEach(function (s) {
            var d = '', last = -1e9, run = 0, start = -1, dots = [];
            for (var b = 0; b < s.data.length; b++) {
                if (s.data[b] === null) continue;
                if (b - last > o.maxgap + 1) { if (run === 1) dots.push(start); d += 'M'; run = 0; start = b; } else d += 'L';
                d += x(b + 0.5).toFixed(1) + ' ' + y(s.data[b]).toFixed(1) + ' ';
                run++;
                last = b;
            }
            if (run === 1) dots.push(start);
            if (d) el('path', { 'class': 'line', d: d, fill: 'none', stroke: s.color, 'stroke-width': 1.4,
                               'stroke-dasharray': s.dash || '', 'stroke-linejoin': 'round' }, svg);
            dots.forEach(function (b) { el('circle', { cx: x(b + 0.5), cy: y(s.data[b]), r: 2.2, fill: s.color }, svg); });
        });
        (o.thresholds || []).forEach(function (th) {
            var py = y(th.v);
            el('line', { x1: L, x2: L + pw, y1: py, y2: py, stroke: '#d62728', 'stroke-dasharray': '6 3' }, svg);
            el('text', { x: L + pw - 3, y: py - 3, fill: '#d62728', 'text-anchor': 'end', 'font-size': 10 }, svg, th.label);
        });
        var cursor = el('line', { x1: 0, x2: 0, y1: T, y2: T + ph, stroke: '#555', 'stroke-width': 0.8, visibility: 'hidden' }, svg);
        var hit = el('rect', { x: L, y: T, width: pw, height: ph, fill: 'transparent' }, svg);
        hit.addEventListener('mousemove', function (ev) {
            var r = svg.getBoundingClientRect(), b = Math.floor((ev.clientX - r.left - L) / pw * D.w);
            if (b < 0 || b >= D.w) return;
            cursor.setAttribute('x1', x(b + 0.5));
            cursor.setAttribute('x2', x(b + 0.5));
            cursor.setAttribute('visibility', 'visible');
            var t = D.from + b * BW, html = '<b>' + fullDate(t) + '</b>' + (BW >= 1500 ? ' + ' + Math.round(BW / 1000) + ' s' : '');
            o.series.forEach(function (s) {
                var val = near(s.data, b, o.maxgap);
                html += '<br><span class="sw" style="background:' + s.color + '"></span>' + esc(s.label) + ': ' +
                        fmtVal(val === null ? null : val * o.scale, o.unit);
            });
            showTip(ev, html);
        });
        hit.addEventListener('mouseleave', function () { cursor.setAttribute('visibility', 'hidden'); hideTip(); });
    }

    function gpuSeries(m) {
        var out = [];
        D.gpus.forEach(function (g, i) {
            if (!visible[i]) return;
            out.push({ label: 'GPU ' + g.idx, color: color(i), dash: dash(i), data: m.data[i], bands: g.serious, gpu: g.idx });
        });
        return out;
    }
    function memScale(m) {
        var max = 0;
        m.data.forEach(function (s) { s.forEach(function (v) { if (v !== null && v > max) max = v; }); });
        return max >= 4096 ? { scale: 1 / 1024, unit: 'GiB' } : { scale: 1, unit: 'MiB' };
    }

    function drawCharts() {
        var boxes = document.querySelectorAll('.chart');
        for (var i = 0; i < boxes.length; i++) {
            var key = boxes[i].getAttribute('data-metric');
            if (key === 'procs') {
                var series = D.procs.map(function (p, k) { return { label: p.label, color: color(k), data: p.data }; });
                var pm = memScale({ data: D.procs.map(function (p) { return p.data; }) });
                lineChart(boxes[i], { title: 'GPU memory per process (the ' + D.procs.length + ' largest)', unit: pm.unit,
                                      scale: pm.scale, series: series, maxgap: D.proc_maxgap, legend: true });
                continue;
            }
            var m = metric(key), o = { title: m.title, unit: m.unit, scale: 1, series: gpuSeries(m), maxgap: D.maxgap };
            if (key === 'util') o.fixedMax = 100;
            if (key === 'mem') { var ms = memScale(m); o.scale = ms.scale; o.unit = ms.unit; }
            var vis = D.gpus.filter(function (g, k) { return visible[k]; });
            if (key === 'temp') {
                var slow = vis.map(function (g) { return g.slowdown; }).filter(function (v) { return v !== null; });
                if (slow.length) o.thresholds = [{ v: Math.min.apply(null, slow), label: 'slowdown ' + Math.min.apply(null, slow) + ' \u00b0C' }];
            }
            if (key === 'power') {
                var lim = vis.map(function (g) { return g.limit; }).filter(function (v) { return v !== null; });
                if (lim.length) o.thresholds = [{ v: Math.max.apply(null, lim), label: 'limit ' + Math.max.apply(null, lim) + ' W' }];
            }
            lineChart(boxes[i], o);
        }
    }

    /* ---- small multiples: per GPU, utilization and memory (% of total) ---------------------- */
    function drawMultiples() {
        var grid = document.getElementById('gs-mult'), util = metric('util'), mem = metric('mem');
        grid.innerHTML = '';
        D.gpus.forEach(function (g, i) {
            if (!visible[i]) return;
            var cell = document.createElement('div');
            cell.className = 'mult';
            grid.appendChild(cell);
            var memPct = mem.data[i].map(function (v) { return v === null || !g.mem_total ? null : v / g.mem_total * 100; });
            lineChart(cell, { title: 'GPU ' + g.idx + ' \u00b7 ' + g.name, unit: '%', scale: 1, fixedMax: 100, height: 130,
                              maxgap: D.maxgap, gpuFilter: g.idx,
                              series: [{ label: 'utilization', color: '#1f77b4', data: util.data[i], bands: g.serious },
                                       { label: 'memory used', color: '#ff7f0e', data: memPct }] });
        });
    }

    /* ---- heatmaps: a row per GPU, a column per bucket ---------------------------------------- */
    var RAMP = [[68, 1, 84], [59, 82, 139], [33, 145, 140], [94, 201, 98], [253, 231, 37]]; /* viridis */
    function rampColor(f) {
        f = Math.min(Math.max(f, 0), 1) * (RAMP.length - 1);
        var i = Math.min(Math.floor(f), RAMP.length - 2), u = f - i, a = RAMP[i], b = RAMP[i + 1];
        return 'rgb(' + Math.round(a[0] + (b[0] - a[0]) * u) + ',' + Math.round(a[1] + (b[1] - a[1]) * u) + ',' +
               Math.round(a[2] + (b[2] - a[2]) * u) + ')';
    }
    function heatmap(box) {
        var key = box.getAttribute('data-metric'), m = metric(key), n = D.gpus.length;
        box.innerHTML = '';
        var h = document.createElement('h3');
        box.appendChild(h);
        var lo = 0, hi = 100, unit = '%', val = function (i, b) { return m.data[i][b]; };
        if (key === 'mem') {
            h.textContent = 'Memory used, % of each GPU\u2019s total';
            val = function (i, b) { var v = m.data[i][b], t = D.gpus[i].mem_total; return v === null || !t ? null : v / t * 100; };
        } else if (key === 'temp') {
            unit = '\u00b0C';
            lo = 1e9; hi = -1e9;
            D.gpus.forEach(function (g, i) {
                m.data[i].forEach(function (v) { if (v !== null) { lo = Math.min(lo, v); hi = Math.max(hi, v); } });
                if (g.slowdown !== null) hi = Math.max(hi, g.slowdown);
            });
            if (lo > hi) { lo = 0; hi = 100; }
            lo = Math.floor(Math.min(lo, hi - 10) / 5) * 5;
            hi = Math.ceil(hi / 5) * 5;
            h.textContent = 'Temperature, ' + lo + ' to ' + hi + ' \u00b0C (top: the lowest slowdown threshold or the peak)';
        } else {
            h.textContent = 'GPU utilization, %';
        }
        var W = Math.max(240, box.clientWidth), L = 52, R = 16, rh = Math.max(5, Math.min(18, Math.floor(320 / Math.max(n, 1))));
        var B = CROSSES_MIDNIGHT || SPAN >= 86400000 ? 32 : 22, pw = W - L - R, ph = rh * n, H = ph + B + 22;
        var svg = el('svg', { width: W, height: H, viewBox: '0 0 ' + W + ' ' + H, role: 'img', 'class': 'heatmap' }, box);
        function x(b) { return L + b * pw / D.w; }
        for (var i = 0; i < n; i++) {
            if (rh >= 8 || i % Math.ceil(8 / rh) === 0)
                el('text', { x: L - 5, y: i * rh + rh / 2 + 4, 'text-anchor': 'end' }, svg, 'GPU ' + D.gpus[i].idx);
            var b = 0;
            while (b < D.w) { /* runs of one colour are one rectangle */
                var v = val(i, b), c = v === null ? null : rampColor((v - lo) / (hi - lo)), e = b + 1;
                while (e < D.w) {
                    var v2 = val(i, e), c2 = v2 === null ? null : rampColor((v2 - lo) / (hi - lo));
                    if (c2 !== c) break;
                    e++;
                }
                el('rect', { x: x(b).toFixed(2), y: i * rh, width: (x(e) - x(b) + 0.3).toFixed(2), height: rh - (rh >= 8 ? 1 : 0),
                             fill: c === null ? '#f2f2f2' : c }, svg);
                b = e;
            }
        }
        timeAxis(svg, L, 0, pw, ph, x, true);
        var lg = el('g', {}, svg), lx = L, ly = ph + B + 6;
        for (var k = 0; k < 50; k++)
            el('rect', { x: lx + k * 3, y: ly, width: 3, height: 9, fill: rampColor(k / 49) }, lg);
        el('text', { x: lx + 156, y: ly + 9 }, lg, lo + ' \u2013 ' + hi + ' ' + unit + '; grey: no data');
        var hit = el('rect', { x: L, y: 0, width: pw, height: ph, fill: 'transparent' }, svg);
        hit.addEventListener('mousemove', function (ev) {
            var r = svg.getBoundingClientRect(), b = Math.floor((ev.clientX - r.left - L) / pw * D.w), i = Math.floor((ev.clientY - r.top) / rh);
            if (b < 0 || b >= D.w || i < 0 || i >= n) return;
            var g = D.gpus[i], v = val(i, b), raw = m.data[i][b];
            var extra = key === 'mem' && raw !== null ? ' (' + fmtVal(raw, 'MiB') + ')' : '';
            showTip(ev, '<b>GPU ' + g.idx + '</b> ' + esc(g.name) + '<br>' + fullDate(D.from + b * BW) + '<br>' + fmtVal(v, unit) + extra);
        });
        hit.addEventListener('mouseleave', hideTip);
    }
    function drawHeatmaps() {
        var boxes = document.querySelectorAll('.heat');
        for (var i = 0; i < boxes.length; i++) heatmap(boxes[i]);
    }

    /* ---- GPU toggles ------------------------------------------------------------------------- */
    function toggles() {
        var bar = document.getElementById('gs-toggles');
        bar.innerHTML = '';
        function button(label, fn) {
            var b = document.createElement('button');
            b.textContent = label;
            b.addEventListener('click', fn);
            bar.appendChild(b);
        }
        button('all GPUs', function () { visible = visible.map(function () { return true; }); toggles(); redraw(); });
        button('none', function () { visible = visible.map(function () { return false; }); toggles(); redraw(); });
        D.gpus.forEach(function (g, i) {
            var lab = document.createElement('label'), cb = document.createElement('input');
            cb.type = 'checkbox';
            cb.checked = visible[i];
            cb.setAttribute('data-gpu', g.idx);
            cb.addEventListener('change', function () { visible[i] = cb.checked; redraw(); });
            lab.appendChild(cb);
            var sw = document.createElement('span');
            sw.className = 'sw';
            sw.style.background = color(i);
            lab.appendChild(sw);
            lab.appendChild(document.createTextNode('GPU ' + g.idx));
            lab.title = g.name + ' ' + g.uuid;
            bar.appendChild(lab);
        });
        var key = document.createElement('span');
        key.className = 'legend';
        key.innerHTML = ' &nbsp;<span class="sw" style="background:#d62728;opacity:.35"></span>HW/thermal slowdown ' +
                        '<span style="color:#d62728">&#9474;</span> Xid, lost GPU <span style="color:#1f4fd6">&#9474;</span> annotation';
        bar.appendChild(key);
    }
    function redraw() { drawCharts(); drawMultiples(); }

    /* "#hover=KEY:F" (a chart's data-metric, a fraction of the range): shows the readout
     * there as if the pointer were on it, so a link or a screenshot can point at a moment. */
    function hoverFromHash() {
        var m = /hover=([a-z]+):([0-9.]+)/.exec(location.hash);
        if (!m) return;
        var box = document.querySelector('.chart[data-metric="' + m[1] + '"]');
        var hit = box && box.querySelector('svg > rect[fill="transparent"]');
        if (!hit) return;
        var r = hit.getBoundingClientRect(), f = Math.min(Math.max(parseFloat(m[2]), 0), 0.999);
        hit.dispatchEvent(new MouseEvent('mousemove', { clientX: r.left + f * r.width, clientY: r.top + r.height / 2, bubbles: true }));
    }

    var lastWidth = 0, timer = null;
    function all() {
        lastWidth = document.body.clientWidth;
        toggles();
        drawCharts();
        drawHeatmaps();
        drawMultiples();
        document.body.setAttribute('data-drawn', '1');
        hoverFromHash();
    }
    window.addEventListener('resize', function () {
        clearTimeout(timer);
        timer = setTimeout(function () { if (document.body.clientWidth !== lastWidth) { drawCharts(); drawHeatmaps(); drawMultiples(); lastWidth = document.body.clientWidth; } }, 150);
    });
    all();
})();

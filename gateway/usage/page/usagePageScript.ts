/**
 * The usage page's script (plain browser JavaScript, served as /dashboard/usage.js; no framework, nothing fetched
 * but GET /usage). The key comes from the page's path (`/v1/<key>/dashboard`, the same form as RPC URLs, so a
 * wallet-style URL opens the page) and is sent back in that path, or from the form and is sent as `X-Api-Key`; it is
 * kept in memory only (never in the URL, storage or a cookie). Charts are SVG built with DOM calls (the CSP allows
 * no inline script or style); every bar carries `data-kind` / `data-value` (and `data-method` or `data-day`), which
 * the browser test reads.
 */
export const USAGE_PAGE_SCRIPT = String.raw`(function () {
  'use strict';
  var SVG = 'http://www.w3.org/2000/svg';
  var match = /^\/v1\/([^/]+)\/dashboard\/?$/.exec(location.pathname);
  var pathKey = match ? match[1] : null;
  var headerKey = null;
  var report = null;
  function $(id) { return document.getElementById(id); }
  function fmt(n) { return Number(n).toLocaleString('en-US'); }
  function setStatus(text, isError) {
    var s = $('status');
    s.textContent = text;
    s.className = isError ? 'error' : '';
    s.hidden = !text;
  }
  function svg(name, attrs, text) {
    var e = document.createElementNS(SVG, name);
    for (var k in attrs) e.setAttribute(k, String(attrs[k]));
    if (text !== undefined) e.textContent = text;
    return e;
  }
  function bar(kind, value, x, y, w, h, extra) {
    var r = svg('rect', { 'class': kind, x: x, y: y, width: Math.max(0, w), height: Math.max(0, h), 'data-kind': kind, 'data-value': value });
    for (var k in extra) r.setAttribute(k, extra[k]);
    return r;
  }
  function cellsOf(day, method) {
    if (!method) return { calls: day.calls, refused: day.refused, computeUnits: day.computeUnits };
    return day.methods[method] || { calls: 0, refused: 0, computeUnits: 0 };
  }

  // Today: one horizontal bar per method, admitted then refused, longest first.
  function drawToday(day) {
    var box = $('today-chart');
    box.textContent = '';
    var names = Object.keys(day.methods).sort(function (a, b) { return day.methods[b].calls - day.methods[a].calls || (a < b ? -1 : 1); });
    var W = 760, label = 190, value = 150, row = 24, area = W - label - value;
    var s = svg('svg', { viewBox: '0 0 ' + W + ' ' + Math.max(row, names.length * row), role: 'img', 'aria-label': 'calls per method today' });
    if (names.length === 0) s.appendChild(svg('text', { x: 0, y: 16 }, 'No calls today.'));
    var max = 1;
    names.forEach(function (m) { max = Math.max(max, day.methods[m].calls); });
    names.forEach(function (m, i) {
      var c = day.methods[m];
      var y = i * row + 4;
      var g = svg('g', { 'data-method': m });
      var admitted = c.calls - c.refused;
      var wa = (admitted / max) * area, wr = (c.refused / max) * area;
      g.appendChild(svg('text', { x: 0, y: y + 12 }, m));
      g.appendChild(bar('admitted', admitted, label, y, wa, row - 8, {}));
      g.appendChild(bar('refused', c.refused, label + wa, y, wr, row - 8, {}));
      g.appendChild(svg('text', { x: label + wa + wr + 6, y: y + 12 }, fmt(c.calls) + ' calls' + (c.refused ? ', ' + fmt(c.refused) + ' refused' : '')));
      s.appendChild(g);
    });
    box.appendChild(s);
  }

  // The window: one stacked column per day (admitted below, refused on top), for all methods or one.
  function drawDays(days, method) {
    var box = $('days-chart');
    box.textContent = '';
    var W = 760, H = 220, left = 48, bottom = 24, top = 8, plotH = H - bottom - top, step = (W - left) / days.length;
    var max = 1;
    days.forEach(function (d) { max = Math.max(max, cellsOf(d, method).calls); });
    var s = svg('svg', { viewBox: '0 0 ' + W + ' ' + H, role: 'img', 'aria-label': 'calls per day' });
    s.appendChild(svg('line', { 'class': 'axis', x1: left, y1: top + plotH, x2: W, y2: top + plotH }));
    s.appendChild(svg('text', { x: 0, y: top + 10 }, fmt(max)));
    s.appendChild(svg('text', { x: 0, y: top + plotH }, '0'));
    days.forEach(function (d, i) {
      var c = cellsOf(d, method);
      var admitted = c.calls - c.refused;
      var x = left + i * step + step * 0.1, w = step * 0.8;
      var ha = (admitted / max) * plotH, hr = (c.refused / max) * plotH;
      var g = svg('g', { 'data-day': d.date });
      g.appendChild(svg('title', {}, d.date + ': ' + fmt(c.calls) + ' calls, ' + fmt(c.refused) + ' refused, ' + fmt(c.computeUnits) + ' compute units'));
      g.appendChild(bar('admitted', admitted, x, top + plotH - ha, w, ha, {}));
      g.appendChild(bar('refused', c.refused, x, top + plotH - ha - hr, w, hr, {}));
      if (i === days.length - 1) g.appendChild(svg('text', { x: x + w, y: H - 6, 'text-anchor': 'end' }, d.date.slice(5)));
      else if (i % 5 === 0 && i < days.length - 3) g.appendChild(svg('text', { x: x, y: H - 6 }, d.date.slice(5)));
      s.appendChild(g);
    });
    box.appendChild(s);
  }

  function drawTable(days) {
    var sums = {};
    days.forEach(function (d) {
      Object.keys(d.methods).forEach(function (m) {
        var t = sums[m] || (sums[m] = { calls: 0, refused: 0, computeUnits: 0 });
        t.calls += d.methods[m].calls;
        t.refused += d.methods[m].refused;
        t.computeUnits += d.methods[m].computeUnits;
      });
    });
    var names = Object.keys(sums).sort(function (a, b) { return sums[b].calls - sums[a].calls || (a < b ? -1 : 1); });
    var body = $('methods-table').tBodies[0];
    body.textContent = '';
    names.forEach(function (m) {
      var tr = document.createElement('tr');
      tr.setAttribute('data-method', m);
      [m, fmt(sums[m].calls), fmt(sums[m].refused), fmt(sums[m].computeUnits)].forEach(function (v) {
        var td = document.createElement('td');
        td.textContent = v;
        tr.appendChild(td);
      });
      body.appendChild(tr);
    });
    var select = $('method-filter');
    var chosen = select.value;
    while (select.options.length > 1) select.remove(1);
    names.forEach(function (m) { select.add(new Option(m, m)); });
    select.value = names.indexOf(chosen) >= 0 ? chosen : '';
  }

  function render() {
    var days = report.days;
    var today = days[days.length - 1];
    $('who').textContent = 'key ' + report.keyId + ' · tier ' + report.tier;
    $('today-date').textContent = today.date;
    $('today-calls').textContent = fmt(today.calls);
    $('today-refused').textContent = fmt(today.refused);
    $('today-cu').textContent = fmt(today.computeUnits);
    $('window-days').textContent = String(days.length);
    $('window-calls').textContent = fmt(report.total.calls);
    $('window-refused').textContent = fmt(report.total.refused);
    $('window-cu').textContent = fmt(report.total.computeUnits);
    drawToday(today);
    drawTable(days);
    drawDays(days, $('method-filter').value);
    $('report').hidden = false;
  }

  function load() {
    document.body.setAttribute('data-state', 'loading');
    setStatus('Loading…');
    var url = pathKey ? '/v1/' + pathKey + '/usage?days=30' : '/usage?days=30';
    var headers = headerKey ? { 'x-api-key': headerKey } : {};
    return fetch(url, { headers: headers, cache: 'no-store', credentials: 'omit' })
      .then(function (r) {
        return r.json().then(function (body) {
          if (!r.ok) throw new Error((body && body.error && body.error.message) || 'HTTP ' + r.status);
          report = body;
          render();
          setStatus('');
          document.body.setAttribute('data-state', 'ready');
        });
      })
      .catch(function (e) {
        setStatus(String((e && e.message) || e), true);
        document.body.setAttribute('data-state', 'error');
        if (!pathKey) $('key-form').hidden = false;
      });
  }

  $('method-filter').addEventListener('change', function () { if (report) drawDays(report.days, $('method-filter').value); });
  $('refresh').addEventListener('click', function () { load(); });
  $('key-form').addEventListener('submit', function (ev) {
    ev.preventDefault();
    var input = $('key-input');
    headerKey = input.value.trim();
    input.value = '';
    $('key-form').hidden = true;
    load();
  });
  // A dashboard left open refreshes once a minute (usage reads have their own small bucket: 10, then 1/s).
  setInterval(function () { if ((pathKey || headerKey) && !document.hidden) load(); }, 60000);
  if (pathKey) load();
  else {
    $('key-form').hidden = false;
    setStatus('Enter an API key to see its usage.');
    document.body.setAttribute('data-state', 'key');
  }
})();
`;

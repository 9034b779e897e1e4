/**
 * The usage page's markup. It holds no data and no key: the script (usagePageScript.ts) reads the key from the page's
 * path (`/v1/<key>/dashboard`) or from the form, fetches GET /usage with it and draws the charts.
 */
export const USAGE_PAGE_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>API key usage</title>
<link rel="icon" href="/dashboard/favicon.svg">
<link rel="stylesheet" href="/dashboard/usage.css">
<script src="/dashboard/usage.js" defer></script>
</head>
<body>
<header><h1>API key usage</h1><p id="who"></p></header>
<form id="key-form" hidden>
  <label for="key-input">API key</label>
  <input id="key-input" type="password" autocomplete="off" spellcheck="false" required>
  <button type="submit">Show usage</button>
</form>
<p id="status" role="status">Loading…</p>
<main id="report" hidden>
  <section>
    <h2>Today <span id="today-date"></span> (UTC)</h2>
    <dl class="totals">
      <div><dt>Calls</dt><dd id="today-calls">0</dd></div>
      <div><dt>Refused</dt><dd id="today-refused">0</dd></div>
      <div><dt>Compute units</dt><dd id="today-cu">0</dd></div>
    </dl>
    <div id="today-chart" class="chart"></div>
  </section>
  <section>
    <h2>Last <span id="window-days">30</span> days</h2>
    <dl class="totals">
      <div><dt>Calls</dt><dd id="window-calls">0</dd></div>
      <div><dt>Refused</dt><dd id="window-refused">0</dd></div>
      <div><dt>Compute units</dt><dd id="window-cu">0</dd></div>
    </dl>
    <label for="method-filter">Method</label>
    <select id="method-filter"><option value="">all methods</option></select>
    <div id="days-chart" class="chart"></div>
    <table id="methods-table">
      <thead><tr><th>Method</th><th>Calls</th><th>Refused</th><th>Compute units</th></tr></thead>
      <tbody></tbody>
    </table>
  </section>
  <p class="legend"><span class="swatch admitted"></span> admitted <span class="swatch refused"></span> refused (rate limit)</p>
  <button id="refresh" type="button">Refresh</button>
</main>
</body>
</html>
`;

/** The page's styles (a file of its own: the page's CSP allows no inline style). */
export const USAGE_PAGE_CSS = `[hidden]{display:none!important}
body{font:14px/1.4 system-ui,sans-serif;margin:1.5rem auto;max-width:60rem;padding:0 1rem;color:#1d232a}
h1{font-size:1.4rem;margin:0}h2{font-size:1.1rem;margin:1.5rem 0 .5rem}#who{color:#57606a;margin:.25rem 0}
form{display:flex;gap:.5rem;align-items:center;margin:1rem 0}input{flex:1;padding:.35rem}
.totals{display:flex;gap:2rem;margin:.5rem 0}.totals dt{color:#57606a}.totals dd{margin:0;font-size:1.3rem;font-variant-numeric:tabular-nums}
.chart svg{width:100%;height:auto;display:block}.chart text{font-size:11px;fill:#1d232a}.chart .axis{stroke:#afb8c1}
.admitted{fill:#2f81f7;background:#2f81f7}.refused{fill:#d1242f;background:#d1242f}
.swatch{display:inline-block;width:.8rem;height:.8rem;vertical-align:middle}
table{border-collapse:collapse;margin-top:1rem;width:100%}th,td{text-align:right;padding:.2rem .5rem;border-bottom:1px solid #d0d7de}
th:first-child,td:first-child{text-align:left}#status.error{color:#d1242f}
`;

/** A small icon (without one, browsers ask for /favicon.ico and log the 404). */
export const USAGE_PAGE_ICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect x="1" y="9" width="4" height="6" fill="#2f81f7"/><rect x="6" y="5" width="4" height="10" fill="#2f81f7"/><rect x="11" y="1" width="4" height="14" fill="#d1242f"/></svg>`;

"""The page's one stylesheet and one script, inlined into every report (no network, no CDN)."""

from __future__ import annotations

from typing import Final

__all__ = ["CSP", "SCRIPT", "STYLE"]

CSP: Final = (
    "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:; "
    "connect-src 'none'; form-action 'self'"
)
"""Content-Security-Policy of the page: nothing is fetched from anywhere."""

STYLE: Final = """
:root{--bg:#fbfbfc;--fg:#1d232b;--mute:#5b6573;--line:#c9ced6;--panel:#fff;
--agent:#5b3cc4;--model:#0b6bcb;--prop:#b35c00;--tool:#137a3a;--hand:#a4256f;--other:#5b6573;
--low:#6d7a88;--medium:#b07a00;--high:#c2410c;--critical:#b91c1c;--pass:#137a3a;--fail:#b91c1c;--ind:#8a6d00;--err:#6b21a8}
*{box-sizing:border-box}
body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;background:var(--bg);color:var(--fg)}
body>header{padding:14px 24px;border-bottom:1px solid var(--line);background:#fff}
h1{font-size:20px;margin:0 0 4px}h2{font-size:17px;margin:0 0 6px}h3{font-size:15px;margin:14px 0 6px}
code{font:12px ui-monospace,SFMono-Regular,Menlo,monospace}
.note{color:var(--mute);margin:2px 0}
table.index{border-collapse:collapse;margin-top:8px}table.index td,table.index th{padding:3px 10px;border-bottom:1px solid var(--line);text-align:left}
main{padding:0 24px 40px}
section.trajectory{margin:22px 0;padding:16px;border:1px solid var(--line);border-radius:8px;background:#fff}
header.verdict{border-left:6px solid var(--mute);padding-left:12px}
header.v-pass{border-color:var(--pass)}header.v-fail{border-color:var(--fail)}header.v-indeterminate{border-color:var(--ind)}header.v-error{border-color:var(--err)}
.pill{display:inline-block;padding:1px 10px;border-radius:10px;color:#fff;font-weight:600;text-transform:uppercase;font-size:12px;background:var(--mute)}
.pill.v-pass{background:var(--pass)}.pill.v-fail{background:var(--fail)}.pill.v-indeterminate{background:var(--ind)}.pill.v-error{background:var(--err)}
.headline{font-size:15px;margin:4px 0}
dl.facts{display:flex;flex-wrap:wrap;gap:4px 22px;margin:6px 0}dl.facts div{display:flex;gap:6px}dt{color:var(--mute)}dd{margin:0;font-weight:600}
.completeness{margin:4px 0;color:var(--mute)}.completeness.c-partial,.completeness.c-open{color:#8a4b00}
.error{color:var(--err);font-weight:600}
.columns{display:grid;grid-template-columns:minmax(0,1fr) 320px;gap:16px;align-items:start}
@media (max-width:900px){.columns{grid-template-columns:1fr}}
.findings ol,.indeterminate ol{padding-left:20px}
li.finding{margin:4px 0;padding:4px 8px;border-left:4px solid var(--low);background:#f6f7f9}
li.finding.sev-medium{border-color:var(--medium)}li.finding.sev-high{border-color:var(--high)}li.finding.sev-critical{border-color:var(--critical)}
li.finding.fs-indeterminate{border-style:dashed;background:#fffbea}
.sev{font-weight:700;text-transform:uppercase;font-size:11px}.status{font-size:11px;color:var(--mute)}
.evidence{display:block;color:#333}.det{display:block;font-size:11px;color:var(--mute)}
.material{font-size:11px;font-weight:700;color:#8a4b00;border:1px solid #e2b27a;border-radius:6px;padding:0 4px}
.legend{display:flex;flex-wrap:wrap;gap:6px 14px;font-size:12px;color:var(--mute);margin:6px 0}
.legend span{display:inline-flex;align-items:center;gap:4px}
.legend i{display:inline-block;width:22px;height:0;border-top:2px solid}
.graph{position:relative;overflow:auto;max-height:80vh;border:1px solid var(--line);border-radius:6px;background:
linear-gradient(#fff,#fff);padding:8px 8px 8px 34px}
svg.edges{position:absolute;left:0;top:0;pointer-events:none;overflow:visible}
svg.edges path{fill:none;stroke:#8d96a3;stroke-width:1.4;pointer-events:stroke;opacity:.75}
svg.edges path.t-caused_by{stroke:#8d96a3}svg.edges path.t-depends_on{stroke:#0b6bcb;stroke-dasharray:5 3}
svg.edges path.t-retries{stroke:#c2410c}svg.edges path.t-handoff_from{stroke:var(--hand);stroke-width:2}
svg.edges path.t-linked{stroke:#999;stroke-dasharray:2 3}svg.edges path.t-sequenced_after{stroke:#6b21a8;stroke-dasharray:1 3}
svg.edges path.hl{stroke-width:3;opacity:1}svg.edges path.dim{opacity:.12}
.row{position:relative;display:flex;align-items:flex-start;min-height:54px;margin:0 0 26px}
.row .depth{position:absolute;left:-28px;top:14px;width:22px;text-align:right;font-size:11px;color:var(--mute)}
.boxes{display:flex;flex-wrap:wrap;gap:10px 14px;justify-content:center;width:100%}
.node{position:relative;z-index:1;display:inline-flex;flex-direction:column;align-items:flex-start;min-width:120px;max-width:220px;
padding:4px 8px;border:2px solid var(--other);border-radius:7px;background:#fff;color:var(--fg);font:inherit;font-size:12px;text-align:left;cursor:pointer}
.node .tag{font-size:9px;font-weight:700;letter-spacing:.05em;color:var(--other)}
.node .lbl{font-weight:600;overflow:hidden;text-overflow:ellipsis;white-space:nowrap;max-width:200px}
.node .meta{font-size:11px;color:var(--mute)}
.node.k-agent_invocation{border-color:var(--agent);background:#f4f1ff}.k-agent_invocation .tag{color:var(--agent)}
.node.k-model_call{border-color:var(--model);background:#eef6ff}.k-model_call .tag{color:var(--model)}
.node.k-tool_proposal{border-color:var(--prop);border-style:dashed;background:#fff8ef}.k-tool_proposal .tag{color:var(--prop)}
.node.k-tool_execution{border-color:var(--tool);background:#eefaf2}.k-tool_execution .tag{color:var(--tool)}
.node.k-handoff{border-color:var(--hand);border-radius:16px}.k-handoff .tag{color:var(--hand)}
.node.st-failed{box-shadow:inset 0 -3px 0 var(--critical)}
.node.crit{outline:3px solid #f1c40f;outline-offset:1px}
.node.compact{min-width:0;max-width:170px;padding:2px 6px}.node.compact .meta{display:none}
.node:focus-visible,.node.selected{outline:3px solid #111;outline-offset:2px}
.badges{display:flex;flex-wrap:wrap;gap:3px;margin-top:2px}
.badge{font-size:10px;font-weight:700;color:#fff;background:var(--low);border-radius:4px;padding:0 4px}
.badge.sev-medium{background:var(--medium)}.badge.sev-high{background:var(--high)}.badge.sev-critical{background:var(--critical)}
.badge.fs-indeterminate{background:#fff;color:var(--ind);border:1px dashed var(--ind)}
details.group{position:relative;z-index:1;border:2px solid var(--other);border-radius:7px;background:#fff;padding:3px 8px;max-width:100%}
details.group.k-tool_execution{border-color:var(--tool)}details.group.k-model_call{border-color:var(--model)}
details.group.k-tool_proposal{border-color:var(--prop);border-style:dashed}details.group.k-agent_invocation{border-color:var(--agent)}
details.group summary,.band summary{cursor:pointer;font-size:12px}
details.group .tag{font-size:9px;font-weight:700}.count{font-weight:700}
.members{display:flex;flex-wrap:wrap;gap:6px;margin-top:6px;max-height:320px;overflow:auto}
.band{position:relative;z-index:1;margin:0 0 26px;padding:6px 10px;border:2px dashed #b0b7c3;border-radius:8px;background:#f6f7f9}
aside.panel{position:sticky;top:8px;border:1px solid var(--line);border-radius:6px;padding:10px;background:var(--panel);max-height:85vh;overflow:auto}
aside.panel h4{margin:0 0 6px;font-size:14px}aside.panel dl{display:grid;grid-template-columns:auto 1fr;gap:2px 8px;margin:0}
aside.panel dd{font-weight:400;word-break:break-all}aside.panel ul{padding-left:16px;margin:4px 0}
button.goto{font:inherit;color:#0b57d0;background:none;border:0;padding:0;text-decoration:underline;cursor:pointer}
.losses li{margin:2px 0}.path{color:var(--mute)}
"""

SCRIPT: Final = r"""
(function () {
  'use strict';
  function shown(el) {
    var target = el;
    for (var p = el.parentElement; p; p = p.parentElement) {
      if (p.tagName === 'DETAILS' && !p.open) { target = p.querySelector('summary') || p; }
    }
    return target;
  }
  function text(tag, value, cls) {
    var el = document.createElement(tag);
    el.textContent = value == null ? '' : String(value);
    if (cls) { el.className = cls; }
    return el;
  }
  function init(section) {
    var raw = JSON.parse(section.querySelector('script.trajectory-data').textContent);
    var data = {nodes: {}, findings: raw.findings, edges: raw.edges.map(function (e) {
      return [raw.ids[e[0]], raw.types[e[1]], raw.ids[e[2]], raw.evidence[e[3]], e[4] === 1];
    })};
    raw.ids.forEach(function (id, i) { data.nodes[id] = raw.nodes[i]; });
    var toggle = section.querySelector('input.all-edges');
    var graph = section.querySelector('.graph');
    var svg = graph.querySelector('svg.edges');
    var panel = section.querySelector('aside.panel');
    var boxes = {};
    graph.querySelectorAll('[data-node-id]').forEach(function (el) { boxes[el.getAttribute('data-node-id')] = el; });
    var paths = [];
    var pending = false;
    function draw() {
      pending = false;
      while (svg.firstChild) { svg.removeChild(svg.firstChild); }
      svg.setAttribute('width', graph.scrollWidth);
      svg.setAttribute('height', graph.scrollHeight);
      var g = graph.getBoundingClientRect();
      var ox = graph.scrollLeft - g.left, oy = graph.scrollTop - g.top;
      paths = [];
      var seen = {};
      var all = toggle && toggle.checked && data.edges.length <= raw.max_drawn;
      data.edges.forEach(function (edge) {
        if (!edge[4] && !all) { return; }
        var later = boxes[edge[0]], earlier = boxes[edge[2]];
        if (!later || !earlier) { return; }
        var a = shown(earlier), b = shown(later);
        if (a === b) { return; }
        var key = edge[1] + '|' + (a.dataset.nodeId || edge[2]) + '|' + (b.dataset.nodeId || edge[0]);
        if (a !== earlier || b !== later) { if (seen[key]) { return; } seen[key] = true; }
        var ra = a.getBoundingClientRect(), rb = b.getBoundingClientRect();
        var x1 = ra.left + ra.width / 2 + ox, y1 = ra.bottom + oy;
        var x2 = rb.left + rb.width / 2 + ox, y2 = rb.top + oy;
        var bend = Math.max(18, Math.abs(y2 - y1) / 2);
        var path = document.createElementNS('http://www.w3.org/2000/svg', 'path');
        path.setAttribute('d', 'M' + x1 + ' ' + y1 + ' C' + x1 + ' ' + (y1 + bend) + ' ' + x2 + ' ' + (y2 - bend) + ' ' + x2 + ' ' + y2);
        path.setAttribute('class', 't-' + edge[1]);
        path.dataset.from = edge[0]; path.dataset.to = edge[2];
        var title = document.createElementNS('http://www.w3.org/2000/svg', 'title');
        title.textContent = label(edge[0]) + ' ' + edge[1] + ' ' + label(edge[2]) + ': ' + edge[3];
        path.appendChild(title);
        svg.appendChild(path);
        paths.push(path);
      });
    }
    function later() { if (!pending) { pending = true; requestAnimationFrame(draw); } }
    function label(id) { var n = data.nodes[id]; return n ? n.kind_name + ' ' + n.label : id; }
    function highlight(id) {
      paths.forEach(function (p) {
        var on = id && (p.dataset.from === id || p.dataset.to === id);
        p.classList.toggle('hl', !!on);
        p.classList.toggle('dim', !!id && !on);
      });
    }
    function goto(id) {
      var el = boxes[id];
      if (!el) { return; }
      for (var p = el.parentElement; p && p !== graph; p = p.parentElement) { if (p.tagName === 'DETAILS') { p.open = true; } }
      draw();
      el.scrollIntoView({block: 'center', inline: 'center'});
      el.focus();
      select(id);
    }
    function edgeList(title, items, pick) {
      if (!items.length) { return null; }
      var wrap = document.createElement('div');
      wrap.appendChild(text('h5', title));
      var ul = document.createElement('ul');
      items.forEach(function (edge) {
        var li = document.createElement('li');
        var other = pick(edge);
        var b = text('button', label(other), 'goto');
        b.type = 'button';
        b.addEventListener('click', function () { goto(other); });
        li.appendChild(text('span', edge[1] + ' '));
        li.appendChild(b);
        li.appendChild(text('div', edge[3], 'det'));
        ul.appendChild(li);
      });
      wrap.appendChild(ul);
      return wrap;
    }
    function select(id) {
      var node = data.nodes[id];
      graph.querySelectorAll('.node.selected').forEach(function (el) { el.classList.remove('selected'); });
      if (boxes[id]) { boxes[id].classList.add('selected'); }
      highlight(id);
      panel.innerHTML = '';
      if (!node) { return; }
      panel.appendChild(text('h4', node.kind_name + ' ' + node.label));
      var dl = document.createElement('dl');
      node.fields.forEach(function (pair) { dl.appendChild(text('dt', pair[0])); dl.appendChild(text('dd', pair[1])); });
      panel.appendChild(dl);
      var found = data.findings.filter(function (f) { return f.node_id === id; });
      if (found.length) {
        panel.appendChild(text('h5', 'Findings here'));
        var ul = document.createElement('ul');
        found.forEach(function (f) { ul.appendChild(text('li', f.severity + ' ' + f.category + ' (' + f.status + '): ' + f.evidence)); });
        panel.appendChild(ul);
      }
      var before = edgeList('Comes after (causes and inputs)', data.edges.filter(function (e) { return e[0] === id; }), function (e) { return e[2]; });
      var after = edgeList('Leads to', data.edges.filter(function (e) { return e[2] === id; }), function (e) { return e[0]; });
      if (before) { panel.appendChild(before); }
      if (after) { panel.appendChild(after); }
    }
    section.addEventListener('click', function (event) {
      var target = event.target.closest('[data-node-id],[data-goto]');
      if (!target || !section.contains(target)) { return; }
      if (target.hasAttribute('data-goto')) { goto(target.getAttribute('data-goto')); } else { select(target.getAttribute('data-node-id')); }
    });
    section.addEventListener('toggle', later, true);
    if (toggle) { toggle.addEventListener('change', later); }
    graph.addEventListener('keydown', function (event) {
      if (event.key === 'Escape') { highlight(null); }
    });
    window.addEventListener('resize', later);
    draw();
    return goto;
  }
  var gotos = [];
  document.querySelectorAll('section.trajectory').forEach(function (section) { gotos.push([section, init(section)]); });
  var wanted = /^#node=(.+)$/.exec(window.location.hash);
  if (wanted) {
    var id = decodeURIComponent(wanted[1]);
    gotos.forEach(function (pair) {
      if (pair[0].querySelector('[data-node-id="' + CSS.escape(id) + '"]')) { pair[1](id); }
    });
  }
  document.documentElement.setAttribute('data-report-ready', 'true');
})();
"""

"""One self-contained HTML file for a run or a diff: works offline from disk.

No CDN, no font, no fetch: the styles, the script and the data are inline, and a
Content-Security-Policy forbids the page any network access. The charts are SVG drawn
by the inline script from the embedded JSON (the same figures as report.json), so the
file is also readable as data.
"""

from __future__ import annotations

import html
import json
from pathlib import Path

from ..analysis.rundir import run_file
from ..analysis.validate import read_text
from ..units import fmt_bytes

CSP = "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:"

_CSS = """
body{font:14px/1.45 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:0;color:#1d2330;background:#f7f8fa}
header{background:#1d2330;color:#fff;padding:14px 24px}header h1{font-size:18px;margin:0 0 4px}
header .sub{color:#b8c0d0;font-size:13px}main{padding:16px 24px;max-width:1400px}
section{background:#fff;border:1px solid #dde1e8;border-radius:6px;padding:12px 16px;margin:0 0 16px}
h2{font-size:15px;margin:0 0 8px}table{border-collapse:collapse;width:100%;font-size:13px}
th,td{border-bottom:1px solid #eceef2;padding:4px 8px;text-align:left;vertical-align:top}
th{background:#f1f3f6;cursor:pointer;user-select:none;white-space:nowrap}td.num,th.num{text-align:right;white-space:nowrap}
tr.weight td{color:#a1161b;font-weight:600}code,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:12px}
.finding{border-left:4px solid #c62828;padding:4px 10px;margin:6px 0;background:#fff5f5}.hint{color:#285e9c}
.legend span{display:inline-block;margin:0 12px 4px 0;font-size:12px;cursor:pointer}.legend i{display:inline-block;width:10px;height:10px;margin-right:4px;border-radius:2px}
.legend span.off{opacity:.35}svg{display:block;width:100%;height:auto;background:#fff}
svg text{font:11px system-ui,sans-serif;fill:#4a5263}.axis line,.axis path{stroke:#b5bccb}
pre.code{max-height:420px;overflow:auto;background:#fbfbfc;border:1px solid #eceef2;margin:6px 0;padding:0}
pre.code span{display:block;padding:0 8px;white-space:pre}pre.code span.hl{background:#fff1b8}pre.code span.saved{background:#ffd6d6}
pre.code span:target{outline:2px solid #c62828}pre.code span::before{content:attr(data-n);display:inline-block;width:48px;color:#9aa1ad;user-select:none}
details summary{cursor:pointer;font-weight:600;margin:4px 0}.muted{color:#6b7385;font-size:12px}.pill{display:inline-block;padding:0 6px;border-radius:8px;background:#eef1f6;font-size:12px}
"""

_JS = r"""
(function(){
'use strict';
var errors=0;window.addEventListener('error',function(){errors++;document.body.setAttribute('data-errors',String(errors));});
var D=JSON.parse(document.getElementById('memprobe-data').textContent);
var PALETTE=['#c62828','#1565c0','#2e7d32','#ef6c00','#6a1b9a','#00838f','#8d6e63','#5d4037','#ad1457','#455a64','#9e9d24','#283593','#00695c','#bf360c'];
var FIXED={'saved-for-backward':'#c62828','inductor-temporary':'#1565c0','fsdp-unsharded-parameter':'#2e7d32','gradient':'#ef6c00',
 'optimizer-state':'#6a1b9a','sharded-parameter':'#00838f','optimizer-temporary':'#8d6e63','graph-output':'#ad1457'};
function color(name,i){return FIXED[name]||PALETTE[i%PALETTE.length];}
function fmt(b){var u=['B','KiB','MiB','GiB','TiB'],i=0,v=Math.abs(b);while(v>=1024&&i<u.length-1){v/=1024;i++;}return (b<0?'-':'')+(i?v.toFixed(2):String(v))+' '+u[i];}
var NS='http://www.w3.org/2000/svg';
function el(tag,attrs,parent){var e=document.createElementNS(NS,tag);for(var k in attrs)e.setAttribute(k,attrs[k]);if(parent)parent.appendChild(e);return e;}
function chart(host,opts){
 // opts: series [{name,color,points:[[x,y]],step:true,width}], bands [{name,x0,x1}], xlabel, marks [{x,label}]
 var W=1100,H=opts.height||300,L=78,R=16,T=14,B=38;
 var svg=el('svg',{viewBox:'0 0 '+W+' '+H,role:'img','class':'chart'},null);
 var xs=[],ys=[0];opts.series.forEach(function(s){s.points.forEach(function(p){xs.push(p[0]);ys.push(p[1]);});});
 (opts.bands||[]).forEach(function(b){xs.push(b.x0,b.x1);});
 if(!xs.length){host.appendChild(document.createTextNode('no data'));return null;}
 var x0=Math.min.apply(null,xs),x1=Math.max.apply(null,xs),y1=Math.max.apply(null,ys)||1;if(x1===x0)x1=x0+1;
 function X(v){return L+(v-x0)/(x1-x0)*(W-L-R);}function Y(v){return H-B-(v/y1)*(H-B-T);}
 (opts.bands||[]).forEach(function(b,i){el('rect',{x:X(b.x0),y:T,width:Math.max(1,X(b.x1)-X(b.x0)),height:H-B-T,fill:i%2?'#eef3fb':'#f4f7fc','class':'band'},svg);
  var t=el('text',{x:X(b.x0)+4,y:T+12},svg);t.textContent=b.name;});
 var ax=el('g',{'class':'axis'},svg);el('line',{x1:L,y1:H-B,x2:W-R,y2:H-B},ax);el('line',{x1:L,y1:T,x2:L,y2:H-B},ax);
 for(var k=0;k<=4;k++){var v=y1*k/4,ty=el('text',{x:L-6,y:Y(v)+4,'text-anchor':'end'},ax);ty.textContent=fmt(Math.round(v));el('line',{x1:L,y1:Y(v),x2:W-R,y2:Y(v),stroke:'#f0f1f4'},ax);}
 for(var k2=0;k2<=5;k2++){var xv=x0+(x1-x0)*k2/5,tx=el('text',{x:X(xv),y:H-B+16,'text-anchor':'middle'},ax);tx.textContent=opts.xfmt?opts.xfmt(xv):String(Math.round(xv));}
 var xl=el('text',{x:(L+W-R)/2,y:H-4,'text-anchor':'middle'},ax);xl.textContent=opts.xlabel||'';
 opts.series.forEach(function(s){if(!s.points.length)return;var d='';
  s.points.forEach(function(p,i){var px=X(p[0]).toFixed(1),py=Y(p[1]).toFixed(1);if(i===0)d+='M'+px+','+py;else if(s.step)d+='H'+px+'V'+py;else d+='L'+px+','+py;});
  var path=el('path',{d:d,fill:'none',stroke:s.color,'stroke-width':s.width||1.5,'class':'series','data-name':s.name},svg);
  var tt=el('title',{},path);tt.textContent=s.name;s.el=path;});
 (opts.ticks||[]).forEach(function(k){var t=el('line',{x1:X(k.x),x2:X(k.x),y1:H-B,y2:H-B+6,stroke:'#6b7385','class':'kernel'},svg);el('title',{},t).textContent=k.label;});
 (opts.marks||[]).forEach(function(m){el('circle',{cx:X(m.x),cy:Y(m.y),r:4,fill:m.color||'#c62828','class':'mark'},svg);var t=el('title',{},svg.lastChild);t.textContent=m.label;});
 host.appendChild(svg);
 if(opts.legend!==false){var lg=document.createElement('div');lg.className='legend';opts.series.forEach(function(s){var sp=document.createElement('span');
  sp.innerHTML='<i style="background:'+s.color+'"></i>';sp.appendChild(document.createTextNode(s.name));sp.onclick=function(){sp.classList.toggle('off');if(s.el)s.el.style.display=sp.classList.contains('off')?'none':'';};lg.appendChild(sp);});host.appendChild(lg);}
 return svg;}
function timelineSeries(t,prefix,baseColor){var out=[{name:(prefix||'')+'total allocated',color:baseColor||'#1d2330',points:t.total,step:true,width:2}];
 if(!prefix){Object.keys(t.categories).forEach(function(c,i){out.push({name:c,color:color(c,i),points:t.categories[c],step:true,width:1.2});});}return out;}
function drawTimeline(host,t){
 if(!t){host.textContent='no memory events in this run (analysis-only or not measured)';return;}
 chart(host,{series:timelineSeries(t),bands:t.phases.map(function(p){return {name:p.name,x0:p.start_us/1000,x1:p.end_us/1000};}),
  xlabel:'ms from the start of the measured step ('+t.source+'; '+t.baseline+')',xfmt:function(v){return v.toFixed(1);},
  marks:[{x:t.peak.t_us/1000,y:t.peak.bytes,label:'peak '+fmt(t.peak.bytes)}],height:340});
}
function scaleTimeline(t){if(!t)return null;var f=function(ps){return ps.map(function(p){return [p[0]/1000,p[1]];});};
 var c={};Object.keys(t.categories).forEach(function(k){c[k]=f(t.categories[k]);});return {total:f(t.total),categories:c,phases:t.phases,peak:t.peak,source:t.source,baseline:t.baseline};}
function drawGraphs(host,graphs){graphs.forEach(function(g){var box=document.createElement('div');box.className='graph';
 var h=document.createElement('h3');h.style.fontSize='13px';h.textContent=g.graph_id+' \u2014 simulated peak '+fmt(g.peak_bytes)+' at output-code line '+g.peak_line+'; saved '+fmt(g.saved_bytes||0);box.appendChild(h);
 var savedLines={};(g.saved_lines||[]).forEach(function(s){savedLines[s.line]=s;});
 var pts=g.curve.map(function(p,i){return [i,p[1]];});
 var marks=g.curve.map(function(p,i){return savedLines[p[0]]?{x:i,y:p[1],label:'line '+p[0]+': saved '+savedLines[p[0]].expr+' ('+fmt(savedLines[p[0]].bytes)+')'}:null;}).filter(Boolean);
 var kernels=g.kernels||[];var kx=function(v){var i=Math.round(v);var line=g.curve[Math.min(Math.max(i,0),g.curve.length-1)];return line?('L'+line[0]):'';};
 var idx=0,ticks=kernels.map(function(k){while(idx<g.curve.length-1&&g.curve[idx][0]<k.line)idx++;return {x:idx,label:'line '+k.line+': '+k.kernel};});
 chart(box,{series:[{name:'live bytes (simulated from the output code)',color:'#1565c0',points:pts,step:true,width:1.8}],marks:marks,ticks:ticks,
  xlabel:'output-code statements in order (ticks: the '+kernels.length+' kernel calls; red dots: allocations returned as saved for backward)',xfmt:kx,height:220,legend:false});
 host.appendChild(box);});}
function sortable(table){var ths=table.querySelectorAll('th');ths.forEach(function(th,ci){th.addEventListener('click',function(){var tb=table.tBodies[0];
 var rows=Array.prototype.slice.call(tb.rows);var dir=th.getAttribute('data-dir')==='asc'?-1:1;th.setAttribute('data-dir',dir>0?'asc':'desc');
 rows.sort(function(a,b){var x=a.cells[ci].getAttribute('data-v')||a.cells[ci].textContent,y=b.cells[ci].getAttribute('data-v')||b.cells[ci].textContent;
  var nx=parseFloat(x),ny=parseFloat(y);if(!isNaN(nx)&&!isNaN(ny))return (nx-ny)*dir;return x.localeCompare(y)*dir;});rows.forEach(function(r){tb.appendChild(r);});});});}
try{
 if(D.kind==='gate'){}
 else if(D.kind==='run'){drawTimeline(document.getElementById('timeline'),scaleTimeline(D.timeline));drawGraphs(document.getElementById('graphs'),D.graph_memory||[]);}
 else{var host=document.getElementById('timeline');var a=scaleTimeline(D.timeline_a),b=scaleTimeline(D.timeline_b);
  if(a||b){var series=[];if(a)series.push({name:'A total allocated',color:'#1565c0',points:a.total,step:true,width:2});if(b)series.push({name:'B total allocated',color:'#c62828',points:b.total,step:true,width:2});
   var bands=(b||a).phases.map(function(p){return {name:p.name+((b)?' (B)':''),x0:p.start_us/1000,x1:p.end_us/1000};});
   chart(host,{series:series,bands:bands,xlabel:'ms from the start of each measured step',xfmt:function(v){return v.toFixed(1);},height:340,
    marks:[a&&{x:a.peak.t_us/1000,y:a.peak.bytes,label:'A peak '+fmt(a.peak.bytes),color:'#1565c0'},b&&{x:b.peak.t_us/1000,y:b.peak.bytes,label:'B peak '+fmt(b.peak.bytes)}].filter(Boolean)});}
  else host.textContent='neither run recorded memory events';}
 document.querySelectorAll('table.sortable').forEach(sortable);
 document.body.setAttribute('data-rendered',String(document.querySelectorAll('svg.chart').length));
}catch(e){errors++;document.body.setAttribute('data-errors',String(errors));document.body.setAttribute('data-error-message',String(e));throw e;}
})();
"""


def _json_for_script(data) -> str:
    return json.dumps(data, separators=(",", ":")).replace("</", "<\\/")


def _page(title: str, subtitle: str, body: str, data: dict) -> str:
    return (
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        f"<meta http-equiv=\"Content-Security-Policy\" content=\"{CSP}\">"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
        f"<title>{html.escape(title)}</title><style>{_CSS}</style></head>"
        f"<body><header><h1>{html.escape(title)}</h1><div class=\"sub\">{subtitle}</div></header><main>{body}</main>"
        f"<script type=\"application/json\" id=\"memprobe-data\">{_json_for_script(data)}</script>"
        f"<script>{_JS}</script></body></html>\n"
    )


def _table(headers: list[tuple[str, bool]], rows: list[list], *, sortable: bool = True, row_classes=None) -> str:
    """headers: (label, numeric); cells: text, or (text, sort value), already escaped where needed."""
    head = "".join(f"<th class=\"{'num' if num else ''}\">{html.escape(h)}</th>" for h, num in headers)
    body = []
    for k, row in enumerate(rows):
        cls = f" class=\"{row_classes[k]}\"" if row_classes and row_classes[k] else ""
        cells = []
        for (h, num), cell in zip(headers, row):
            text, value = cell if isinstance(cell, tuple) else (cell, None)
            attr = f" data-v=\"{value}\"" if value is not None else ""
            cells.append(f"<td class=\"{'num' if num else ''}\"{attr}>{text}</td>")
        body.append(f"<tr{cls}>{''.join(cells)}</tr>")
    return f"<table class=\"{'sortable' if sortable else ''}\"><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def _b(n) -> tuple[str, int]:
    return (fmt_bytes(n), n if isinstance(n, int) else -1)


def _saved_lines(graph: dict) -> dict[str, int]:
    """fx node name -> output-code line that allocated it (saved values only)."""
    line_of_storage = {storage: line for line, storage, _ in graph.get("allocations") or []}
    out = {}
    for r in graph.get("returned") or []:
        if r.get("role") == "saved" and not r.get("is_input") and r.get("storage") in line_of_storage:
            out[r["fx_node"]] = line_of_storage[r["storage"]]
    return out


def _code_block(graph_id: str, text: str, highlights: dict[int, str]) -> str:
    lines = []
    for n, line in enumerate(text.splitlines(), 1):
        cls = highlights.get(n)
        lines.append(f"<span id=\"code-{graph_id}-L{n}\" data-n=\"{n}\"{f' class={chr(34)}{cls}{chr(34)}' if cls else ''}>"
                     f"{html.escape(line)}</span>")
    return f"<pre class=\"code\">{''.join(lines)}</pre>"


def render_run(report: dict, run_dir: str | Path, timeline: dict | None) -> str:
    from ..config import ProbeConfig

    run_dir = Path(run_dir)
    cfg = ProbeConfig.from_dict(report["config"])
    v = report["versions"]
    subtitle = html.escape(f"{cfg.summary()} | {report['device']['type']} ({v.get('device_name')}) | torch {v['torch']} "
                           f"| torchao {v.get('torchao')} | status {report['status']} | {report.get('created_utc', '')}")
    parts = []

    findings = report.get("findings") or []
    if findings:
        items = "".join(f"<div class=\"finding\">{html.escape(f['message'])}"
                        + (f"<div class=\"hint\">fix: {html.escape(f['hint'])}</div>" if f.get("hint") else "") + "</div>"
                        for f in findings)
        parts.append(f"<section id=\"findings\"><h2>Findings</h2>{items}</section>")
    else:
        parts.append("<section id=\"findings\"><h2>Findings</h2><p>No weight-derived value is saved for backward.</p></section>")

    mem = report.get("memory") or {}
    if mem.get("phases"):
        rows = [[html.escape(name), _b(p.get("start_bytes")), _b(p.get("peak_bytes")), _b(p.get("end_bytes"))]
                for name, p in mem["phases"].items()]
        pers = mem.get("persistent") or {}
        parts.append(
            "<section id=\"phases\"><h2>Measured step, per phase</h2>"
            + _table([("phase", False), ("start", True), ("peak", True), ("end", True)], rows, sortable=False)
            + f"<p class=\"muted\">{html.escape(mem.get('baseline') or '')}; parameters {fmt_bytes(pers.get('parameters_bytes'))},"
              f" optimizer state {fmt_bytes(pers.get('optimizer_state_bytes'))} (source: {html.escape(str(mem.get('source')))})</p></section>"
        )
    parts.append("<section><h2>Memory over the measured step</h2><div id=\"timeline\"></div>"
                 "<p class=\"muted\">Allocated bytes by category (click a legend entry to hide it); bands are the phases.</p></section>")

    graphs = {g["graph_id"]: g for g in report.get("graph_memory") or []}
    saved_line = {gid: _saved_lines(g) for gid, g in graphs.items()}
    rows, classes = [], []
    totals = report.get("saved_totals") or {}
    for r in sorted(report.get("saved_tensors") or [], key=lambda r: (-r["bytes"], r["kind"] != "weight-derived")):
        line = saved_line.get(r["graph"], {}).get(r["name"])
        expr = html.escape(r["expr"])
        link = (f"<a href=\"#code-{r['graph']}-L{line}\">{html.escape(r['graph'])}:{line}</a>" if line
                else html.escape(r["graph"]))
        rows.append([html.escape(r.get("block") or "-"), f"<code>{expr}</code>", html.escape(r["kind"]), _b(r["bytes"]),
                     html.escape(str(r.get("dtype"))) + " " + html.escape(str(r.get("shape"))), html.escape(r["reason"]), link])
        classes.append("weight" if r["kind"] == "weight-derived" else "")
    parts.append(
        "<section id=\"saved\"><h2>Saved for backward (from the compiled graphs; click a header to sort)</h2>"
        + _table([("block", False), ("saved value (op chain)", False), ("kind", False), ("bytes", True), ("dtype / shape", False),
                  ("why", False), ("output code", False)], rows, row_classes=classes)
        + f"<p class=\"muted\">{fmt_bytes(totals.get('graph_bytes'))} derived from the graphs, "
          f"{fmt_bytes(totals.get('runtime_bytes'))} held at run time; parameters saved as graph inputs "
          f"{fmt_bytes(totals.get('parameter_graph_bytes'))}.</p></section>"
    )

    graph_data = []
    for gid, g in graphs.items():
        exprs = {}
        for r in g.get("returned") or []:
            if r.get("role") == "saved":
                exprs[r["fx_node"]] = r.get("expr") or r["fx_node"]
        saved_lines = [{"line": line, "expr": exprs.get(node, node),
                        "bytes": next((b for ln, _s, b in g.get("allocations") or [] if ln == line), 0)}
                       for node, line in saved_line[gid].items()]
        graph_data.append({k: g.get(k) for k in ("graph_id", "peak_bytes", "peak_line", "saved_bytes", "curve", "kernels")}
                          | {"saved_lines": saved_lines})
    parts.append("<section><h2>Compiled graphs: live bytes along the output code</h2><div id=\"graphs\"></div></section>")

    code_parts = []
    for entry in report.get("graphs") or []:
        rel = (entry.get("files") or {}).get("output_code")
        path = run_file(run_dir, rel, f"graphs ({entry['graph_id']}) files.output_code") if rel else None
        if path is None or not path.is_file():
            continue
        gid = entry["graph_id"]
        marks = {line: "saved" for line in saved_line.get(gid, {}).values()}
        peak = (graphs.get(gid) or {}).get("peak_line")
        if peak and peak not in marks:
            marks[peak] = "hl"
        code_parts.append(f"<details id=\"code-{gid}\"{' open' if marks else ''}><summary>{html.escape(gid)} output code "
                          f"<span class=\"pill\">{html.escape(rel)}</span></summary>{_code_block(gid, read_text(path), marks)}</details>")
    if code_parts:
        parts.append("<section id=\"output-code\"><h2>Inductor output code</h2><p class=\"muted\">Red: statements that allocate a "
                     "buffer returned as saved for backward; yellow: the simulated peak.</p>" + "".join(code_parts) + "</section>")

    parts.append("<section><h2>Configuration and versions</h2>" + _table(
        [("key", False), ("value", False)],
        [[html.escape(k), f"<code>{html.escape(json.dumps(val))}</code>"] for k, val in {**report["config"], **{f"version.{k}": x for k, x in v.items()}}.items()],
        sortable=False) + "</section>")

    data = {"kind": "run", "timeline": timeline, "graph_memory": graph_data}
    return _page(f"memprobe run — {run_dir.name}", subtitle, "".join(parts), data)


def render_diff(result: dict, timeline_a: dict | None, timeline_b: dict | None) -> str:
    from ..analysis.diff import side_environment

    subtitle = "<br>".join(html.escape(f"{k.upper()}: {(result.get(k) or {}).get('summary', '')} — "
                                       f"{side_environment(result.get(k) or {})}") for k in ("a", "b"))
    t = result.get("totals") or {}
    sb = t.get("saved_bytes") or {}
    parts = [f"<section><h2>Saved for backward per step</h2><p><b>{fmt_bytes(sb.get('a'))} &rarr; {fmt_bytes(sb.get('b'))}</b>"
             f" ({html.escape(_signed(sb.get('delta')))})</p></section>"]
    parts.append("<section><h2>Memory over the measured step: A and B on one axis</h2><div id=\"timeline\"></div></section>")
    rows, classes = [], []
    for it in result.get("items") or []:
        rows.append([html.escape(it["status"].replace("_", " ")), f"<code>{html.escape(it['expr'])}</code>", str(it.get("count", "")),
                     _b(it.get("bytes_a")), _b(it.get("bytes_b")), (html.escape(_signed(it.get("delta_bytes"))), it.get("delta_bytes", 0)),
                     html.escape(it.get("kind") or ""), html.escape(it.get("hint") or "")])
        classes.append("weight" if it.get("kind") == "weight-derived" and (it.get("delta_bytes") or 0) > 0 else "")
    parts.append("<section id=\"ranked\"><h2>What B keeps alive that A does not (ranked)</h2>" + _table(
        [("status", False), ("saved value (op chain)", False), ("x", True), ("A", True), ("B", True), ("delta", True), ("kind", False),
         ("hint", False)], rows, row_classes=classes) + "</section>")
    phases = (result.get("phases") or {}).get("phases") or {}
    if phases:
        prow = []
        for name, p in phases.items():
            pk = p.get("peak_bytes") or {}
            end = p.get("end_bytes") or {}
            prow.append([html.escape(name), _b(pk.get("a")), _b(pk.get("b")), html.escape(_signed(pk.get("delta"))),
                         _b(end.get("a")), _b(end.get("b")), html.escape(_signed(end.get("delta")))])
        parts.append("<section><h2>Measured phases</h2>" + _table(
            [("phase", False), ("peak A", True), ("peak B", True), ("delta", True), ("end A", True), ("end B", True), ("delta", True)],
            prow, sortable=False) + "</section>")
    data = {"kind": "diff", "timeline_a": timeline_a, "timeline_b": timeline_b}
    return _page("memprobe diff", subtitle, "".join(parts), data)


def render_gate(result: dict) -> str:
    verdicts = result.get("verdicts") or []
    failed = sum(1 for v in verdicts if v.get("verdict") == "FAIL")
    subtitle = html.escape(f"{len(verdicts)} limits, {failed} breached")
    rows, classes = [], []
    for v in verdicts:
        rows.append([html.escape(str(v.get("probe"))), html.escape(str(v.get("metric"))), html.escape(str(v.get("kind", ""))),
                     _b(v.get("measured")), html.escape(str(v.get("limit_text") or v.get("limit") or "")),
                     f"<b>{html.escape(str(v.get('verdict')))}</b>", html.escape(v.get("notice") or "")])
        classes.append("weight" if v.get("verdict") == "FAIL" else "")
    parts = ["<section><h2>Verdicts</h2>" + _table([("probe", False), ("metric", False), ("kind", False), ("measured", True),
                                                     ("limit", False), ("verdict", False), ("notice", False)], rows, row_classes=classes)
             + "</section>"]
    for probe, why in (result.get("explanations") or {}).items():
        lines = "".join(f"<li><code>{html.escape(line)}</code></li>" for line in why.get("lines") or [])
        parts.append(f"<section><h2>Why {html.escape(probe)} breached</h2><p>{html.escape(why.get('headline', ''))}</p><ul>{lines}</ul></section>")
    return _page("memprobe gate: " + ("FAIL" if failed else "PASS"), subtitle, "".join(parts), {"kind": "gate"})


def _signed(n) -> str:
    from ..units import fmt_delta

    return fmt_delta(n) if isinstance(n, int) else "n/a"

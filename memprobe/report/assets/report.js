(function(){
'use strict';
var errors=0;window.addEventListener('error',function(){errors++;document.body.setAttribute('data-errors',String(errors));});
var D=JSON.parse(document.getElementById('memprobe-data').textContent);
var PALETTE=['#c62828','#1565c0','#2e7d32','#ef6c00','#6a1b9a','#00838f','#8d6e63','#5d4037','#ad1457','#455a64','#9e9d24','#283593','#00695c','#bf360c'];
var FIXED={'saved-for-backward':'#c62828','inductor-temporary':'#1565c0','fsdp-unsharded-parameter':'#2e7d32','gradient':'#ef6c00',
 'optimizer-state':'#6a1b9a','sharded-parameter':'#00838f','optimizer-temporary':'#8d6e63','graph-output':'#ad1457',
 'backward-graph-or-autograd':'#7cb342','eager-autograd':'#9e9d24','input-batch':'#00695c','fsdp-collective-buffer':'#283593',
 'library-workspace':'#5d4037','other':'#9e9e9e'};
// one colour per category on every chart of a page: its own, or one from its name
function color(name,i){if(FIXED[name])return FIXED[name];var h=0;for(var k=0;k<name.length;k++)h=(h*31+name.charCodeAt(k))>>>0;return PALETTE[h%PALETTE.length];}
function fmt(b){var u=['B','KiB','MiB','GiB','TiB'],i=0,v=Math.abs(b);while(v>=1024&&i<u.length-1){v/=1024;i++;}return (b<0?'-':'')+(i?v.toFixed(2):String(v))+' '+u[i];}
var NS='http://www.w3.org/2000/svg';
function el(tag,attrs,parent){var e=document.createElementNS(NS,tag);for(var k in attrs)e.setAttribute(k,attrs[k]);if(parent)parent.appendChild(e);return e;}
function chart(host,opts){
 // opts: series [{name,color,points:[[x,y]],step:true,width}], bands [{name,x0,x1}], xlabel, marks [{x,label}]
 var W=1100,H=opts.height||300,L=78,R=16,T=14,B=38;
 var svg=el('svg',{viewBox:'0 0 '+W+' '+H,role:'img','class':'chart'},null);
 var xs=[],ys=[0];opts.series.forEach(function(s){s.points.forEach(function(p){xs.push(p[0]);ys.push(p[1]);});});
 (opts.areas||[]).forEach(function(a){a.pts.forEach(function(p){xs.push(p[0]);ys.push(p[2]);});});
 if(opts.ymax)ys.push(opts.ymax);
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
 (opts.areas||[]).forEach(function(a){var n=a.pts.length;if(!n)return;var d='M'+X(a.pts[0][0]).toFixed(1)+','+Y(a.pts[0][2]).toFixed(1);
  for(var i=1;i<n;i++)d+='H'+X(a.pts[i][0]).toFixed(1)+'V'+Y(a.pts[i][2]).toFixed(1);
  d+='V'+Y(a.pts[n-1][1]).toFixed(1);for(var j=n-1;j>0;j--)d+='H'+X(a.pts[j][0]).toFixed(1)+'V'+Y(a.pts[j-1][1]).toFixed(1);
  d+='H'+X(a.pts[0][0]).toFixed(1)+'Z';
  var path=el('path',{d:d,fill:a.color,'fill-opacity':0.78,stroke:a.color,'stroke-width':0.5,'class':'area','data-name':a.name},svg);
  el('title',{},path).textContent=a.name+' (peak '+fmt(a.peak||0)+')';});
 opts.series.forEach(function(s){if(!s.points.length)return;var d='';
  s.points.forEach(function(p,i){var px=X(p[0]).toFixed(1),py=Y(p[1]).toFixed(1);if(i===0)d+='M'+px+','+py;else if(s.step)d+='H'+px+'V'+py;else d+='L'+px+','+py;});
  var path=el('path',{d:d,fill:'none',stroke:s.color,'stroke-width':s.width||1.5,'class':'series','data-name':s.name},svg);
  var tt=el('title',{},path);tt.textContent=s.name;s.el=path;});
 (opts.ticks||[]).forEach(function(k){var t=el('line',{x1:X(k.x),x2:X(k.x),y1:H-B,y2:H-B+6,stroke:'#6b7385','class':'kernel'},svg);el('title',{},t).textContent=k.label;});
 (opts.marks||[]).forEach(function(m){el('circle',{cx:X(m.x),cy:Y(m.y),r:4,fill:m.color||'#c62828','class':'mark'},svg);var t=el('title',{},svg.lastChild);t.textContent=m.label;});
 host.appendChild(svg);
 if(opts.legend!==false){var lg=document.createElement('div');lg.className='legend';
  (opts.legendItems||opts.series).forEach(function(s){var sp=document.createElement('span');if(s.off)sp.classList.add('off');
  var sw=document.createElement('i');sw.style.background=s.color;sp.appendChild(sw);sp.appendChild(document.createTextNode(s.name));
  sp.addEventListener('click',function(){if(opts.onToggle){opts.onToggle(s.name);return;}sp.classList.toggle('off');if(s.el)s.el.style.display=sp.classList.contains('off')?'none':'';});lg.appendChild(sp);});host.appendChild(lg);}
 return svg;}
function peakOf(ps){var m=0;ps.forEach(function(p){if(p[1]>m)m=p[1];});return m;}
function categoryOrder(t){
 // saved-for-backward at the bottom (what memprobe is about), then the rest by their own peak, largest first
 return Object.keys(t.categories).sort(function(a,b){if(a==='saved-for-backward')return -1;if(b==='saved-for-backward')return 1;
  return peakOf(t.categories[b])-peakOf(t.categories[a])||(a<b?-1:1);});}
function stackCategories(t,names){
 // each category is a step function of time; stacked in order, [x, bottom, top] at every time any of them changes
 var seen={};names.forEach(function(c){t.categories[c].forEach(function(p){seen[p[0]]=1;});});
 var times=Object.keys(seen).map(Number).sort(function(a,b){return a-b;});
 var cur={},idx={},layers=names.map(function(c){cur[c]=0;idx[c]=0;return {name:c,pts:[],peak:peakOf(t.categories[c])};});
 times.forEach(function(x){var base=0;names.forEach(function(c,i){var s=t.categories[c];
  while(idx[c]<s.length&&s[idx[c]][0]<=x){cur[c]=s[idx[c]][1];idx[c]++;}var v=Math.max(0,cur[c]);layers[i].pts.push([x,base,base+v]);base+=v;});});
 return layers;}
function drawTimeline(host,t,opts){
 opts=opts||{};
 if(!t){host.textContent='no memory events in this run (analysis-only or not measured)';return;}
 var hidden={},order=categoryOrder(t),colors={};order.forEach(function(c,i){colors[c]=color(c,i);});
 function draw(){while(host.firstChild)host.removeChild(host.firstChild);
  var shown=order.filter(function(c){return !hidden[c];});
  var areas=stackCategories(t,shown).map(function(a){a.color=colors[a.name];return a;});
  var total={name:(opts.prefix||'')+'total allocated',color:'#1d2330',points:t.total,step:true,width:1.6};
  chart(host,{series:[total],areas:areas,ymax:opts.ymax,bands:t.phases.map(function(p){return {name:p.name,x0:p.start_us/1000,x1:p.end_us/1000};}),
   xlabel:(opts.xlabel||'ms from the start of the measured step')+' ('+t.source+'; '+t.baseline+'); stacked by category',xfmt:function(v){return v.toFixed(1);},
   marks:[{x:t.peak.t_us/1000,y:t.peak.bytes,label:'peak '+fmt(t.peak.bytes)}],height:opts.height||340,
   legendItems:[total].concat(order.map(function(c){return {name:c,color:colors[c],off:!!hidden[c]};})),
   onToggle:function(name){if(name in colors){hidden[name]=!hidden[name];draw();}}});}
 draw();
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
 else if(D.kind==='sweep'){var pts=function(k){return D.points.filter(function(p){return p[k]!==null;}).map(function(p){return [p.budget,p[k]];});};
  chart(document.getElementById('sweep'),{series:[{name:'step peak (measured)',color:'#c62828',points:pts('step_peak_bytes'),width:2},
   {name:'held after forward (measured)',color:'#ef6c00',points:pts('forward_end_bytes'),width:1.5},
   {name:'saved for backward (from the graphs)',color:'#1565c0',points:pts('saved_bytes'),width:2}],
   marks:D.points.map(function(p){return {x:p.budget,y:p.step_peak_bytes||0,label:'memory budget '+p.budget+': peak '+fmt(p.step_peak_bytes||0)};}),
   xlabel:'activation memory budget (0: recompute what it can; 1: runtime-optimal)',xfmt:function(v){return v.toFixed(2);},height:340});}
 else if(D.kind==='snapshot'){drawTimeline(document.getElementById('timeline'),scaleTimeline(D.timeline),{xlabel:D.xlabel});}
 else if(D.kind==='run'){drawTimeline(document.getElementById('timeline'),scaleTimeline(D.timeline));drawGraphs(document.getElementById('graphs'),D.graph_memory||[]);}
 else{var host=document.getElementById('timeline');var a=scaleTimeline(D.timeline_a),b=scaleTimeline(D.timeline_b);
  if(a||b){var series=[];if(a)series.push({name:'A total allocated',color:'#1565c0',points:a.total,step:true,width:2});if(b)series.push({name:'B total allocated',color:'#c62828',points:b.total,step:true,width:2});
   var bands=(b||a).phases.map(function(p){return {name:p.name+((b)?' (B)':''),x0:p.start_us/1000,x1:p.end_us/1000};});
   chart(host,{series:series,bands:bands,xlabel:D.xlabel||'ms from the start of each measured step',xfmt:function(v){return v.toFixed(1);},height:340,
    marks:[a&&{x:a.peak.t_us/1000,y:a.peak.bytes,label:'A peak '+fmt(a.peak.bytes),color:'#1565c0'},b&&{x:b.peak.t_us/1000,y:b.peak.bytes,label:'B peak '+fmt(b.peak.bytes)}].filter(Boolean)});}
  else host.textContent='neither run recorded memory events';
  var ymax=Math.max(a?a.peak.bytes:0,b?b.peak.bytes:0);
  if(a)drawTimeline(document.getElementById('timeline-a'),a,{prefix:'A ',ymax:ymax,height:260,xlabel:D.xlabel});
  if(b)drawTimeline(document.getElementById('timeline-b'),b,{prefix:'B ',ymax:ymax,height:260,xlabel:D.xlabel});}
 document.querySelectorAll('table.sortable').forEach(sortable);
 document.body.setAttribute('data-rendered',String(document.querySelectorAll('svg.chart').length));
}catch(e){errors++;document.body.setAttribute('data-errors',String(errors));document.body.setAttribute('data-error-message',String(e));throw e;}
})();

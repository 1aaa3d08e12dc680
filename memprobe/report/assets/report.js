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
var UNITS=['B','KiB','MiB','GiB','TiB'];
function fmt(b){var i=0,v=Math.abs(b);while(v>=1024&&i<UNITS.length-1){v/=1024;i++;}return (b<0?'-':'')+(i?v.toFixed(2):String(v))+' '+UNITS[i];}
// a round byte value as a tick says it: 256 KiB, 1.5 MiB (no trailing zeros)
function fmtTick(b){var i=0,v=Math.abs(b);while(v>=1024&&i<UNITS.length-1){v/=1024;i++;}return (b<0?'-':'')+String(+v.toFixed(3))+' '+UNITS[i];}
// a step of 1, 2 or 5 times a power of ten near span/n
function niceStep(span,n){var raw=span/n,p=Math.pow(10,Math.floor(Math.log10(raw))),f=raw/p;return (f<=1?1:f<=2?2:f<=5?5:10)*p;}
// the byte axis: ticks at round values of the largest binary unit below the top (0, 64 KiB, 128 KiB, ...)
function byteTicks(max){if(!(max>0))max=1;var u=1;while(u*1024<=max&&u<Math.pow(1024,4))u*=1024;
 var raw=max/u/5,step=Math.max(1,(raw>=1?niceStep(max/u,5):raw<=0.25?0.25:raw<=0.5?0.5:1)*u),top=Math.ceil(max/step-1e-9)*step,ticks=[];for(var v=0;v<=top+step/2;v+=step)ticks.push(v);
 return {top:top,ticks:ticks};}
function numberTicks(x0,x1){var step=niceStep(x1-x0,6),d=Math.max(0,-Math.floor(Math.log10(step)+1e-9)),ticks=[];
 for(var v=Math.ceil(x0/step-1e-9)*step;v<=x1+step*1e-6;v+=step)ticks.push({x:v,label:v.toFixed(d)});return ticks;}
var NS='http://www.w3.org/2000/svg';
function el(tag,attrs,parent){var e=document.createElementNS(NS,tag);for(var k in attrs)e.setAttribute(k,attrs[k]);if(parent)parent.appendChild(e);return e;}
// a label that fits: the first of its wordings no wider than maxw, or none (its band keeps the words as a tooltip)
function fitText(t,wordings,maxw){for(var i=0;i<wordings.length;i++){t.textContent=wordings[i];if(t.getComputedTextLength()<=maxw)return true;}
 t.parentNode.removeChild(t);return false;}
// every text of the chart inside it: one that would stick out on the left or right is moved in
function keepInside(svg,W){svg.querySelectorAll('text').forEach(function(t){var b=t.getBBox(),dx=0;
 if(b.x<1)dx=1-b.x;else if(b.x+b.width>W-1)dx=W-1-b.x-b.width;if(dx)t.setAttribute('x',String(+t.getAttribute('x')+dx));});}
var STRIP=17;
function drawBands(svg,bands,X,T,plotH){
 // bands of one side each are drawn as rows above the plot (one row per side, labelled with it), shading the plot below
 var sides=[];bands.forEach(function(b){if(b.side&&sides.indexOf(b.side)<0)sides.push(b.side);});
 bands.forEach(function(b,i){var x=X(b.x0),w=Math.max(1,X(b.x1)-x),fill=b.shade%2?'#eef3fb':'#f4f7fc';
  var row=sides.indexOf(b.side),y=row<0?T:T-STRIP*(sides.length-row),h=row<0?plotH:STRIP-2;
  if(row>=0&&row===sides.length-1)el('rect',{x:x,y:T,width:w,height:plotH,fill:fill,'class':'phase-bg','data-phase':b.phase},svg);
  var r=el('rect',{x:x,y:y,width:w,height:h,fill:row<0?fill:(b.shade%2?'#dbe6f6':'#e6edf8'),'class':'band','data-phase':b.phase||b.name,'data-side':b.side||''},svg);
  el('title',{},r).textContent=b.title||b.labels[0];
  var t=el('text',{x:x+4,y:y+12,'class':'band-label','data-phase':b.phase||b.name,'data-side':b.side||''},svg);fitText(t,b.labels,w-8);});
 return sides.length;}
function chart(host,opts){
 // opts: series [{name,color,points:[[x,y]],step:true,width}], areas, bands [{labels,x0,x1,side,phase}], xlabel, xticks, marks
 var W=Math.max(360,Math.round(host.clientWidth||1100)),H=opts.height||300,L=72,R=12,B=38;
 var svg=el('svg',{viewBox:'0 0 '+W+' '+H,width:W,height:H,role:'img','class':'chart'},null);
 var xs=[],ys=[0];opts.series.forEach(function(s){s.points.forEach(function(p){xs.push(p[0]);ys.push(p[1]);});});
 (opts.areas||[]).forEach(function(a){a.pts.forEach(function(p){xs.push(p[0]);ys.push(p[2]);});});
 if(opts.ymax)ys.push(opts.ymax);
 (opts.bands||[]).forEach(function(b){xs.push(b.x0,b.x1);});
 if(!xs.length){host.appendChild(document.createTextNode('no data'));return null;}
 host.appendChild(svg);
 var sides={};(opts.bands||[]).forEach(function(b){if(b.side)sides[b.side]=1;});var T=10+STRIP*Object.keys(sides).length;
 var x0=opts.xmin!==undefined?opts.xmin:Math.min.apply(null,xs),x1=opts.xmax!==undefined?opts.xmax:Math.max.apply(null,xs);if(x1===x0)x1=x0+1;
 var yt=byteTicks(Math.max.apply(null,ys)),y1=yt.top;
 function X(v){return L+(v-x0)/(x1-x0)*(W-L-R);}function Y(v){return H-B-(v/y1)*(H-B-T);}
 drawBands(svg,opts.bands||[],X,T,H-B-T);
 var ax=el('g',{'class':'axis'},svg);el('line',{x1:L,y1:H-B,x2:W-R,y2:H-B},ax);el('line',{x1:L,y1:T,x2:L,y2:H-B},ax);
 yt.ticks.forEach(function(v){var ty=el('text',{x:L-6,y:Y(v)+4,'text-anchor':'end','class':'ytick'},ax);ty.textContent=fmtTick(v);
  if(v)el('line',{x1:L,y1:Y(v),x2:W-R,y2:Y(v),stroke:'#e4e7ec'},ax);});
 (opts.xticks||numberTicks(x0,x1)).forEach(function(k){if(k.mark!==false)el('line',{x1:X(k.x),y1:H-B,x2:X(k.x),y2:H-B+4},ax);
  if(k.label===undefined)return;var tx=el('text',{x:X(k.at!==undefined?k.at:k.x),y:H-B+16,'text-anchor':'middle','class':'xtick'},ax);tx.textContent=k.label;});
 var xl=el('text',{x:(L+W-R)/2,y:H-4,'text-anchor':'middle','class':'xlabel'},ax);xl.textContent=opts.xlabel||'';
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
 keepInside(svg,W);
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
function ms(us){var v=us/1000;if(v>=1000)return (v/1000).toFixed(2)+' s';return (v>=100?v.toFixed(0):v>=10?v.toFixed(1):v.toFixed(2))+' ms';}
// the wall-clock axis of one run: ms from the start of its measured step, a band per phase
// (a snapshot taken elsewhere has no phases: its page says what its axis starts from, in xlabel)
function clockAxis(t,xlabel){return {map:function(us){return us/1000;},
 bands:t.phases.map(function(p,i){return {labels:[p.name,p.name.slice(0,3)],title:p.name+' '+ms(p.end_us-p.start_us),x0:p.start_us/1000,x1:p.end_us/1000,phase:p.name,shade:i};}),
 xlabel:(xlabel||'ms from the start of the measured step')+' ('+t.source+'; '+t.baseline+'); stacked by category'};}
// a snapshot taken elsewhere: its history's moments in order, one step of the axis each, so that a long quiet start (the
// model built, the data loaded) takes no more room than its few events and the steps and the peak can be read
function eventAxis(t,xlabel){var seen={};function add(ps){ps.forEach(function(p){seen[p[0]]=1;});}
 add(t.total);Object.keys(t.categories).forEach(function(c){add(t.categories[c]);});
 var order=Object.keys(seen).map(Number).sort(function(a,b){return a-b;});
 function map(us){var lo=0,hi=order.length-1;if(hi<0)return 0;
  while(lo<hi){var mid=(lo+hi+1)>>1;if(order[mid]<=us)lo=mid;else hi=mid-1;}return lo;}
 return {map:map,bands:t.phases.map(function(p,i){return {labels:[p.name,p.name.slice(0,3)],title:p.name+' '+ms(p.end_us-p.start_us),x0:map(p.start_us),x1:map(p.end_us),phase:p.name,shade:i};}),
  xmin:0,xmax:Math.max(1,order.length-1),xlabel:xlabel+' ('+t.source+'; '+t.baseline+'); stacked by category'};}
// the axis a diff shares: each phase one equal span, each side's phase stretched onto it, so A's and B's phases align
function phaseNames(ts){var names=[];ts.forEach(function(t){if(t)t.phases.forEach(function(p){if(names.indexOf(p.name)<0)names.push(p.name);});});return names;}
function phaseAxis(t,side,names){
 var knots=[];names.forEach(function(n,k){t.phases.forEach(function(p){if(p.name===n){knots.push([p.start_us,k]);knots.push([Math.max(p.end_us,p.start_us),k+1]);}});});
 knots.sort(function(a,b){return a[0]-b[0]||a[1]-b[1];});
 function map(us){if(!knots.length)return 0;if(us<=knots[0][0])return knots[0][1];
  for(var i=1;i<knots.length;i++){var a=knots[i-1],b=knots[i];if(us<=b[0])return b[0]>a[0]?a[1]+(us-a[0])/(b[0]-a[0])*(b[1]-a[1]):b[1];}
  return knots[knots.length-1][1];}
 var bands=[];names.forEach(function(n,k){t.phases.forEach(function(p){if(p.name!==n)return;var took=ms(p.end_us-p.start_us);
  bands.push({labels:[side+' '+n+' \u00b7 '+took,side+' '+n,side+' '+n.slice(0,3),side],title:side+': '+n+' took '+took,x0:k,x1:k+1,side:side,phase:n,shade:k});});});
 return {map:map,bands:bands,xmin:0,xmax:names.length,
  xticks:names.map(function(n,k){return {x:k,at:k+0.5,label:n};}).concat([{x:names.length}]),
  xlabel:'each phase of the measured step at one width (A and B aligned; the bands say how long each took)'};}
function onAxis(t,axis){if(!t)return null;var f=function(ps){return ps.map(function(p){return [axis.map(p[0]),p[1]];});};
 var c={};Object.keys(t.categories).forEach(function(k){c[k]=f(t.categories[k]);});
 return {total:f(t.total),categories:c,peak:{x:axis.map(t.peak.t_us),bytes:t.peak.bytes},source:t.source,baseline:t.baseline};}
function axisOpts(axis){return {bands:axis.bands,xlabel:axis.xlabel,xticks:axis.xticks,xmin:axis.xmin,xmax:axis.xmax};}
function drawTimeline(host,t,axis,opts){
 opts=opts||{};
 if(!t){host.textContent='no memory events in this run (analysis-only or not measured)';return;}
 var m=onAxis(t,axis),hidden={},order=categoryOrder(m),colors={};order.forEach(function(c,i){colors[c]=color(c,i);});
 function draw(){while(host.firstChild)host.removeChild(host.firstChild);
  var shown=order.filter(function(c){return !hidden[c];});
  var areas=stackCategories(m,shown).map(function(a){a.color=colors[a.name];return a;});
  var total={name:(opts.prefix||'')+'total allocated',color:'#1d2330',points:m.total,step:true,width:1.6};
  chart(host,Object.assign(axisOpts(axis),{series:[total],areas:areas,ymax:opts.ymax,
   marks:[{x:m.peak.x,y:m.peak.bytes,label:'peak '+fmt(m.peak.bytes)}],height:opts.height||340,
   legendItems:[total].concat(order.map(function(c){return {name:c,color:colors[c],off:!!hidden[c]};})),
   onToggle:function(name){if(name in colors){hidden[name]=!hidden[name];draw();}}}));}
 draw();
 return draw;
}
function drawGraphs(host,graphs){while(host.firstChild)host.removeChild(host.firstChild);graphs.forEach(function(g){var box=document.createElement('div');box.className='graph';host.appendChild(box);
 var h=document.createElement('h3');h.textContent=g.graph_id+' \u2014 simulated peak '+fmt(g.peak_bytes)+' at output-code line '+g.peak_line+'; saved '+fmt(g.saved_bytes||0);box.appendChild(h);
 var savedLines={};(g.saved_lines||[]).forEach(function(s){savedLines[s.line]=s;});
 var pts=g.curve.map(function(p,i){return [i,p[1]];});
 var marks=g.curve.map(function(p,i){return savedLines[p[0]]?{x:i,y:p[1],label:'line '+p[0]+': saved '+savedLines[p[0]].expr+' ('+fmt(savedLines[p[0]].bytes)+')'}:null;}).filter(Boolean);
 var kernels=g.kernels||[];var n=g.curve.length;
 var xticks=numberTicks(0,Math.max(1,n-1)).map(function(k){var line=g.curve[Math.min(Math.max(Math.round(k.x),0),n-1)];return {x:k.x,label:line?'L'+line[0]:''};});
 var idx=0,ticks=kernels.map(function(k){while(idx<n-1&&g.curve[idx][0]<k.line)idx++;return {x:idx,label:'line '+k.line+': '+k.kernel};});
 chart(box,{series:[{name:'live bytes (simulated from the output code)',color:'#1565c0',points:pts,step:true,width:1.8}],marks:marks,ticks:ticks,xticks:xticks,
  xlabel:'output-code statements in order (ticks: the '+kernels.length+' kernel calls; red dots: allocations returned as saved for backward)',height:220,legend:false});
 });}
function drawDiff(){var a=D.timeline_a,b=D.timeline_b,names=phaseNames([a,b]);
 // sides without phases (snapshots taken elsewhere) share the clock: time from the start of each one's history
 var axis=names.length?phaseAxis:function(t){return clockAxis(t,D.xlabel);};
 var axA=a&&axis(a,'A',names),axB=b&&axis(b,'B',names),host=document.getElementById('timeline');
 while(host.firstChild)host.removeChild(host.firstChild);
 if(!(a||b)){host.textContent='neither run recorded memory events';return;}
 var ma=onAxis(a,axA||axB),mb=onAxis(b,axB||axA),series=[],marks=[];
 if(ma){series.push({name:'A total allocated',color:'#1565c0',points:ma.total,step:true,width:2});marks.push({x:ma.peak.x,y:ma.peak.bytes,label:'A peak '+fmt(ma.peak.bytes),color:'#1565c0'});}
 if(mb){series.push({name:'B total allocated',color:'#c62828',points:mb.total,step:true,width:2});marks.push({x:mb.peak.x,y:mb.peak.bytes,label:'B peak '+fmt(mb.peak.bytes)});}
 var both=axisOpts(axA||axB);both.bands=(axA?axA.bands:[]).concat(axB?axB.bands:[]);
 chart(host,Object.assign(both,{series:series,height:360,marks:marks}));
 var ymax=Math.max(a?a.peak.bytes:0,b?b.peak.bytes:0);
 if(a)drawTimeline(document.getElementById('timeline-a'),a,axA,{prefix:'A ',ymax:ymax,height:280});
 if(b)drawTimeline(document.getElementById('timeline-b'),b,axB,{prefix:'B ',ymax:ymax,height:280});}
function sortable(table){var ths=table.querySelectorAll('th');ths.forEach(function(th,ci){th.addEventListener('click',function(){var tb=table.tBodies[0];
 var rows=Array.prototype.slice.call(tb.rows);var dir=th.getAttribute('data-dir')==='asc'?-1:1;th.setAttribute('data-dir',dir>0?'asc':'desc');
 rows.sort(function(a,b){var x=a.cells[ci].getAttribute('data-v')||a.cells[ci].textContent,y=b.cells[ci].getAttribute('data-v')||b.cells[ci].textContent;
  var nx=parseFloat(x),ny=parseFloat(y);if(!isNaN(nx)&&!isNaN(ny))return (nx-ny)*dir;return x.localeCompare(y)*dir;});rows.forEach(function(r){tb.appendChild(r);});});});}
function drawSweep(){var host=document.getElementById('sweep');while(host.firstChild)host.removeChild(host.firstChild);
 var pts=function(k){return D.points.filter(function(p){return p[k]!==null;}).map(function(p){return [p.budget,p[k]];});};
 chart(host,{series:[{name:'step peak (measured)',color:'#c62828',points:pts('step_peak_bytes'),width:2},
  {name:'held after forward (measured)',color:'#ef6c00',points:pts('forward_end_bytes'),width:1.5},
  {name:'saved for backward (from the graphs)',color:'#1565c0',points:pts('saved_bytes'),width:2}],
  marks:D.points.map(function(p){return {x:p.budget,y:p.step_peak_bytes||0,label:'memory budget '+p.budget+': peak '+fmt(p.step_peak_bytes||0)};}),
  xlabel:'activation memory budget (0: recompute what it can; 1: runtime-optimal)',height:340});}
// what draws the page's charts, again when the window's width changes (each chart is drawn at its box's width)
function drawAll(){
 if(D.kind==='sweep')drawSweep();
 else if(D.kind==='run'){var t=D.timeline;drawTimeline(document.getElementById('timeline'),t,t&&clockAxis(t));var gh=document.getElementById('graphs');if(gh)drawGraphs(gh,D.graph_memory||[]);}
 else if(D.kind==='snapshot'){var t=D.timeline;drawTimeline(document.getElementById('timeline'),t,t&&eventAxis(t,D.xlabel));}
 else if(D.kind==='diff'||D.kind==='snapshot-diff')drawDiff();
 document.body.setAttribute('data-rendered',String(document.querySelectorAll('svg.chart').length));}
try{
 drawAll();
 document.querySelectorAll('table.sortable').forEach(sortable);
 var width=window.innerWidth,pending=0;
 window.addEventListener('resize',function(){if(window.innerWidth===width)return;width=window.innerWidth;clearTimeout(pending);
  pending=setTimeout(function(){try{drawAll();}catch(e){errors++;document.body.setAttribute('data-errors',String(errors));throw e;}},100);});
}catch(e){errors++;document.body.setAttribute('data-errors',String(errors));document.body.setAttribute('data-error-message',String(e));throw e;}
})();

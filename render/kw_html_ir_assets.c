/* kw_html_ir_assets.c: the style sheet and script of the IR view pages
 * (kw_html_ir.h), written into the site's DIR once. The script draws the
 * source pane and a pane per stage from #kw-ir-data with textContent only
 * (docs/security.md); a click on a line with a Python position highlights
 * every line of that position in every pane. Test hook (docs/site.md):
 * ?kwtest=ir clicks every TTGIR line and every source line and writes what
 * each highlighted into #kw-test-result as JSON. */
#include "render/kw_html_ir.h"

const char kw_html_ir_css[] =
    ".kw-irmain{max-width:none}"
    ".kw-irpanes{display:grid;grid-template-columns:repeat(5,minmax(0,1fr));gap:6px;height:80vh}"
    ".kw-irp{position:relative;overflow:auto;border:1px solid #d0d7de;"
    "font:11.5px/1.35 ui-monospace,monospace;white-space:pre}"
    ".kw-il{cursor:pointer;padding-right:6px}.kw-il.kw-nol{color:#8c959f}"
    ".kw-irp .kw-ln{width:4em}";

const char kw_html_ir_js[] =
    "(function(){var d=document.getElementById('kw-ir-data');if(!d)return;"
    "var D=JSON.parse(d.textContent),root=document.getElementById('kw-ir'),"
    "panes=root.querySelector('.kw-irpanes'),by={},all=[];"
    "function el(t,c,x){var e=document.createElement(t);if(c)e.className=c;"
    "if(x!==undefined)e.textContent=x;return e}"
    "function add(k,e){(by[k]=by[k]||[]).push(e)}"
    /* the source pane */
    "var sp=el('div','kw-irp kw-src');sp.dataset.s='src';panes.appendChild(sp);"
    "sp.appendChild(el('div','kw-file','Python'));"
    "D.files.forEach(function(f,fi){sp.appendChild(el('div','kw-file',f.p));"
    "if(f.why){sp.appendChild(el('div','kw-why',f.why));return}"
    "f.s.forEach(function(seg,si){if(si)sp.appendChild(el('div','kw-gap','\\u22ee'));"
    "seg[1].forEach(function(t,k){var l=seg[0]+k,e=el('div','kw-sl');e.dataset.k=fi+':'+l;"
    "e.appendChild(el('span','kw-ln',String(l)));e.appendChild(document.createTextNode(t));"
    "sp.appendChild(e);add(e.dataset.k,e)})})});"
    /* a pane per stage */
    "D.stages.forEach(function(S,si){var p=el('div','kw-irp');p.dataset.s=S.n;"
    "panes.appendChild(p);p.appendChild(el('div','kw-file',S.n+(S.p?' \\u2014 '+S.p:'')));"
    "if(S.why||S.t===null){p.appendChild(el('div','kw-why',S.why||'not read'));return}"
    "var L=S.t.split('\\n');if(L.length&&L[L.length-1]==='')L.pop();"
    "var n=0;for(var i=0;i<S.r.length;i+=3)for(var j=0;j<S.r[i];j++,n++){"
    "var e=el('div','kw-il'+(S.r[i+1]<0?' kw-nol':''));e.dataset.n=n+1;"
    "e.appendChild(el('span','kw-ln',String(n+1)));"
    "e.appendChild(document.createTextNode(L[n]!==undefined?L[n]:''));"
    "if(S.r[i+1]>=0){e.dataset.k=S.r[i+1]+':'+S.r[i+2];"
    "e.title=D.files[S.r[i+1]].ir+':'+S.r[i+2];add(e.dataset.k,e)}else e.title='no position';"
    "p.appendChild(e);all.push(e)}});"
    /* a source line some stage line names is dark, the others grey */
    "[].forEach.call(sp.querySelectorAll('.kw-sl'),function(e){"
    "if(by[e.dataset.k].length>1)e.classList.add('kw-has')});"
    /* lit: the lines highlighted; noScroll: the test hook's clicks do not
     * scroll (each scroll lays the panes out again) */
    "var lit=[],noScroll=false;"
    "function clear(){lit.forEach(function(e){e.classList.remove('kw-hl')});lit=[]}"
    "function pick(e){clear();var k=e.dataset.k,l=k?by[k]:[e];var first={};"
    "l.forEach(function(x){x.classList.add('kw-hl');lit.push(x);var p=x.parentNode;"
    "if(!noScroll&&!first[p.dataset.s]){first[p.dataset.s]=1;if(p!==e.parentNode)"
    "p.scrollTop=Math.max(0,x.offsetTop-p.clientHeight/3)}})}"
    "panes.addEventListener('click',function(ev){var e=ev.target.closest('.kw-il,.kw-sl');"
    "if(e)pick(e)});"
    "if(/[?&]kwtest=ir\\b/.test(location.search)){var res=[];noScroll=true;"
    "function seen(e){var h={};D.stages.forEach(function(S){h[S.n]=[]});h.src=[];"
    "[].forEach.call(root.querySelectorAll('.kw-hl'),function(x){var s=x.parentNode.dataset.s;"
    "if(s==='src'){var p=x.dataset.k.split(':');h.src.push([D.files[+p[0]].p,+p[1],"
    "x.lastChild.textContent])}else h[s].push(+x.dataset.n)});"
    "return h}"
    "[].forEach.call(root.querySelectorAll('.kw-irp'),function(p){var s=p.dataset.s;"
    "if(s!=='TTGIR'&&s!=='src')return;"
    "[].forEach.call(p.querySelectorAll('.kw-il,.kw-sl'),function(e){e.click();"
    "res.push({s:s,n:s==='src'?e.dataset.k:+e.dataset.n,title:e.title||null,hl:seen(e)})})});"
    "var o=el('pre','',JSON.stringify(res));o.id='kw-test-result';document.body.appendChild(o)}"
    "})();";

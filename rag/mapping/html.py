"""A LibraryMap as one self-contained HTML page that works offline: inline SVG, a small inline script,
the papers as embedded JSON. Hover shows a paper, the search box highlights matches, a click copies
the citekey, the wheel zooms and a drag pans.

Titles and abstracts come from files users did not write: every string is escaped for where it goes
(HTML text and attributes by ``html.escape``; the JSON with every ``<``, ``>`` and ``&`` as a
``\\u`` escape, so ``</script>`` cannot end its block), the script only ever sets ``textContent``,
and a Content-Security-Policy lets no script run but ours (by its hash) and nothing be fetched.
"""

from __future__ import annotations

import base64
import hashlib
import json
import math
from dataclasses import dataclass
from html import escape
from string import Template

from rag.mapping.picture import HIGHLIGHT_COLOUR, MUST_CITE_COLOUR, LibraryMap, MapPoint
from rag.text import plural

# SVG user units: the points' extent scaled to SIZE along its longer side, inside a MARGIN (see Frame).
SIZE = 1000
MARGIN = 30
MIN_SIDE = 400
# Points shrink as the library grows, within bounds that stay visible and clickable.
RADIUS_SCALE = 40.0
RADIUS_MIN = 2.0
RADIUS_MAX = 7.0
MARKED_RADIUS = 7.0
LABEL_SIZE_ALL = 11
LABEL_SIZE_MARKED = 13
THEME_LABEL_SIZE = 16
COORD_DIGITS = 1
# The order of each paper's fields in the embedded JSON (arrays, not objects: 5,000 papers stay small).
FIELDS = ("citekey", "title", "year", "first_sentence", "theme")
# In JSON, these become \u escapes: no '</script>' or '<!--' inside the data block, and no line
# separators that older JavaScript parsers reject.
_JSON_ESCAPES = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}

STYLE = """
html,body{height:100%}
body{font:14px/1.4 system-ui,sans-serif;margin:0;color:#222;background:#fff;display:flex;flex-direction:column;
overflow:hidden}
header{flex:0 0 auto;padding:6px 16px;border-bottom:1px solid #ddd}
h1{font-size:18px;margin:0}
header p{margin:2px 0 4px;color:#555}
#search{width:min(420px,60vw);padding:4px 6px;font:inherit}
#count,#status{margin-left:10px;color:#555}
main{flex:1 1 auto;min-height:0;display:flex;gap:12px;padding:6px 16px 8px}
#map{flex:1 1 auto;min-width:0;min-height:0;height:100%;cursor:grab;user-select:none}
aside{flex:0 0 280px;font-size:13px;overflow:auto}
@media (max-aspect-ratio:1/1){main{flex-direction:column}aside{flex:0 0 auto;max-height:30%}}
aside ul{list-style:none;padding:0;margin:0 0 12px}
aside li{margin:3px 0}
.sw{display:inline-block;width:11px;height:11px;border-radius:50%;margin-right:6px;vertical-align:-1px}
#frame{fill:none;stroke:#e4e4e4}
circle{cursor:pointer;stroke:#fff;stroke-width:.5}
circle.hit{stroke:HIGHLIGHT;stroke-width:2}
circle.cite{stroke:MUST_CITE;stroke-width:3}
circle.match{stroke:#000;stroke-width:2.5}
circle.dim,text.dim{opacity:.12}
text{pointer-events:none;font-family:system-ui,sans-serif}
line.leader{stroke:#555;stroke-width:.6;pointer-events:none}
text.crowded{display:none}
text.theme{font-weight:bold;paint-order:stroke;stroke:#fff;stroke-width:4px}
#tip{position:fixed;max-width:380px;background:#fff;border:1px solid #999;border-radius:4px;padding:6px 8px;
box-shadow:0 2px 8px rgba(0,0,0,.2);pointer-events:none;font-size:13px}
#tip .meta{color:#555;margin:2px 0}
""".replace("HIGHLIGHT", HIGHLIGHT_COLOUR).replace("MUST_CITE", MUST_CITE_COLOUR)

# Hand-written, no library: reads the JSON block, never writes HTML (textContent only).
SCRIPT = """
(function(){
"use strict";
const data=JSON.parse(document.getElementById("map-data").textContent);
const svg=document.getElementById("map"),tip=document.getElementById("tip");
const status=document.getElementById("status"),count=document.getElementById("count");
const circles=svg.querySelectorAll("circle"),byIndex=[];
circles.forEach(c=>{byIndex[+c.dataset.i]=c;});
const labels=svg.querySelectorAll("text[data-i]");
const haystack=data.points.map(p=>[p[0],p[1],p[2]===null?"":String(p[2]),p[3]].join(" ").toLowerCase());
// Labels placed with the browser's own text sizes: each where it stays inside the plot and covers no label placed
// before it (marked papers' citekeys, then theme names, then the other citekeys), or left out when nowhere is free.
// A marked paper's citekey is read first: it also takes a spot that covers no point when there is one.
const WIDTH=svg.viewBox.baseVal.width,HEIGHT=svg.viewBox.baseVal.height,PAD=2,GAP=1,FAR_RINGS=8,placed=[];
function bounds(t){const b=t.getBBox();return {x:b.x,y:b.y,w:b.width,h:b.height};}
function inPlot(b){return b.x>=PAD&&b.y>=PAD&&b.x+b.w<=WIDTH-PAD&&b.y+b.h<=HEIGHT-PAD;}
// A pixel apart at least: boxes that only touch would overlap by rounding once the window is resized.
function apart(b,o){return b.x>=o.x+o.w+GAP||o.x>=b.x+b.w+GAP||b.y>=o.y+o.h+GAP||o.y>=b.y+b.h+GAP;}
function free(b){return placed.every(o=>apart(b,o));}
const dots=[...circles].map(c=>{const r=+c.getAttribute("r");
  return {x:+c.getAttribute("cx")-r,y:+c.getAttribute("cy")-r,w:2*r,h:2*r};});
function clearOfPoints(b){return dots.every(o=>apart(b,o));}
function put(t,x,y,anchor){t.setAttribute("x",x);t.setAttribute("y",y);t.setAttribute("text-anchor",anchor);}
function place(t,spots,avoidPoints){
  for(const strict of avoidPoints?[true,false]:[false]){
    for(const s of spots){put(t,...s);const b=bounds(t);
      if(inPlot(b)&&free(b)&&(!strict||clearOfPoints(b))){placed.push(b);return true;}}
  }
  t.classList.add("crowded");return false;
}
function themeSpots(t){
  const x=+t.getAttribute("x"),y=+t.getAttribute("y"),b=bounds(t),spots=[];
  const cx=Math.min(Math.max(x,PAD+b.w/2),WIDTH-PAD-b.w/2);
  for(const k of [0,1,-1,2,-2,3,-3,4,-4]){spots.push([cx,Math.min(Math.max(y+k*b.h,PAD+b.h),HEIGHT-PAD),"middle"]);}
  return spots;
}
function keySpots(t){
  const c=byIndex[+t.dataset.i],x=+c.getAttribute("cx"),y=+c.getAttribute("cy"),r=+c.getAttribute("r")+1;
  const h=bounds(t).h,mid=y+h*0.3;
  // Eight spots around the point at distance d (the one above it raised by lift).
  const ring=(d,lift)=>[[x+d,mid,"start"],[x-d,mid,"end"],[x,y-d-lift,"middle"],[x,y+d+h*0.75,"middle"],
    [x+d,y-d,"start"],[x-d,y-d,"end"],[x+d,y+d+h*0.6,"start"],[x-d,y+d+h*0.6,"end"]];
  const near=ring(r,1);
  if(t.dataset.marked!=="1"){return near;}
  // Further out, ring by ring, for a marked citekey whose near spots all cover points (joined to it by a line).
  const far=[];
  for(let k=1;k<=FAR_RINGS;k++){far.push(...ring(r+k*h,0));}
  return near.concat(far);
}
// A marked citekey placed away from its point: a thin line from the point to the label's nearest edge.
function leader(t){
  const c=byIndex[+t.dataset.i],x=+c.getAttribute("cx"),y=+c.getAttribute("cy"),r=+c.getAttribute("r"),b=bounds(t);
  const lx=Math.min(Math.max(x,b.x),b.x+b.w),ly=Math.min(Math.max(y,b.y),b.y+b.h);
  if(Math.hypot(lx-x,ly-y)<=r+b.h){return;}
  const line=document.createElementNS(svg.namespaceURI,"line");
  line.setAttribute("x1",x);line.setAttribute("y1",y);line.setAttribute("x2",lx);line.setAttribute("y2",ly);
  line.setAttribute("class","leader");t.parentNode.insertBefore(line,t);
}
let crowded=0;
const marked=[...labels].filter(t=>t.dataset.marked==="1"),rest=[...labels].filter(t=>t.dataset.marked!=="1");
marked.forEach(t=>{if(place(t,keySpots(t),true)){leader(t);}else{crowded++;}});
svg.querySelectorAll("text.theme").forEach(t=>{if(!place(t,themeSpots(t))){crowded++;}});
rest.forEach(t=>{if(!place(t,keySpots(t))){crowded++;}});
if(crowded){
  document.getElementById("crowded").textContent=(crowded===1?"1 label":crowded+" labels")+
    " left out where it would cover another: hover the points for their papers";
}
function say(text){status.textContent=text;}
function show(i,event){
  const p=data.points[i];tip.replaceChildren();
  const title=document.createElement("strong");title.textContent=p[1];
  const meta=document.createElement("div");meta.className="meta";
  meta.textContent=[p[2]===null?"n.d.":p[2],p[0],data.themes[p[4]]].join(" \\u00b7 ");
  const first=document.createElement("div");first.textContent=p[3];
  tip.append(title,meta,first);tip.hidden=false;
  const x=Math.min(event.clientX+14,window.innerWidth-tip.offsetWidth-8);
  const y=Math.min(event.clientY+14,window.innerHeight-tip.offsetHeight-8);
  tip.style.left=Math.max(4,x)+"px";tip.style.top=Math.max(4,y)+"px";
}
function fallbackCopy(text){
  const area=document.createElement("textarea");area.value=text;area.setAttribute("readonly","");
  area.style.position="fixed";area.style.opacity="0";document.body.appendChild(area);area.select();
  let ok=false;try{ok=document.execCommand("copy");}catch(e){ok=false;}
  area.remove();
  if(ok){say("copied "+text);}else{window.prompt("Copy the citekey:",text);}
}
function copy(text){
  if(navigator.clipboard&&window.isSecureContext){
    navigator.clipboard.writeText(text).then(()=>say("copied "+text),()=>fallbackCopy(text));
  }else{fallbackCopy(text);}
}
function search(){
  const q=document.getElementById("search").value.trim().toLowerCase();
  let n=0;
  haystack.forEach((h,i)=>{
    const hit=q!==""&&h.includes(q);if(hit){n++;}
    byIndex[i].classList.toggle("match",hit);byIndex[i].classList.toggle("dim",q!==""&&!hit);
  });
  labels.forEach(t=>{
    const i=+t.dataset.i;t.classList.toggle("dim",q!==""&&!byIndex[i].classList.contains("match"));
  });
  count.textContent=q===""?"":n+" match"+(n===1?"":"es");
}
document.getElementById("search").addEventListener("input",search);
const home=svg.viewBox.baseVal,box={x:home.x,y:home.y,w:home.width,h:home.height},start={...box};
function apply(){svg.setAttribute("viewBox",[box.x,box.y,box.w,box.h].join(" "));}
function toMap(event){
  const r=svg.getBoundingClientRect();
  return {x:box.x+(event.clientX-r.left)/r.width*box.w,y:box.y+(event.clientY-r.top)/r.height*box.h};
}
svg.addEventListener("wheel",event=>{
  event.preventDefault();const at=toMap(event),f=event.deltaY<0?0.8:1.25;
  box.x=at.x-(at.x-box.x)*f;box.y=at.y-(at.y-box.y)*f;box.w*=f;box.h*=f;apply();
},{passive:false});
let drag=null,moved=false;
svg.addEventListener("pointerdown",event=>{drag={x:event.clientX,y:event.clientY,bx:box.x,by:box.y};moved=false;});
window.addEventListener("pointermove",event=>{
  if(!drag){return;}
  const r=svg.getBoundingClientRect(),dx=event.clientX-drag.x,dy=event.clientY-drag.y;
  if(Math.abs(dx)+Math.abs(dy)>3){moved=true;}
  box.x=drag.bx-dx/r.width*box.w;box.y=drag.by-dy/r.height*box.h;apply();
});
window.addEventListener("pointerup",()=>{drag=null;});
svg.addEventListener("dblclick",()=>{Object.assign(box,start);apply();});
svg.addEventListener("mouseover",event=>{const i=event.target.dataset&&event.target.dataset.i;
  if(event.target.tagName==="circle"){show(+i,event);}});
svg.addEventListener("mousemove",event=>{if(event.target.tagName==="circle"){show(+event.target.dataset.i,event);}});
svg.addEventListener("mouseout",event=>{if(event.target.tagName==="circle"){tip.hidden=true;}});
svg.addEventListener("click",event=>{
  if(moved||event.target.tagName!=="circle"){return;}
  copy(data.points[+event.target.dataset.i][0]);
});
})();
"""


def embed_json(payload: object) -> str:
    """JSON safe inside a <script> block: no '<', '>' or '&' left to end it or open a comment."""
    text = json.dumps(payload, ensure_ascii=False, separators=(",", ":"))
    for char, replacement in _JSON_ESCAPES.items():
        text = text.replace(char, replacement)
    return text


def _script_hash(script: str) -> str:
    return "sha256-" + base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode("ascii")


@dataclass(frozen=True)
class Frame:
    """The plot in SVG units: the points' extent at one scale for both axes (the longer side SIZE, within a
    MARGIN), so a wide library draws a wide plot, which fills a wide window; never narrower than MIN_SIDE."""

    left: float
    top: float
    scale: float
    width: float
    height: float

    @classmethod
    def around(cls, points: list[MapPoint]) -> Frame:
        xs, ys = [p.x for p in points], [p.y for p in points]
        spans = (max(xs) - min(xs), max(ys) - min(ys))
        scale = (SIZE - 2 * MARGIN) / (max(spans) or 1.0)
        width, height = (max(MIN_SIDE, span * scale + 2 * MARGIN) for span in spans)
        left = (min(xs) + max(xs)) / 2 - (width / 2 - MARGIN) / scale
        top = (min(ys) + max(ys)) / 2 + (height / 2 - MARGIN) / scale
        return cls(left, top, scale, round(width), round(height))

    def xy(self, x: float, y: float) -> tuple[float, float]:
        """Map coordinates (y grows upwards) in SVG units (y grows downwards)."""
        return (
            round(MARGIN + (x - self.left) * self.scale, COORD_DIGITS),
            round(MARGIN + (self.top - y) * self.scale, COORD_DIGITS),
        )


def _circle(frame: Frame, index: int, point: MapPoint, radius: float) -> str:
    x, y = frame.xy(point.x, point.y)
    classes = [f"t{point.theme}"]
    if point.highlighted:
        classes.append("hit")
    if point.must_cite:
        classes.append("cite")
    r = MARKED_RADIUS if point.marked else radius
    return f'<circle class="{" ".join(classes)}" cx="{x}" cy="{y}" r="{r:g}" data-i="{index}"/>'


# The page around the map; $names are filled by render_html (string.Template: the CSS and script keep their braces).
PAGE = Template("""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="$policy">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>$heading</title>
<style>$style</style>
</head>
<body>
<header>
<h1>$heading</h1>
<p>$method. Hover a point for its paper, click to copy its citekey; wheel zooms, drag pans,
double-click resets.</p>
<input id="search" type="search" placeholder="Search titles, citekeys, years, first sentences"
 aria-label="Search the papers"><span id="count"></span><span id="status" role="status"></span>
</header>
<main>
<svg id="map" viewBox="0 0 $width $height" role="img" aria-label="$heading">
<rect id="frame" x="0.5" y="0.5" width="$inner_width" height="$inner_height"/>
<g>
$circles
</g>
<g>
$labels
</g>
</svg>
<aside>
<h2>Themes</h2>
<ul>
$legend
</ul>
<ul>
$marks
</ul>
$notes
<p id="crowded"></p>
</aside>
</main>
<div id="tip" hidden></div>
<script type="application/json" id="map-data">$data</script>
<script>$script</script>
</body>
</html>
""")


def _labels(frame: Frame, library_map: LibraryMap, radius: float) -> list[str]:
    """Citekeys beside their points; above LABEL_ALL_MAX papers, theme names where the themes sit instead."""
    labels = []
    for index, point in enumerate(library_map.points):
        if not (library_map.label_all or point.marked):
            continue
        x, y = frame.xy(point.x, point.y)
        size = LABEL_SIZE_MARKED if point.marked else LABEL_SIZE_ALL
        weight = ' font-weight="bold"' if point.marked else ""
        colour = MUST_CITE_COLOUR if point.must_cite else HIGHLIGHT_COLOUR
        labels.append(
            f'<text data-i="{index}" data-marked="{int(point.marked)}" x="{x + radius + 1:g}" y="{y - radius:g}" '
            f'font-size="{size}"{weight} fill="{colour}">{escape(point.citekey)}</text>'
        )
    if not library_map.label_all:
        for number, theme in enumerate(library_map.themes, start=1):
            x, y = frame.xy(theme.x, theme.y)
            labels.append(
                f'<text class="theme" x="{x:g}" y="{y:g}" font-size="{THEME_LABEL_SIZE}" text-anchor="middle" '
                f'fill="{escape(theme.colour)}">{number}. {escape(theme.name)}</text>'
            )
    return labels


def _marks(library_map: LibraryMap) -> list[str]:
    """Legend lines for the highlighted hits and the must-cite papers, when there are any."""
    marks = []
    if library_map.query is not None:
        hits = sum(p.highlighted for p in library_map.points)
        marks.append(
            f'<li><span class="sw" style="border:2px solid {HIGHLIGHT_COLOUR}"></span>'
            f"hits for “{escape(library_map.query)}” ({hits})</li>"
        )
    cited = sum(p.must_cite for p in library_map.points)
    if cited:
        marks.append(
            f'<li><span class="sw" style="border:3px solid {MUST_CITE_COLOUR}"></span>must cite ({cited})</li>'
        )
    return marks


def render_html(library_map: LibraryMap) -> str:
    points, themes = library_map.points, library_map.themes
    radius = min(RADIUS_MAX, max(RADIUS_MIN, RADIUS_SCALE / math.sqrt(len(points))))
    order = sorted(range(len(points)), key=lambda i: points[i].marked)  # marked papers drawn on top
    frame = Frame.around(points)
    circles = "\n".join(_circle(frame, i, points[i], radius) for i in order)
    labels = _labels(frame, library_map, radius)
    theme_css = "".join(f".t{n}{{fill:{theme.colour}}}" for n, theme in enumerate(themes))
    legend = "\n".join(
        f'<li><span class="sw" style="background:{escape(theme.colour)}"></span>{n}. {escape(theme.name)} '
        f"({theme.size})</li>"
        for n, theme in enumerate(themes, start=1)
    )
    marks = _marks(library_map)
    notes = "".join(f"<p>{escape(note)}</p>" for note in [library_map.label_note(), *library_map.notes])
    data = {
        "fields": FIELDS,
        "themes": [theme.name for theme in themes],
        "points": [[p.citekey, p.title, p.year, p.first_sentence, p.theme] for p in points],
    }
    heading = f"Library map: {plural(len(points), 'paper')}, {plural(len(themes), 'theme')}"
    return PAGE.substitute(
        policy=f"default-src 'none'; style-src 'unsafe-inline'; script-src '{_script_hash(SCRIPT)}'",
        heading=escape(heading),
        style=STYLE + theme_css,
        method=escape(library_map.method),
        width=frame.width,
        height=frame.height,
        inner_width=frame.width - 1,
        inner_height=frame.height - 1,
        circles=circles,
        labels="\n".join(labels),
        legend=legend,
        marks="\n".join(marks),
        notes=notes,
        data=embed_json(data),
        script=SCRIPT,
    )

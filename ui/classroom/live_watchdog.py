"""The join page's follower: a script that asks the server, over plain HTTP, whether the teacher moved, and
redraws the page (one full Streamlit run) only then, or when the page missed a run.

The page's last element (:func:`drawn_marker`, hidden) says what the server drew: ``<run> <stage> <code>
<key>``: the number of that full run, the room's stage number it showed (``offline`` when it showed the
class read-only), the room's code and the key of the stage route (:mod:`live.stage_route`). A script in a
zero-height frame (:func:`watchdog`) asks ``/api/live/stage`` every POLL_SECONDS and presses the page's
**Refresh** (a full run, which redraws everything and ends with a new marker):

- when the route's answer is not the stage the page drew: the teacher asked, revealed, stepped or ended
  the class, the class server went away or came back, or the room is gone. An idle page costs the server
  one small HTTP request a second and no Streamlit run; before, a fragment ran every 1.5 s on every page
  (~3.7 ms of server CPU each) to learn the same;
- when the page sent a run request after a touch (a tap, the nickname form) or after its own press, and,
  WATCHDOG_LOST_SECONDS later, with nothing running and messages from the server since, it still ends with
  the marker from before: Streamlit dropped that run's messages (when a second run request reaches the
  server after a run finished but before its messages were sent, AppSession starts another runner and
  ignores the finished runner's queued events), so the browser keeps the page from before the run. When
  nothing at all came back, the request may be queued on a busy server: then only after
  WATCHDOG_BUSY_SECONDS. Under load that lost a student's
  "Answer received" (stored all the same) until the next step: 1 of 120 taps in a one-process load run.
  A lost run of a Step is caught by the first rule already.

It does not press while a run is in progress (a press would cancel that run, perhaps a tap's: Streamlit
stops a run for a newer one) unless it lasted WATCHDOG_BUSY_SECONDS, nor while the server is behind (the
page's last request, sent within the wait, got nothing back yet: a press would only queue one more run and
cancel the one the page waits for; in a load run of 40 students every page once pressed at the first step,
which doubled its work). After a press it waits WATCHDOG_SECONDS for the new marker, doubling the wait up to
WATCHDOG_BACKOFF times while presses bring nothing. A page whose route answers 404 (a server without the
route, or a key from another secret) presses every WATCHDOG_SECONDS * WATCHDOG_BACKOFF instead: it still
follows, slowly. ``window.__dtxFollow`` counts the polls, presses and their reasons (for tests and
benchmarks).

The script is inline, so the proxy's Content-Security-Policy (deploy/dtx-site.inc) allows it by its hash (a
test checks that they match); it reaches only this server (``connect-src 'self'``).
"""

from __future__ import annotations

import streamlit as st

from live.stage_route import PATH as STAGE_PATH

DRAWN_KEY = "join_drawn"
WATCHDOG_KEY = "join_watchdog"  # the script's frame: hidden by the page's CSS (it runs all the same)
W_WAKE = "_w_join_wake"
POLL_SECONDS = 1
WATCHDOG_SECONDS = 8
WATCHDOG_BUSY_SECONDS = 30
WATCHDOG_LOST_SECONDS = 3
WATCHDOG_BACKOFF = 4
TOUCH_SECONDS = 1.5  # a run request sent this soon after a touch (or a press) must end in a new marker
WATCHDOG_JS = ("<script>(function(){var W=window.parent,d=W.document,P=W.WebSocket.prototype,"
               "F=W.__dtxFollow=W.__dtxFollow||{polls:0,presses:0,why:[]},"
               "last=null,since=Date.now(),pressed=0,k=1,touched=0,seen=W.__dtxSent||0,expect=0,expMark=null,"
               "busySince=0,asking=false,want=null,fails=0,"
               "marker=function(){var e=d.querySelector('.st-key-%(drawn)s');return e?e.textContent.trim():null;};"
               # the page's websocket: when it last sent (a run request), the marker then, when it last got a message
               "if(!P.__dtxSend){var send=P.send;P.__dtxSend=send;P.send=function(){W.__dtxSent=Date.now();"
               "W.__dtxSentMark=marker();"
               "if(!this.__dtx){this.__dtx=1;this.addEventListener('message',function(){W.__dtxGot=Date.now();});}"
               "return send.apply(this,arguments);};}"
               "var touch=function(){touched=Date.now();};"
               "d.addEventListener('pointerdown',touch,true);d.addEventListener('keydown',touch,true);"
               "var num=function(x){return /^[0-9]+$/.test(x||'');},"
               "press=function(why){var w=d.querySelector('.st-key-%(wake)s button');if(!w)return;"
               "pressed=Date.now();touched=pressed;k=Math.min(2*k,%(backoff)d);F.presses+=1;F.why.push(why);"
               "F.why=F.why.slice(-20);w.click();},"
               "check=function(){var n=Date.now(),m=marker(),a=d.querySelector('[data-testid=stApp]'),"
               "busy=!!a&&a.getAttribute('data-test-script-state')==='running';"
               "if(!m)return;"
               "if(m!==last){last=m;since=n;k=1;want=null;}"
               "busySince=busy?(busySince||n):0;"
               "var s=W.__dtxSent||0;"
               "if(s>seen){seen=s;if(!expect&&s-touched<%(touch)d){expect=s;expMark=W.__dtxSentMark;}}"
               "if(expect&&m!==expMark)expect=0;"
               "var wait=%(silent)d*k,behind=(W.__dtxSent||0)>(W.__dtxGot||0)&&n-(W.__dtxSent||0)<wait,"
               "free=(!busy||n-busySince>%(busy)d*k)&&n-pressed>(pressed?wait/2:0)&&!behind,"
               "shown=m.split(' ')[1];"
               "if(!free)return;"
               # a newer stage (an older number is a cached answer from before the page's own run)
               "if(want!==null&&want!==shown&&!(num(want)&&num(shown)&&+want<+shown)){want=null;press('stage');return;}"
               # a run asked for that never ended: soon when the server sent since (another run's messages), else
               # only after the busy wait (a tap queued on a busy server has not been lost)
               "if(expect&&!busy&&n-expect>((W.__dtxGot||0)>expect?%(lost)d:%(busy)d*k)){expect=0;press('lost');return;}"
               "if(fails>=3&&n-since>%(silent)d*%(backoff)d&&n-pressed>%(silent)d*%(backoff)d)press('no route');},"
               "poll=function(){var m=marker();if(!m||asking)return;var f=m.split(' ');if(f.length<4)return;"
               "asking=true;var ctl=new W.AbortController(),t=setTimeout(function(){ctl.abort();},%(silent)d);"
               "W.fetch('%(path)s?room='+encodeURIComponent(f[2])+'&key='+encodeURIComponent(f[3]),"
               "{cache:'no-store',credentials:'same-origin',signal:ctl.signal})"
               ".then(function(r){if(r.status===404)fails+=1;if(!r.ok)throw 0;fails=0;return r.text();})"
               ".then(function(v){F.polls+=1;if(marker()===m){want=v.trim();check();}})"
               ".catch(function(){}).then(function(){clearTimeout(t);asking=false;});};"
               "setInterval(function(){check();poll();},%(poll)d);})();</script>"
               % {"drawn": DRAWN_KEY, "wake": W_WAKE, "backoff": WATCHDOG_BACKOFF, "touch": int(TOUCH_SECONDS * 1000),
                  "silent": WATCHDOG_SECONDS * 1000, "busy": WATCHDOG_BUSY_SECONDS * 1000,
                  "lost": WATCHDOG_LOST_SECONDS * 1000, "path": STAGE_PATH, "poll": POLL_SECONDS * 1000})


def drawn_marker(drawn: int, shown: int | str, code: str, key: str) -> None:
    """The page's last element (hidden, last so that it arrives after all of the run): the number of the full
    run that drew it, the stage it showed, the room's code and its stage-route key."""
    with st.container(key=DRAWN_KEY):
        st.text(f"{drawn:d} {shown} {code} {key}")


def watchdog() -> None:
    """The **Refresh** button (there for the student too) and the script that presses it."""
    st.button("Refresh", key=W_WAKE, type="tertiary", icon=":material/refresh:",
              help="The page follows the teacher by itself; this reads the class again now.")
    with st.container(key=WATCHDOG_KEY):
        st.iframe(WATCHDOG_JS, height=1)

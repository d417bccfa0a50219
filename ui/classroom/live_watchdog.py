"""The join page's watchdog: a student's page that stopped following the class wakes itself.

Two hidden texts carry what it compares: the poll's beat, ``<poll> <last full run drawn>``, redrawn by
the poll fragment every few seconds (:func:`beat`), and the page's last element, the number of the full
run that drew it (:func:`drawn_marker`). A script in a zero-height frame (:func:`watchdog`) checks them
every second and presses the page's **Refresh** (a full run, which arms the poll again and redraws
everything):

- when the beat has not changed for WATCHDOG_SECONDS: the poll stopped;
- when, WATCHDOG_LOST_CHECKS checks in a row with nothing running, the page does not end with the run
  the beat names: Streamlit dropped that run's messages. A tap or a Refresh gets a ScriptRunner of its
  own (``runner.fastReruns``); when the poll's timer request reaches the server after such a run
  finished but before its messages were sent, AppSession starts another runner for the poll and ignores
  the finished runner's queued events (its deltas and script_finished), so the browser keeps the page
  from before the run. Under load that lost a student's "Answer received" (stored all the same) until
  the next step: 1 of 120 taps in a one-process load run.

While a run is in progress the silent-poll wait is WATCHDOG_BUSY_SECONDS (a press would cancel that run,
perhaps a tap's: Streamlit stops a run for a newer one, and a tap's callback runs at its start); each
press that did not bring the page back doubles the waits, up to WATCHDOG_BACKOFF times; a touch of the
page starts the counts again.

A silent beat is not always a stopped poll: when the server (or the network) is slow, the poll's
requests go out and nothing comes back. A press then only adds a full run to the queue, and it cancels
the run the page waits for; in a load run of 40 students on one process every page pressed once at the
first step, which doubled the work of that step and made it 4 times slower than the next. So the script
watches the page's websocket (it wraps ``WebSocket.prototype.send`` of the page, once, and listens to
each socket's messages): while the page has sent within the wait and got nothing back within it, the
server is behind, and the watchdog waits with it (Streamlit itself reconnects a dead socket).

The script is inline, so deploy/nginx.conf's Content-Security-Policy allows it by its hash (a test
checks that they match).
"""

from __future__ import annotations

import streamlit as st

BEAT_KEY = "join_beat"
DRAWN_KEY = "join_drawn"
WATCHDOG_KEY = "join_watchdog"  # the script's frame: hidden by the page's CSS (it runs all the same)
W_WAKE = "_w_join_wake"
#: Streamlit's fragment timer can stop under load (1-3 of 40 students per two-replica load run)
WATCHDOG_SECONDS = 8
WATCHDOG_BUSY_SECONDS = 30
WATCHDOG_LOST_CHECKS = 3
#: a poll that stays stopped after a press gets one press per WATCHDOG_SECONDS * 4 at most, not one every
#: WATCHDOG_SECONDS (a busy server does not count: while the page waits on it, the script does not press)
WATCHDOG_BACKOFF = 4
WATCHDOG_JS = ("<script>(function(){var W=window.parent,d=W.document,P=W.WebSocket.prototype,"
               "last=null,since=Date.now(),lost=0,k=1;"
               # the page's websocket: when it last sent (a poll, a tap) and last got a message
               "if(!P.__dtxSend){var send=P.send;P.__dtxSend=send;P.send=function(){W.__dtxSent=Date.now();"
               "if(!this.__dtx){this.__dtx=1;this.addEventListener('message',function(){W.__dtxGot=Date.now();});}"
               "return send.apply(this,arguments);};}"
               "d.addEventListener('pointerdown',function(){since=Date.now();lost=0;},true);"
               "setInterval(function(){var q=function(s){var e=d.querySelector(s);return e?e.textContent.trim():null;},"
               "b=q('.st-key-%(beat)s'),a=d.querySelector('[data-testid=stApp]'),n=Date.now(),moved=b!==last,"
               "busy=!!a&&a.getAttribute('data-test-script-state')==='running',"
               "wait=(busy?%(busy)d:%(silent)d)*k,"
               "behind=n-(W.__dtxSent||0)<wait&&n-(W.__dtxGot||0)>wait;"
               "if(moved){last=b;since=n;}"
               "if(!busy)lost=b&&b.split(' ')[1]!==q('.st-key-%(drawn)s')?lost+1:0;"
               "if(moved&&!lost)k=1;"
               "if(lost>=%(lost)d*k||(n-since>wait&&!behind)){var w=d.querySelector('.st-key-%(wake)s button');"
               "if(w){w.click();since=n;lost=0;k=Math.min(2*k,%(backoff)d);}}"
               "},1000);})();</script>"
               % {"beat": BEAT_KEY, "drawn": DRAWN_KEY, "wake": W_WAKE, "lost": WATCHDOG_LOST_CHECKS,
                  "busy": WATCHDOG_BUSY_SECONDS * 1000, "silent": WATCHDOG_SECONDS * 1000,
                  "backoff": WATCHDOG_BACKOFF})


def _hidden_text(key: str, text: str) -> None:
    """A text in the container ``key`` (hidden by the join page's CSS) for the script to read."""
    with st.container(key=key):
        st.text(text)


def beat(poll: int, drawn: int) -> None:
    """The poll's beat: this poll's number and that of the last full run the server drew."""
    _hidden_text(BEAT_KEY, f"{poll:d} {drawn:d}")


def drawn_marker(drawn: int) -> None:
    """The page's last element: the number of the full run that drew it. Last, so that it arrives after
    all of the run."""
    _hidden_text(DRAWN_KEY, f"{drawn:d}")


def watchdog() -> None:
    """The **Refresh** button (there for the student too) and the script that presses it."""
    st.button("Refresh", key=W_WAKE, type="tertiary", icon=":material/refresh:",
              help="The page follows the teacher by itself; this reads the class again now.")
    with st.container(key=WATCHDOG_KEY):
        st.iframe(WATCHDOG_JS, height=1)

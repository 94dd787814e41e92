"""The evidence document of a hand (:func:`events.audit.evidence.evidence`) as a printable HTML
sheet: the cards drawn, the verdict per wager, disputes and findings, and every event with
its place in the log and its SHA-256.

One self-contained page: its style is inline, it names no font, script or image from
anywhere (a sheet opened years later, or offline, looks the same). Every text that came
from an event (ids, claims, reasons, rulesets) is escaped with :func:`html.escape`.

The digests: each event's SHA-256 is that of its canonical JSON (``encode_event``), and
``events_sha256`` (the document's) is that of those lines joined by newlines; the sheet
recomputes it from the events it carries and says whether it matches.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
import re
from collections.abc import Iterable, Mapping
from typing import Any

import msgspec

from events.contract.schemas import decode_event, encode_event
from events.localtime import check_zone, to_local, zone_name
from events.money import money, outcome_words

_STYLE = """
body{font:11pt/1.35 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:1.5em;color:#111}
h1{font-size:1.4em;margin:0 0 .2em}
h2{font-size:1.1em;margin:1.2em 0 .3em;border-bottom:1px solid #999}
table{border-collapse:collapse;width:100%;margin:.3em 0}
th,td{border:1px solid #bbb;padding:2px 5px;text-align:left;vertical-align:top}
th{background:#eee}td.n{text-align:right;white-space:nowrap}
.cards{font-size:1.25em;letter-spacing:.05em}.bad{background:#ffd6d6}.ok{background:#e3f5e1}
code{font:9pt ui-monospace,Menlo,Consolas,monospace;word-break:break-all}
.verdict{font-weight:bold;padding:.4em;border:2px solid #333;margin:.6em 0}
@media print{body{margin:0}h2{break-after:avoid}tr{break-inside:avoid}
 .noprint{display:none}}
"""


def _e(value: Any) -> str:
    return html.escape("" if value is None else str(value), quote=True)


def _money(cents: Any, currency: str) -> str:
    return money(None if cents is None else int(cents), currency, missing="—")


def event_digest(raw: Mapping[str, Any]) -> str:
    """SHA-256 of one event as the evidence document digests it (its canonical JSON)."""
    return hashlib.sha256(_canonical(raw)).hexdigest()


def _canonical(raw: Mapping[str, Any]) -> bytes:
    return encode_event(decode_event(msgspec.json.encode(raw)))


def digest_matches(doc: Mapping[str, Any]) -> bool:
    """Whether the events the document carries give its ``events_sha256``."""
    try:
        joined = b"\n".join(_canonical(raw) for raw in doc.get("events") or [])
    except (msgspec.DecodeError, msgspec.ValidationError, TypeError):
        return False
    return hashlib.sha256(joined).hexdigest() == doc.get("events_sha256")


def _rows(cells: Iterable[Iterable[str]], head: Iterable[str],
          marks: Iterable[str] | None = None) -> str:
    out = ["<table><tr>" + "".join(f"<th>{h}</th>" for h in head) + "</tr>"]
    marked = list(marks) if marks is not None else None
    for i, row in enumerate(cells):
        cls = f' class="{marked[i]}"' if marked and marked[i] else ""
        out.append(f"<tr{cls}>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>")
    return "\n".join(out) + "</table>"


def _cards(doc: Mapping[str, Any]) -> str:
    dealer = doc.get("dealer") or {}
    q = dealer.get("qualifies")
    rows = [["Board", f'<span class="cards">{_e(doc.get("board_glyphs"))}</span>',
             _e(" ".join(doc.get("board") or [])), "", ""],
            ["Dealer", f'<span class="cards">{_e(dealer.get("glyphs"))}</span>',
             _e(" ".join(dealer.get("cards") or [])), _e(dealer.get("hand") or "—"),
             "" if q is None else ("qualifies" if q else "does not qualify")]]
    for seat in doc.get("seats") or []:
        state = ("folded" if seat.get("folded") else
                 f"raised {_e(seat['raised'])}" if seat.get("raised") else "")
        rows.append([f"Seat {_e(seat['seat'])}",
                     f'<span class="cards">{_e(seat.get("hole_glyphs"))}</span>',
                     _e(" ".join(seat.get("hole") or [])), _e(seat.get("hand") or "unknown"),
                     state])
    return _rows(rows, ["", "Cards", "Codes", "Hand", ""])


def _settlement(doc: Mapping[str, Any], cur: str) -> str:
    cells, marks, verdicts = [], [], []
    for seat in doc.get("seats") or []:
        for c in seat.get("settlement") or []:
            cells.append([_e(seat["seat"]), _e(c["spot"]), _money(c["stake"], cur),
                          _e(outcome_words(c["correct_outcome"], c["correct_amount"])),
                          _e(outcome_words(c["recorded_outcome"], c["recorded_amount"])),
                          _e(c["verdict"]), _e(c["reason"])])
            marks.append("ok" if c["verdict"] == "correct" else "bad")
        verdicts.append(f"<li>{_e(seat.get('verdict'))}</li>")
    if not cells:
        return "<p>No wager was settled.</p>"
    return (_rows(cells, ["Seat", "Spot", "Stake", "Correct", "Recorded", "Verdict", "Why"],
                  marks) + f"<ul>{''.join(verdicts)}</ul>")


def _when(text: Any, zone: str) -> str:
    if zone == "UTC" or not isinstance(text, str):
        return _e(text)
    try:
        local = to_local(text, zone).strftime("%Y-%m-%d %H:%M:%S.%f")[:-3]
    except ValueError:
        return _e(text)
    return f"{_e(local)}<br><small>{_e(text)}</small>"


def _steps(doc: Mapping[str, Any], positions: Mapping[str, str], zone: str) -> str:
    raw_of = {str(r.get("event_id")): r for r in doc.get("events") or []}
    cells = []
    for step in doc.get("steps") or []:
        eid = str(step["event_id"])
        try:
            digest = event_digest(raw_of[eid]) if eid in raw_of else "—"
        except (msgspec.DecodeError, msgspec.ValidationError, TypeError):
            digest = "does not decode"
        found = "".join(f"<br><b>! {_e(f['kind'])}</b>: {_e(f['detail'])}"
                        for f in step.get("findings") or [])
        cells.append([_e(step["n"]), _e(step["seq"]), _e(positions.get(eid, "—")),
                      _when(step["occurred_at"], zone), _e(step["type"]), _e(step["text"]) + found,
                      f"<code>{_e(eid)}</code><br><code>{_e(digest)}</code>"])
    when = "Time (UTC)" if zone == "UTC" else f"Time ({_e(zone)}; UTC below)"
    return _rows(cells, ["#", "Seq", "Log position", when, "Event", "What happened",
                         "Event id / SHA-256"])


def render_html(doc: Mapping[str, Any], positions: Mapping[str, str] | None = None,
                zone: str | None = None) -> str:
    """The printable sheet of an evidence document; ``positions`` maps an event id to
    where it sits in the log (a line number, a partition and offset). Event times are
    shown in ``zone`` (``UTH_TIMEZONE`` by default) beside the contract's UTC."""
    zone = zone_name() if zone is None else check_zone(zone)
    rules = doc.get("rules") or {}
    cur = str(rules.get("currency") or "")
    title = f"Evidence: hand {_e(doc.get('hand_id'))}"
    head = [f"Table <b>{_e(doc.get('table_id'))}</b>", f"dealer <b>{_e(doc.get('dealer_id'))}</b>"]
    if doc.get("shoe_id"):
        head.append(f"shoe {_e(doc['shoe_id'])}")
    if rules:
        head.append(f"rules {_e(rules.get('ruleset'))} ({_e(rules.get('title') or 'unknown')})"
                    f", {_e(cur)}")
    head.append(f"started {_e(doc.get('started_at'))}, ended {_e(doc.get('ended_at'))}")
    head.append(f"status <b>{_e(doc.get('status'))}</b>")
    if doc.get("void_reason"):
        head.append(f"voided: {_e(doc['void_reason'])}")
    parts = [f"<h1>{title}</h1>", f"<p>{' · '.join(head)}</p>",
             f'<div class="verdict">Verdict: {_e(doc.get("verdict"))}</div>',
             "<h2>Cards drawn</h2>", _cards(doc),
             "<h2>Settlement per wager: correct against recorded</h2>", _settlement(doc, cur)]
    disputes = doc.get("disputes") or []
    if disputes:
        parts.append("<h2>Disputes</h2>")
        parts.append(_rows(
            [[_e(d["seat"]), _e(d["status"]), _e(d.get("occurred_at")), _e(d["claim"]),
              _e(d.get("resolution") or ""), _money(d.get("adjustment"), cur), _e(d["verdict"])]
             for d in disputes],
            ["Seat", "Status", "Opened", "Claim", "Resolution", "Adjustment", "Verdict"]))
    findings = doc.get("findings") or []
    parts.append("<h2>Findings</h2>")
    parts.append(_rows([[_e(f.get("kind")), _e(f.get("seat")), _e(f.get("spot")),
                         _e(f.get("detail"))] for f in findings],
                       ["Kind", "Seat", "Spot", "Detail"]) if findings else "<p>None.</p>")
    parts.append(f"<h2>Every event ({_e(doc.get('event_count'))})</h2>")
    parts.append(_steps(doc, positions or {}, zone))
    checked = ("recomputed from the events above: it matches" if digest_matches(doc)
               else "<b>does NOT match the events above</b>")
    parts.append(f"<h2>Digests</h2><p>SHA-256 of the hand's events (each event's canonical "
                 f"JSON, one per line): <code>{_e(doc.get('events_sha256'))}</code> — "
                 f"{checked}.</p><p>Document {_e(doc.get('document'))} version "
                 f"{_e(doc.get('version'))}."
                 " The JSON evidence (<code>uth replay HAND --json</code>) carries the same "
                 "events in full.</p>")
    parts.append(_proof(doc))
    # the document itself, as inert data (base64 in a meta element: no markup, no script),
    # so that the sheet alone can be checked: ``uth verify --evidence SHEET.html`` proves
    # the document and renders the sheet from it again
    carried = json.dumps({"document": doc, "positions": dict(positions or {}), "zone": zone},
                         sort_keys=True).encode("utf-8")
    packed = base64.b64encode(carried).decode("ascii").rstrip("=")
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f'<meta name="{EMBEDDED_NAME}" content="{packed}">'
            f"<title>{title}</title><style>{_STYLE}</style></head><body>\n"
            + "\n".join(parts) + "\n</body></html>\n")


EMBEDDED_NAME = "uth-evidence"
_EMBEDDED = re.compile(r'<meta name="uth-evidence" content="([A-Za-z0-9+/]*)">')


def embedded(html_text: str) -> tuple[dict[str, Any], dict[str, str], str] | None:
    """The evidence document a printed sheet carries, with the positions and zone it was
    rendered with (None when it carries none)."""
    found = _EMBEDDED.search(html_text)
    if found is None:
        return None
    packed = found.group(1)
    try:
        carried = json.loads(base64.b64decode(packed + "=" * (-len(packed) % 4)))
        return dict(carried["document"]), dict(carried["positions"]), str(carried["zone"])
    except (ValueError, KeyError, TypeError):
        return None


def _proof(doc: Mapping[str, Any]) -> str:
    """The tamper-evidence section: the signed seal the hand's events are proved against."""
    proof = doc.get("inclusion_proof")
    if not isinstance(proof, Mapping):
        why = doc.get("inclusion_proof_missing") or (
            "this sheet was not printed from a sealed log (uth replay HAND --source LOG "
            "--html FILE, on a log sealed with uth seal, adds one)")
        return f"<h2>Tamper evidence</h2><p>No inclusion proof: {_e(why)}.</p>"
    try:
        seal = json.loads(proof["seal"]["body"])
    except (KeyError, TypeError, ValueError):
        seal = {}
    rows = [[_e(e.get("event_id")), _e(e.get("seq")), _e(e.get("leaf_index")),
             _e(len(e.get("path") or []))] for e in proof.get("events") or []]
    from events.ledger.proof import check_paths

    failed = check_paths(dict(proof)).problems
    if failed:
        return ("<h2>Tamper evidence</h2><p><strong>The inclusion proof FAILS: the log was "
                f"changed after seal {_e(seal.get('number'))}. This sheet proves nothing; "
                "what failed:</strong></p><ul>"
                + "".join(f"<li>{_e(p)}</li>" for p in failed) + "</ul>"
                + _rows(rows, ["Event id", "Seq", "Leaf", "Path length"]))
    return ("<h2>Tamper evidence</h2>"
            f"<p>Every event above is proved a member of table {_e(proof.get('table_id'))}'s "
            f"tree of {_e(proof.get('tree_size'))} events, whose root seal "
            f"{_e(seal.get('number'))} (sealed {_e(seal.get('sealed_at'))}, key "
            f"{_e(seal.get('key_id'))}) signs. Anyone "
            "holding the casino's public key checks this sheet with nothing else: "
            "<code>uth verify --evidence THIS-FILE.html --public-key KEY.pub</code>.</p>"
            + _rows(rows, ["Event id", "Seq", "Leaf", "Path length"]))

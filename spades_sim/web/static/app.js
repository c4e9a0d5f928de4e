// The analyser and the deal viewer: plain JavaScript, no library, nothing fetched from
// elsewhere. One analysis at a time per tab: the tab's id goes with every request, and
// the server cancels the tab's previous analysis when a new one starts.
"use strict";
const tab = sessionStorage.getItem("spades-sim-tab") ||
  (() => { const t = "t" + Math.random().toString(36).slice(2, 12); sessionStorage.setItem("spades-sim-tab", t); return t; })();
const $ = (sel) => document.querySelector(sel);
let current = null;  // the job this tab waits for

function formData(form) {
  const data = { tab: tab };
  for (const el of form.elements) {
    if (!el.name) continue;
    if (el.type === "checkbox") { if (el.checked) data[el.name] = el.value; }
    else data[el.name] = el.value.trim();
  }
  return data;
}

function showMessage(text) {
  const m = $("#message");
  m.textContent = text || "";
  m.hidden = !text;
}

async function startJob(url, data, onDone) {
  showMessage("");
  const response = await fetch(url, {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(data),
  });
  const answer = await response.json();
  if (!response.ok) { showMessage(answer.error); return null; }
  current = answer.job;
  $("#progress").hidden = false;
  $("#cancel").hidden = false;
  poll(answer.job, onDone);
  return answer;
}

async function poll(job, onDone) {
  if (job !== current) return;
  const response = await fetch("/api/job/" + job);
  const s = await response.json();
  if (job !== current) return;
  if (!response.ok) { finish(); showMessage(s.error); return; }
  if (s.html && $("#results")) $("#results").innerHTML = s.html;
  $("#progress span").textContent = s.state === "running"
    ? `${s.step}… (step ${s.done + 1} of ${s.total}, ${s.seconds.toFixed(1)} s)` : s.state + "…";
  if (s.state === "done") { finish(); onDone(s); }
  else if (s.state === "failed") { finish(); showMessage(s.error); }
  else if (s.state === "cancelled") { finish(); showMessage("Cancelled."); }
  else setTimeout(() => poll(job, onDone), 150);
}

function finish() {
  current = null;
  $("#progress").hidden = true;
  $("#cancel").hidden = true;
}

function setupCancel() {
  $("#cancel").addEventListener("click", async () => {
    const job = current;
    if (!job) return;
    finish();
    await fetch("/api/job/" + job + "/cancel", { method: "POST" });
    showMessage("Cancelled.");
  });
}

// ---- the analyser ----
function setupAnalyser(form) {
  const hand = $("#hand");
  const picked = () => [...document.querySelectorAll(".card.on")].map((b) => b.dataset.card);
  const syncFromPicker = () => {
    const bySuit = { S: "", H: "", D: "", C: "" };
    for (const c of picked()) bySuit[c[1]] += c[0];
    const n = picked().length;
    hand.value = n ? `${bySuit.S}.${bySuit.H}.${bySuit.D}.${bySuit.C}` : "";
    $("#count").textContent = `${n} card${n === 1 ? "" : "s"}`;
  };
  const syncFromText = () => {
    const cards = new Set(parseHand(hand.value));
    for (const b of document.querySelectorAll(".card")) b.classList.toggle("on", cards.has(b.dataset.card));
    $("#count").textContent = `${cards.size} card${cards.size === 1 ? "" : "s"}`;
  };
  for (const b of document.querySelectorAll(".card")) {
    b.addEventListener("click", () => { b.classList.toggle("on"); syncFromPicker(); });
  }
  hand.addEventListener("input", syncFromText);
  $("#clear").addEventListener("click", () => { hand.value = ""; syncFromText(); });
  syncFromText();
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    $("#results").innerHTML = "";
    const data = formData(form);
    const answer = await startJob("/api/analyse", data, (s) => { $("#results").innerHTML = s.html; });
    if (answer) {
      const link = $("#permalink");
      link.href = answer.permalink;
      link.hidden = false;
      history.replaceState(null, "", answer.permalink);
    }
  });
  if (form.dataset.autostart) form.requestSubmit();
}

// Cards as the picker names them (AS, TD) from either notation; what the server refuses
// (a card twice, a wrong count) it says itself.
function parseHand(text) {
  text = text.trim().toUpperCase().replace(/10/g, "T");
  if (!text) return [];
  if (text.includes(".")) {
    const out = [];
    text.split(".").forEach((holding, i) => {
      for (const r of holding.replace(/\s/g, "")) out.push(r + "SHDC"[i]);
    });
    return out;
  }
  return text.split(/[\s,]+/).filter(Boolean).map((c) => c.replace(/[♠]/, "S").replace(/[♥]/, "H").replace(/[♦]/, "D").replace(/[♣]/, "C"));
}

// ---- the deal viewer ----
function setupViewer(form) {
  let deal = null;
  let at = 0;  // cards played shown
  const cardSpan = (name, cls, title) => `<span class="c ${cls}" data-card="${name}"${title ? ` title="${title}"` : ""}>${name}</span>`;
  const render = () => {
    const played = new Set(deal.steps.slice(0, at).map((s) => s.card));
    const next = at < deal.steps.length ? deal.steps[at] : deal.next;
    const values = next ? next.values : {};
    const best = Math.max(...Object.values(values));
    let html = "";
    for (const seat of ["N", "E", "S", "W"]) {
      const bid = deal.bids[seat];
      const last = at ? deal.steps[at - 1] : null;
      const nil = last && seat in last.nil_safe ? last.nil_safe[seat] : deal.nil_safe_opening[seat];
      const nilText = nil === undefined ? "" : nil ? " <em class=safe>nil safe</em>" : " <em class=lost>nil not safe</em>";
      const cards = deal.hands[seat].filter((c) => !played.has(c)).map((c) => {
        if (next && next.seat === seat && c in values) {
          const v = values[c];
          return cardSpan(c, v === best ? "legal best" : "legal", `${v} tricks`) + `<sub>${v}</sub>`;
        }
        return cardSpan(c, "", "");
      }).join(" ");
      html += `<div class="seat seat-${seat}"><b>${seat}</b>${bid === null ? "" : " bid " + bid}${nilText}${next && next.seat === seat ? " ← to play" : ""}<br>${cards}</div>`;
    }
    // the current trick (or the last one completed)
    const start = Math.floor(Math.max(at - 1, 0) / 4) * 4;
    const trick = deal.steps.slice(start, at).map((s) =>
      `${s.seat} ${cardSpan(s.card, s.played < s.best ? "cost" : "", "")}${s.played < s.best ? `<sub>−${s.best - s.played}</sub>` : ""}`).join(" · ");
    const won = at ? deal.steps[at - 1].won : [0, 0];
    html += `<div class="trick">Trick ${Math.floor(Math.max(at - 1, 0) / 4) + 1}: ${trick || "—"}<br>Tricks N-S ${won[0]}, E-W ${won[1]}` +
      (at === 52 && deal.scores ? `<br>Score this hand: N-S ${deal.scores[0]}, E-W ${deal.scores[1]}` : "") + "</div>";
    $("#table").innerHTML = html;
    $("#where").textContent = `${at} of ${deal.steps.length} cards`;
  };
  const go = (k) => { at = Math.max(0, Math.min(deal.steps.length, k)); render(); };
  $("#first").addEventListener("click", () => go(0));
  $("#prev").addEventListener("click", () => go(at - 1));
  $("#next").addEventListener("click", () => go(at + 1));
  $("#nexttrick").addEventListener("click", () => go(Math.floor(at / 4) * 4 + 4));
  $("#last").addEventListener("click", () => go(deal.steps.length));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    $("#viewer").hidden = true;
    await startJob("/api/deal", formData(form), (s) => {
      deal = s.deal;
      $("#source").textContent = `${deal.source}; dealer ${deal.dealer}, ${deal.leader} leads.`;
      $("#viewer").hidden = false;
      go(0);
    });
  });
  if (form.dataset.autostart) form.requestSubmit();
}

const analyser = $("#analyser");
const viewer = $("#dealform");
if (analyser || viewer) setupCancel();
if (analyser) setupAnalyser(analyser);
if (viewer) setupViewer(viewer);

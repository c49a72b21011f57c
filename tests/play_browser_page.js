// `oc play`'s page in headless Chromium, shared by tests/play_browser.js and
// tests/play_browser_steps.js: opened (its console and page errors pushed to `errors`), waited on
// until it settles, a unit's tile read off it, and the game quit.
"use strict";
const { chromium } = require("playwright-core");

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function open(url, errors) {
  const browser = await chromium.launch({ executablePath: process.env.OC_CHROMIUM || "/usr/bin/chromium", args: ["--no-sandbox"] });
  const page = await browser.newPage({ viewport: { width: 1200, height: 720 } });
  page.on("console", (m) => { if (m.type() === "error") errors.push("console: " + m.text()); });
  page.on("pageerror", (e) => errors.push("page error: " + e.message));
  await page.goto(url);
  await page.waitForSelector("body[data-ready='1']", { timeout: 20000 });
  // Nothing in flight, and the victory line shown or the person's turn.
  const settled = async () => {
    await page.waitForFunction(() => {
      if (document.body.hasAttribute("data-busy")) return false;
      const v = document.querySelector("[data-testid=victory]");
      const t = document.querySelector("[data-testid=turn]").textContent;
      return (v && !v.hidden) || t.startsWith("Your turn");
    }, null, { timeout: 30000 });
    await sleep(150);
  };
  const tileOf = async (sel) => [Number(await page.getAttribute(sel, "data-x")), Number(await page.getAttribute(sel, "data-y"))];
  // Ends the game (the server stops) and closes the browser.
  const quit = async () => {
    await page.evaluate(async () => {
      const token = new URLSearchParams(location.search).get("token");
      // Once more where no answer came (a connection the server closed as it was used).
      const quit = () => fetch("/api/quit", { method: "POST", headers: { "X-OC-Token": token }, body: "{}" });
      await quit().catch(quit);
    });
    await browser.close();
  };
  return { page, settled, tileOf, quit };
}

// The square of `reach` nearest the enemy at `foe` (not its own), ties by place; `null` where it
// brings the unit at `me` no nearer.
const d = (a, b) => Math.abs(a[0] - b[0]) + Math.abs(a[1] - b[1]);
function nearer(reach, me, foe) {
  const best = reach.filter((t) => d(t, foe) > 0).sort((a, b) => d(a, foe) - d(b, foe) || a[0] - b[0] || a[1] - b[1])[0];
  return best && d(best, foe) < d(me, foe) ? best : null;
}

// Waits until the selected unit is drawn on square `t`.
async function drawnAt(page, t) {
  await page.waitForFunction((at) => {
    const g = document.querySelector("g.unit.selected");
    return g && g.getAttribute("data-x") + "," + g.getAttribute("data-y") === at;
  }, t.join(","));
}

module.exports = { open, sleep, nearer, drawnAt };

// Plays a whole small battle on `oc play`'s page in headless Chromium, as a person would: select
// the unit, move next to the enemy, read the forecast, attack, end the turn, until the victory
// line; after two turns the page is opened again and lists the same lines. Run by
// tests/play_browser.rs: node play_browser.js URL SHOT.png
"use strict";
const { open, sleep, nearer, drawnAt } = require("./play_browser_page.js");

const [url, shot] = process.argv.slice(2);
const errors = [];

(async () => {
  const { page, settled, tileOf, quit } = await open(url, errors);
  let forecasts = 0, attacks = 0, moves = 0, ends = 0, shotTaken = false, reloaded = null;
  const lines = () => page.$$eval("#steps li", (els) => els.map((e) => e.textContent));
  for (let round = 0; round < 40; round++) {
    await settled();
    if (await page.isVisible("[data-testid=victory]")) break;
    // Opened again after a turn: the page lists the game so far, not only the last turn.
    if (round === 2) {
      const before = await lines();
      await page.reload();
      await page.waitForSelector("body[data-ready='1']", { timeout: 20000 });
      await settled();
      const after = await lines();
      reloaded = [before.length, after.length];
      if (JSON.stringify(after) !== JSON.stringify(before)) errors.push(`the page opened again lists ${JSON.stringify(after)}, not ${JSON.stringify(before)}`);
    }
    // Select: the unit ringed in gold.
    await page.click("g.unit.may-act");
    await page.waitForSelector("g.unit.selected");
    await settled();
    const me = await tileOf("g.unit.selected");
    const enemy = "g.unit.defender";
    const foe = await tileOf(enemy);
    const reach = await page.$$eval("[data-testid^=reach-]", (els) => els.map((e) => e.getAttribute("data-testid").split("-").slice(1).map(Number)));
    const best = nearer(reach, me, foe);
    // Move: next to the enemy if it can, else as near as it can.
    if (best) {
      await page.click(`[data-testid=tile-${best[0]}-${best[1]}]`);
      await drawnAt(page, best);
      moves++;
    }
    await sleep(200);
    // Forecast, then attack; else end the turn.
    const targets = await page.$$eval(".target", (els) => els.length);
    if (targets > 0) {
      await page.click(enemy, { force: true });
      await page.waitForSelector("[data-testid=forecast-line]");
      const line = await page.textContent("[data-testid=forecast-line]");
      if (!/routed with \d+% chance/.test(line)) errors.push("the forecast does not say the rout chance: " + line);
      const table = await page.textContent("[data-testid=forecast]");
      for (const word of ["hit", "crit", "damage", "strikes"]) if (!table.includes(word)) errors.push(`the forecast has no ${word}: ${table}`);
      forecasts++;
      if (!shotTaken) { await page.screenshot({ path: shot }); shotTaken = true; }
      await page.click("[data-testid=confirm-attack]");
      attacks++;
    } else {
      await page.click("[data-testid=end]");
      ends++;
    }
  }
  await settled();
  const victory = (await page.isVisible("[data-testid=victory]")) ? await page.textContent("[data-testid=victory]") : "";
  if (!victory) errors.push("no victory line after the game");
  const steps = await page.$$eval("#steps li", (els) => els.length);
  if (!shotTaken) await page.screenshot({ path: shot });
  await quit();
  console.log(JSON.stringify({ victory, forecasts, attacks, moves, ends, steps, reloaded, errors }));
  process.exit(errors.length ? 1 : 0);
})().catch((e) => { console.log(JSON.stringify({ errors: [...errors, String(e && e.stack || e)] })); process.exit(1); });

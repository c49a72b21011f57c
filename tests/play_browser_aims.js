// What the page offers a unit, in headless Chromium (tests/play_browser.rs): on the throne field
// of crates/oc-play/tests/play/aims (seed 6), no Seize off the throne and Seize on it; the
// priest's heal with Ephraim beside at full HP says it heals nothing and marks him apart; a
// click on a unit the heal cannot be taken on is refused on the page, no turn played; beside
// Garcia, hurt, the heal marks him and is played on a click.
// Run by tests/play_browser.rs: node play_browser_aims.js URL SHOT.png
"use strict";
const { open, drawnAt } = require("./play_browser_page.js");

const [url, shot] = process.argv.slice(2);
const errors = [];

(async () => {
  const { page, settled, quit } = await open(url, errors);
  const r = {};
  const has = async (sel) => (await page.$(sel)) !== null;
  const steps = () => page.$$eval("#steps li", (els) => els.map((e) => e.textContent));
  const select = async (k) => {
    await page.click(`[data-testid=unit-${k}]`);
    await page.waitForSelector(`g.unit.selected[data-testid=unit-${k}]`);
    await settled();
  };
  const moveTo = async (x, y) => { await page.click(`[data-testid=tile-${x}-${y}]`); await drawnAt(page, [x, y]); await settled(); };
  await settled();
  // Ephraim: Seize on the throne only.
  await select(0);
  r.seizeOff = await has("[data-testid=action-Seize]");
  await moveTo(2, 1);
  r.seizeOn = await has("[data-testid=action-Seize]");
  await page.click("[data-testid=undo]");
  await drawnAt(page, [0, 1]);
  await settled();
  await page.click("[data-testid=deselect]");
  // The priest: its heal on Ephraim at full HP, and its Vulnerary at full HP, heal nothing.
  await select(1);
  r.healLabel = await page.textContent("[data-testid=action-Heal]");
  r.itemLabel = await page.textContent("[data-testid=use-Vulnerary]");
  await page.click("[data-testid=action-Heal]");
  await page.waitForSelector("[data-testid=aim-0]");
  r.idleMarked = (await page.getAttribute("[data-testid=aim-0]", "class")).includes("idle");
  r.aiming = await page.textContent("[data-testid=aiming]");
  const before = (await steps()).length;
  await page.click("[data-testid=unit-3]", { force: true });
  await page.waitForSelector("[data-testid=refusal]:not([hidden])");
  r.refusal = await page.textContent("[data-testid=refusal]");
  r.nothingPlayed = (await steps()).length === before;
  await page.click("[data-testid=deselect]");
  // Garcia strikes Bone and is struck back; the priest comes beside him and heals him.
  await select(2);
  await moveTo(3, 1);
  await page.click("[data-testid=unit-3]", { force: true });
  await page.waitForSelector("[data-testid=confirm-attack]");
  await page.click("[data-testid=confirm-attack]");
  await settled();
  await select(1);
  await moveTo(3, 0);
  await page.click("[data-testid=action-Heal]");
  await page.waitForSelector("[data-testid=aim-2]");
  r.hurtMarked = !(await page.getAttribute("[data-testid=aim-2]", "class")).includes("idle");
  await page.screenshot({ path: shot });
  await page.click("[data-testid=unit-2]", { force: true });
  await settled();
  r.healed = (await steps()).find((s) => s.startsWith("Moulder")) || "";
  await quit();
  console.log(JSON.stringify({ ...r, errors }));
  process.exit(errors.length ? 1 : 0);
})().catch((e) => { console.log(JSON.stringify({ errors: [...errors, String(e && e.stack || e)] })); process.exit(1); });

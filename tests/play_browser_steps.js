// Stages steps before the move and divides a unit on `oc play`'s page in headless Chromium, as a
// person would (crates/oc-play/tests/play/steps/drill.oc, Battlestorm with formations): the mixed
// unit reads "Spears (4 of 4) + Fenth" with its bar at most full; a formation staged before the
// move is listed, reaches a square farther, is undone and staged again, and the move and the
// wait after it play as one turn; the spearmen divide and the unit divided off is drawn. Run by
// tests/play_browser.rs: node play_browser_steps.js URL SHOT.png
"use strict";
const { open } = require("./play_browser_page.js");

const [url, shot] = process.argv.slice(2);
const errors = [];

(async () => {
  const { page, settled, tileOf, quit } = await open(url, errors);
  const unit = (name) => `g.unit[data-name="${name}"]`;
  const reach = () => page.$$eval("[data-testid^=reach-]", (els) => els.map((e) => e.getAttribute("data-testid").split("-").slice(1).map(Number)));
  const far = (me, ts) => Math.max(...ts.map((t) => Math.abs(t[0] - me[0]) + Math.abs(t[1] - me[1])));
  const report = { mixed: "", bar: null, reach: [], staged: "", played: "", divided: false };
  await settled();

  // The mixed unit: its bodies in its title, its bar never past full.
  report.mixed = await page.textContent(unit("Spears") + " > title");
  if (!report.mixed.includes("Spears (4 of 4) + Fenth")) errors.push("the mixed unit's title: " + report.mixed);
  const k = await page.getAttribute(unit("Spears"), "data-testid");
  report.bar = Number(await page.getAttribute(`[data-testid=hpbar-${k.split("-")[1]}]`, "data-frac"));
  if (!(report.bar > 0 && report.bar <= 1)) errors.push("the bar: " + report.bar);

  // A formation staged before the move: listed, one square farther, undone, staged again.
  await page.click(unit("Spears") + ".may-act");
  await page.waitForSelector(unit("Spears") + ".selected");
  await settled();
  const me = await tileOf(unit("Spears"));
  const shown = await page.textContent("[data-testid=unit-shown]");
  if (!shown.includes("+ Fenth")) errors.push("the unit panel: " + shown);
  const r0 = far(me, await reach());
  await page.click("[data-testid=action-FormOpen]");
  await page.waitForSelector("[data-testid=staged-steps]");
  await settled();
  report.staged = await page.textContent("[data-testid=staged-steps]");
  if (!report.staged.includes("OpenOrder")) errors.push("the staged step: " + report.staged);
  const opened = await reach();
  const r1 = far(me, opened);
  report.reach = [r0, r1];
  if (r1 !== r0 + 1) errors.push(`open order reaches ${r1}, not ${r0 + 1}`);
  await page.click("[data-testid=undo]");
  await page.waitForFunction(() => !document.querySelector("[data-testid=staged-steps]"));
  await settled();
  if (far(me, await reach()) !== r0) errors.push("undo kept the formation's reach");
  await page.click("[data-testid=action-FormOpen]");
  await page.waitForSelector("[data-testid=staged-steps]");
  await settled();
  const to = opened.filter((t) => Math.abs(t[0] - me[0]) + Math.abs(t[1] - me[1]) === r1).sort((a, b) => a[0] - b[0] || a[1] - b[1])[0];
  await page.click(`[data-testid=tile-${to[0]}-${to[1]}]`);
  await page.waitForFunction((t) => {
    const g = document.querySelector("g.unit.selected");
    return g && g.getAttribute("data-x") + "," + g.getAttribute("data-y") === t;
  }, to.join(","));
  if (await page.$("[data-testid=action-FormMob]")) errors.push("a step is offered after the move");
  await page.screenshot({ path: shot });
  await page.click("[data-testid=wait]");
  await settled();
  report.played = (await page.$$eval("#steps li", (els) => els.map((e) => e.textContent))).find((l) => l.startsWith("Spears")) || "";
  if (!report.played.includes("OpenOrder")) errors.push("the turn's line: " + report.played);

  // The spearmen divide, when they may act again: the unit divided off is drawn.
  for (let n = 0; n < 30 && !report.divided; n++) {
    await settled();
    if (await page.isVisible("[data-testid=victory]")) break;
    if (await page.$(unit("Spears") + ".may-act")) {
      await page.click(unit("Spears") + ".may-act");
      await page.waitForSelector("[data-testid=action-Divide]");
      await page.click("[data-testid=action-Divide]");
      await page.waitForSelector(unit("Spears 2"), { timeout: 30000 });
      report.divided = true;
    } else {
      await page.click("g.unit.may-act");
      await page.waitForSelector("g.unit.selected");
      await page.click("[data-testid=end]");
    }
  }
  if (!report.divided) errors.push("the spearmen never divided");
  await quit();
  console.log(JSON.stringify({ ...report, errors }));
  process.exit(errors.length ? 1 : 0);
})().catch((e) => { console.log(JSON.stringify({ errors: [...errors, String(e && e.stack || e)] })); process.exit(1); });

// Plays a whole small battle on `oc play`'s page with the keyboard alone, as a player who uses
// no mouse: Tab to the board, N to select the unit that may act, the arrow keys to walk the
// cursor next to the enemy, Enter to move there, the cursor onto the enemy and Enter for the
// forecast (its Attack button takes the focus), Enter to attack; E ends the turn where no enemy
// is in reach. What the cursor reads out goes to a live region. Run by tests/play_browser.rs:
// node play_browser_keys.js URL SHOT.png
"use strict";
const { open, sleep, nearer, drawnAt } = require("./play_browser_page.js");

const [url, shot] = process.argv.slice(2);
const errors = [];

(async () => {
  const { page, settled, tileOf, quit } = await open(url, errors);
  let attacks = 0, moves = 0, ends = 0, announced = 0;
  // The board is reached with Tab from the top of the page.
  let focused = false;
  for (let k = 0; k < 12 && !focused; k++) {
    await page.keyboard.press("Tab");
    focused = await page.evaluate(() => document.activeElement && document.activeElement.id === "board");
  }
  if (!focused) errors.push("Tab never reaches the board");
  const cursor = async () => {
    const c = await page.$("[data-testid=cursor]");
    return c ? [Number(await c.getAttribute("data-x")), Number(await c.getAttribute("data-y"))] : null;
  };
  // Walks the cursor to `to` with the arrow keys.
  const walk = async (to) => {
    for (let k = 0; k < 80; k++) {
      const at = await cursor();
      if (!at) { await page.keyboard.press("ArrowRight"); continue; }
      if (at[0] === to[0] && at[1] === to[1]) return true;
      await page.keyboard.press(at[0] < to[0] ? "ArrowRight" : at[0] > to[0] ? "ArrowLeft" : at[1] < to[1] ? "ArrowDown" : "ArrowUp");
    }
    return false;
  };
  for (let round = 0; round < 40; round++) {
    await settled();
    if (await page.isVisible("[data-testid=victory]")) break;
    await page.keyboard.press("n");
    await page.waitForSelector("g.unit.selected");
    await settled();
    const me = await tileOf("g.unit.selected");
    const foe = await tileOf("g.unit.defender");
    if ((await page.textContent("[data-testid=announce]")).length > 0) announced++;
    const reach = await page.$$eval("[data-testid^=reach-]", (els) => els.map((e) => e.getAttribute("data-testid").split("-").slice(1).map(Number)));
    const best = nearer(reach, me, foe);
    if (best) {
      if (!(await walk(best))) { errors.push("the cursor never reached " + best); break; }
      await page.keyboard.press("Enter");
      await drawnAt(page, best);
      moves++;
    }
    await sleep(200);
    if ((await page.$$eval(".target", (els) => els.length)) > 0) {
      if (!(await walk(foe))) { errors.push("the cursor never reached the enemy"); break; }
      await page.keyboard.press("Enter");
      await page.waitForSelector("[data-testid=forecast-line]");
      const onAttack = await page.evaluate(() => document.activeElement && document.activeElement.getAttribute("data-testid"));
      if (onAttack !== "confirm-attack") errors.push("the forecast's Attack button does not take the focus: " + onAttack);
      await page.keyboard.press("Enter");
      attacks++;
    } else {
      await page.keyboard.press("e");
      ends++;
    }
    await settled();
    const back = await page.evaluate(() => document.activeElement && document.activeElement.id);
    if (back !== "board" && !(await page.isVisible("[data-testid=victory]"))) errors.push("the focus did not come back to the board: " + back);
  }
  await settled();
  const victory = (await page.isVisible("[data-testid=victory]")) ? await page.textContent("[data-testid=victory]") : "";
  if (!victory) errors.push("no victory line after the game");
  await page.screenshot({ path: shot });
  await quit();
  console.log(JSON.stringify({ victory, attacks, moves, ends, announced, errors }));
  process.exit(errors.length ? 1 : 0);
})().catch((e) => { console.log(JSON.stringify({ errors: [...errors, String(e)] })); process.exit(1); });

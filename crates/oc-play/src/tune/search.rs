//! The search for a 50% attacker win rate. Each setting is compiled from its text (so what is
//! measured is what `--write` would write) and played in growing batches that stop as soon as
//! the 95% interval leaves 50% (a sequential test), or at the per-setting cap, where a setting
//! whose interval still holds 50% is fair. Monotone ladders are searched by galloping then
//! bisection. Games are shared where that is sound: settings that differ only in war chests
//! play the same games (the engine never reads a chest), and every time limit is read off the
//! same games played to the longest one, checked against games played to the chosen limit.

use std::collections::HashMap;
use std::rc::Rc;

use oc_compiler::Workspace;
use oc_diag::Diagnostic;
use oc_engine::battle::{GameResult, ROUND_CAP};
use oc_engine::Engine;
use oc_model as m;
use oc_project::DiskHost;
use rayon::prelude::*;

use super::edit::{ArmyPlan, Base, Setting};
use crate::setup::Setup as Arena;
use crate::stats::{Score, BEYOND_NOISE};

/// Where a setting's win rate lies against 50%.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The whole 95% interval is below 50%.
    Below,
    /// The interval holds 50% after the most games a setting gets.
    Fair,
    Above,
}

pub fn verdict(s: &Score) -> Verdict {
    let [lo, hi] = s.ci();
    if hi < 0.5 {
        Verdict::Below
    } else if lo > 0.5 {
        Verdict::Above
    } else {
        Verdict::Fair
    }
}

/// Games per setting at each look of the sequential test, up to `cap`.
fn looks(cap: u64) -> Vec<u64> {
    let mut v: Vec<u64> = std::iter::successors(Some(50u64), |n| Some(n * 2)).take_while(|n| *n < cap).collect();
    v.push(cap);
    v
}

/// What went wrong while measuring: a game the engine refused (a bug, or rules it cannot play).
#[derive(Debug)]
pub struct Failure(pub String);

type GamesKey = (Option<u32>, [ArmyPlan; 2]);

pub struct Tuner<'a> {
    pub base: &'a Base,
    pub ws: Workspace,
    pub host: DiskHost,
    /// The scenario file's logical path.
    pub logical: String,
    /// The scenario's map (every setting plays on it).
    pub map: oc_atlas::Map,
    pub seed: u64,
    /// The most games one setting gets.
    pub cap: u64,
    /// Warnings the file has as written: a setting may not add any.
    pub warnings: usize,
    /// Games played in all (each once, however many settings share it).
    pub played: u64,
    /// The AI was seen to read the time limit: limits are no longer read off longer games (each
    /// try would play the longest games for nothing).
    clock_read: bool,
    /// Where the search says what it plays, a line at a time (a front end shows its progress).
    pub say: &'a dyn Fn(&str),
    /// Called after each game played (a front end's progress bar); nothing by default.
    pub tick: &'a (dyn Fn() + Sync),
    /// What the search did, for the report: each with the setting it is about (its time limit
    /// read off longer games), or none when it is about the whole search.
    pub notes: Vec<(Option<Setting>, String)>,
    compiled: HashMap<Setting, Result<Rc<Arena>, Vec<Diagnostic>>>,
    games: HashMap<GamesKey, Vec<GameResult>>,
    /// Sharded: the games the parts hold, and a shard's new ones (`shards.rs`).
    pub(super) sharded: Option<super::shards::Source>,
}

impl<'a> Tuner<'a> {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        base: &'a Base,
        ws: Workspace,
        host: DiskHost,
        logical: String,
        map: oc_atlas::Map,
        seed: u64,
        cap: u64,
        warnings: usize,
        say: &'a dyn Fn(&str),
    ) -> Tuner<'a> {
        Tuner {
            base,
            ws,
            host,
            logical,
            map,
            seed,
            cap,
            warnings,
            say,
            tick: &nothing,
            played: 0,
            clock_read: false,
            notes: Vec::new(),
            compiled: HashMap::new(),
            games: HashMap::new(),
            sharded: None,
        }
    }

    /// Compiles a setting's text: its diagnostics when it does not check clean (an error, or
    /// a warning the file as written does not have).
    pub fn check(&mut self, text: &str) -> Result<m::Rules, Vec<Diagnostic>> {
        self.ws.add(self.logical.clone(), text.to_string());
        let (c, unreadable) = self.ws.compile(&mut self.host, std::slice::from_ref(&self.logical));
        let warnings = c.diagnostics.iter().filter(|d| !d.is_error()).count();
        match c.rules {
            Some(rules) if unreadable.is_empty() && warnings <= self.warnings => Ok(rules),
            _ => Err(c.diagnostics),
        }
    }

    /// The arena of a setting, compiled once.
    fn arena(&mut self, s: &Setting) -> Result<Rc<Arena>, Vec<Diagnostic>> {
        if let Some(a) = self.compiled.get(s) {
            return a.clone();
        }
        let text = self.base.text(s);
        let made = self.check(&text).and_then(|rules| {
            let scenario = rules.scenario(&self.base.model.name).cloned();
            let army = |i: usize| self.base.army_models.get(i).and_then(|a| rules.army(&a.name)).cloned();
            let (Some(scenario), Some(a), Some(d)) = (scenario, army(0), army(1)) else { return Err(Vec::new()) };
            let engine = Engine::new(rules).map_err(|e| vec![e.diagnostic(self.base.scenario.name.span)])?;
            Ok(Rc::new(Arena {
                logical: self.logical.clone(),
                inputs: Vec::new(),
                engine,
                scenario,
                map: self.map.battle_map(),
                atlas: self.map.clone(),
                armies: [a, d],
            }))
        });
        self.compiled.insert(s.clone(), made.clone());
        made
    }

    /// Whether a setting checks clean.
    pub fn feasible(&mut self, s: &Setting) -> bool {
        self.arena(s).is_ok()
    }

    /// The games played under a setting so far.
    pub fn score(&self, s: &Setting) -> Score {
        self.games.get(&s.games_key()).map(|g| Score::of(g)).unwrap_or_default()
    }

    /// Plays a setting up to `n` games (its first `n`). `None`: it does not check clean.
    pub fn measure(&mut self, s: &Setting, n: u64) -> Result<Option<Score>, Failure> {
        let Ok(arena) = self.arena(s) else { return Ok(None) };
        let key = s.games_key();
        let have = self.games.get(&key).map_or(0, |g| g.len() as u64);
        if have < n {
            let (seed, tick) = (self.seed, self.tick);
            let more = match &mut self.sharded {
                None => arena.play_ticked(seed, have..n, tick).map_err(Failure)?,
                Some(source) => source.games(&super::shards::key(s), &arena, seed, have..n, tick).map_err(Failure)?,
            };
            self.played += more.len() as u64;
            self.games.entry(key).or_default().extend(more);
        }
        Ok(Some(self.score(s)))
    }

    /// The win rate of the setting a search chose, measured on games it did not see: the
    /// `cap` games after the first `cap` (choosing the nearest to 50% among noisy measures
    /// favours settings measured a little too near 50%; fresh games do not).
    pub fn confirm(&mut self, s: &Setting) -> Result<Option<Score>, Failure> {
        if self.measure(s, 2 * self.cap)?.is_none() {
            return Ok(None);
        }
        let games = self.games.get(&s.games_key()).map(|g| g.get(self.cap as usize..).unwrap_or_default());
        Ok(Some(games.map(Score::of).unwrap_or_default()))
    }

    /// The sequential test: games in growing batches until the interval leaves 50% or the cap.
    /// A line on standard error for each setting it plays.
    pub fn probe(&mut self, s: &Setting, what: &str) -> Result<Option<Verdict>, Failure> {
        let before = self.played;
        let mut last = None;
        for n in looks(self.cap) {
            let Some(score) = self.measure(s, n)? else {
                (self.say)(&format!("  {what}: does not check clean"));
                return Ok(None);
            };
            last = Some(score);
            if verdict(&score) != Verdict::Fair {
                break;
            }
        }
        let score = last.unwrap_or_default();
        if self.played > before {
            (self.say)(&format!("  {what}: attacker {}", score.text()));
        }
        Ok(Some(verdict(&score)))
    }

    /// Searches a ladder (rung 0 the start; later rungs better for the attacker, `down` the
    /// same toward the defender) for the rung nearest 50%.
    pub fn bisect(&mut self, up: &[Setting], down: &[Setting], name: &str) -> Result<Setting, Failure> {
        let Some(start) = up.first().cloned() else { return Err(Failure("an empty ladder".into())) };
        // Time limits are said as themselves (`rounds 21`), as the table read off one run says
        // them; other ladders by the rung (`army size +2`).
        let rounds = name == "rounds";
        let first_label = if rounds { format!("rounds {}", limit_word(start.rounds)) } else { format!("{name} +0") };
        let first = match self.probe(&start, &first_label)? {
            Some(v) => v,
            None => return Err(Failure("the scenario as written does not check clean".into())),
        };
        let (rungs, sign) = match first {
            Verdict::Fair => return Ok(start),
            Verdict::Below => (up, "+"),
            Verdict::Above => (down, "-"),
        };
        // A time limit one step the other way (see [`reversed`]): fair there, it is the one.
        let back = if first == Verdict::Below { down.get(1) } else { up.get(1) };
        if let (true, Some(back)) = (rounds, back) {
            if let Some(fair) = self.look_back((&start, &first_label, first), back)? {
                return Ok(fair);
            }
        }
        let label = |k: usize| match rungs.get(k).filter(|_| rounds) {
            Some(r) => format!("rounds {}", limit_word(r.rounds)),
            None => format!("{name} {sign}{k}"),
        };
        // Gallop away from the start until the verdict turns, then bisect between.
        let (mut a, mut end, mut step) = (0usize, rungs.len(), 1usize);
        let mut b = None;
        while a + 1 < end {
            let k = (a + step).min(end - 1);
            let Some(rung) = rungs.get(k) else { break };
            match self.probe(rung, &label(k))? {
                None => {
                    end = k;
                    step = 1;
                }
                Some(Verdict::Fair) => return Ok(rung.clone()),
                Some(v) if v == first => {
                    a = k;
                    step *= 2;
                }
                Some(_) => {
                    b = Some(k);
                    break;
                }
            }
        }
        let Some(mut b) = b else {
            self.notes
                .push((None, format!("{}: the ladder ends there with the interval still on the same side of 50%", label(a))));
            return Ok(rungs.get(a).cloned().unwrap_or(start));
        };
        while b > a + 1 {
            let m = (a + b) / 2;
            let Some(rung) = rungs.get(m) else { break };
            match self.probe(rung, &label(m))? {
                Some(Verdict::Fair) => return Ok(rung.clone()),
                Some(v) if v == first => a = m,
                Some(_) => b = m,
                None => break,
            }
        }
        // Neighbours on either side of 50%: the nearer, both measured with as many games.
        let (Some(ra), Some(rb)) = (rungs.get(a).cloned(), rungs.get(b).cloned()) else { return Ok(start) };
        let n = self.score(&ra).games.max(self.score(&rb).games);
        let sa = self.measure(&ra, n)?.unwrap_or_default();
        let sb = self.measure(&rb, n)?.unwrap_or_default();
        let b_nearer = (sb.rate() - 0.5).abs() < (sa.rate() - 0.5).abs();
        let (chosen, other) = if b_nearer { ((rb, label(b), sb), (label(a), sa)) } else { ((ra, label(a), sa), (label(b), sb)) };
        self.cliff((&chosen.0, &chosen.1, chosen.2), &[other]);
        Ok(chosen.0)
    }

    /// The time limit `back`, one step from the start (`start`, said `label`, read `first`)
    /// the other way, probed: where it goes the wrong way by half a standard error, both are
    /// read again on the most games a setting gets (the sequential test stops each as soon as
    /// it leaves 50%, too soon to compare two: the Ferry's nine rounds read 39.0% on 100 games,
    /// its eight 42.5% on 200); a [`reversed`] step is noted, and `back` returned where it is
    /// fair.
    fn look_back(
        &mut self,
        (start, label, first): (&Setting, &str, Verdict),
        back: &Setting,
    ) -> Result<Option<Setting>, Failure> {
        let back_label = format!("rounds {}", limit_word(back.rounds));
        let Some(mut read) = self.probe(back, &back_label)? else { return Ok(None) };
        let (mut was, mut there) = (self.score(start), self.score(back));
        if reversed_by(first, was, there) > 0.5 {
            was = self.measure(start, self.cap)?.unwrap_or(was);
            there = self.measure(back, self.cap)?.unwrap_or(there);
            read = verdict(&there);
        }
        if !reversed(first, was, there) {
            return Ok(None);
        }
        self.notes.push((
            None,
            format!(
                "not monotone: the attacker wins {:.0}% at {back_label} and {:.0}% at {label} ({} and {} games), \
                 more than two standard errors the wrong way for the step between them: a side plays worse \
                 with more time here, so the search, which reads the ladder as monotone, may pass a fair limit by, and \
                 the limit suggested is where this AI balances the scenario, not where players would",
                there.rate() * 100.0,
                was.rate() * 100.0,
                there.games,
                was.games
            ),
        ));
        Ok((read == Verdict::Fair).then(|| back.clone()))
    }

    /// A note when the neighbours of a suggestion are far apart (a cliff: 0% at 5 rounds, 55%
    /// at 6, 81% at 7): the suggestion is on a knife's edge, and a small change to the armies,
    /// the AI or the seed moves the result far.
    fn cliff(&mut self, chosen: (&Setting, &str, Score), neighbours: &[(String, Score)]) {
        let (setting, label, score) = chosen;
        let steep = neighbours.iter().any(|(_, s)| (s.rate() - score.rate()).abs() >= CLIFF);
        if !steep {
            return;
        }
        let around: Vec<String> = neighbours.iter().map(|(l, s)| format!("{:.0}% at {l}", s.rate() * 100.0)).collect();
        self.notes.push((
            Some(setting.clone()),
            format!(
                "a cliff: the attacker wins {:.0}% at {label}, but {}: the suggestion sits on a steep step, where a small change to the armies, the AI or the seed moves the result far (a knob with finer steps, such as war-chest, may find a steadier one)",
                score.rate() * 100.0,
                around.join(" and ")
            ),
        ));
    }

    /// The time limit from `start`'s: the nearest to 50% of every limit from the lowest that
    /// checks clean to twice the current one.
    pub fn rounds(&mut self, start: &Setting) -> Result<Setting, Failure> {
        let current = start.rounds.unwrap_or(ROUND_CAP);
        // Up to twice the current limit at first, further (to the engine's round cap, or twice
        // the limit if that is more) while every limit is still short.
        let most = ROUND_CAP.max(2 * current).min(m::MAX_ROUNDS);
        let mut hi = if start.rounds.is_some() { (2 * current).max(current + 4).min(most) } else { most };
        let with = |r: u32| Setting { rounds: Some(r), ..start.clone() };
        // The lowest limit that checks clean (a shorter one leaves a side no way to win).
        let (mut lo, mut top) = (1u32, current);
        if !self.feasible(&with(top)) {
            return Err(Failure("the scenario as written does not check clean".into()));
        }
        while lo < top {
            let mid = (lo + top) / 2;
            if self.feasible(&with(mid)) {
                top = mid;
            } else {
                lo = mid + 1;
            }
        }
        // Longer limits help whoever the clock does not.
        let up_is_longer = self.base.model.on_time_limit != m::Outcome::Win(m::SideId::Attacker);
        if derivable(&self.base.model) {
            while let Some(read) = self.rounds_from_one_run(start, lo, hi, up_is_longer && hi < most)? {
                match read {
                    Read::Chosen(best) => return Ok(best),
                    Read::Short => hi = (2 * hi).min(most),
                }
            }
        }
        // One probe per limit.
        let longer: Vec<Setting> = (current..=hi).map(with).collect();
        let shorter: Vec<Setting> = (lo..=current).rev().map(with).collect();
        let (up, down) = if up_is_longer { (longer, shorter) } else { (shorter, longer) };
        self.bisect(&up, &down, "rounds")
    }

    /// Every limit from `lo` to `hi` read off the same games played to `hi`: a game that ended
    /// by round R ends the same under a limit of R; one still going at R's end is the time
    /// limit's. Checked on the first games against games played to the chosen limit; `None`
    /// when they differ (an AI that reads the clock), and the caller probes limit by limit.
    fn rounds_from_one_run(&mut self, start: &Setting, lo: u32, hi: u32, may_extend: bool) -> Result<Option<Read>, Failure> {
        if self.clock_read {
            return Ok(None);
        }
        let with = |r: u32| Setting { rounds: Some(r), ..start.clone() };
        // Who wins when the clock runs out: the scenario's `then` (a side that wins by surviving
        // the time limit is that side, or `derivable` said no).
        let time_up = self.base.model.on_time_limit;
        let longest = with(hi);
        // A few games first, at a limit halfway: an AI that reads the clock shows it at once,
        // before hundreds of games are played to the longest limit for nothing.
        let mid = lo + (hi - lo) / 2;
        if mid < hi && self.clock_is_read(start, mid, hi, PRECHECK_GAMES)? {
            return Ok(None);
        }
        let mut scores: Vec<(u32, Score)> = Vec::new();
        for n in looks(self.cap) {
            if self.measure(&longest, n)?.is_none() {
                return Ok(None);
            }
            let games = self.games.get(&longest.games_key()).cloned().unwrap_or_default();
            scores = (lo..=hi)
                .map(|r| {
                    let mut s = Score::default();
                    for g in &games {
                        s.add(if g.rounds <= r { g.outcome } else { time_up });
                    }
                    (r, s)
                })
                .collect();
            let all = |v: Verdict| scores.iter().all(|(_, s)| verdict(s) == v);
            if all(Verdict::Below) || all(Verdict::Above) {
                break;
            }
        }
        if may_extend && !scores.is_empty() && scores.iter().all(|(_, s)| verdict(s) == Verdict::Below) {
            (self.say)(&format!("  rounds {lo} to {hi}: every limit is short of 50% for the attacker; trying longer ones"));
            return Ok(Some(Read::Short));
        }
        let current = start.rounds.unwrap_or(ROUND_CAP);
        let best = scores
            .iter()
            .min_by(|(ra, a), (rb, b)| {
                let (da, db) = ((a.rate() - 0.5).abs(), (b.rate() - 0.5).abs());
                da.total_cmp(&db).then(ra.abs_diff(current).cmp(&rb.abs_diff(current)))
            })
            .map_or(current, |(r, _)| *r);
        // The neighbours of the limit chosen: a cliff between them is worth a note.
        // (At an end of the range read, the limit itself stands for the missing neighbour.)
        let at = |r: u32| scores.iter().find(|(x, _)| *x == r).map(|(_, s)| (r, *s));
        if let Some((_, chosen)) = at(best) {
            let near: Vec<(String, Score)> = [best.checked_sub(1), Some(best + 1)]
                .into_iter()
                .flatten()
                .filter_map(at)
                .map(|(r, s)| (format!("rounds {r}"), s))
                .collect();
            self.cliff((&with(best), &format!("rounds {best}"), chosen), &near);
        }
        let n = self.score(&longest).games;
        (self.say)(&format!("  rounds {lo} to {hi}, read off {n} games played to {hi} rounds:"));
        for (r, s) in &scores {
            (self.say)(&format!("    {r:>3}: attacker {}", s.text()));
        }
        // The check: games played to the chosen limit (or one below the longest) are the
        // longest games' beginnings, and end as they were read.
        let check = if best < hi { best } else { hi.saturating_sub(1) };
        if check >= lo {
            let count = n.min(20);
            if self.clock_is_read(start, check, hi, count)? {
                return Ok(None);
            }
            let how = format!(
                "rounds: every limit from {lo} to {hi} read off the same {n} games played to {hi}; checked on {count} games played to {check}"
            );
            self.notes.push((Some(with(best)), how));
        }
        let chosen = with(best);
        // The derived games are the chosen limit's own (checked above): keep them as its games.
        let games = self.games.get(&longest.games_key()).cloned().unwrap_or_default();
        let derived: Vec<GameResult> = games
            .into_iter()
            .map(|mut g| {
                if g.rounds > best {
                    g.outcome = time_up;
                    g.rounds = best;
                    g.reason = "the time limit ran out".into();
                }
                g
            })
            .collect();
        self.games.insert(chosen.games_key(), derived);
        Ok(Some(Read::Chosen(chosen)))
    }

    /// Whether games played to `check` rounds are not the beginnings of the same games played
    /// to `hi` (the first `count` of each, in parallel): the AI reads the time limit. Said once
    /// in the notes, and remembered.
    fn clock_is_read(&mut self, start: &Setting, check: u32, hi: u32, count: u64) -> Result<bool, Failure> {
        let with = |r: u32| Setting { rounds: Some(r), ..start.clone() };
        let time_up = self.base.model.on_time_limit;
        let direct = self.arena(&with(check)).map_err(|_| Failure("a time limit that checked clean no longer does".into()))?;
        let long = self.arena(&with(hi)).map_err(|_| Failure("the longest time limit no longer checks clean".into()))?;
        let (seed, tick) = (self.seed, self.tick);
        let (direct, long) = (&*direct, &*long);
        // For each game: whether it was read right (played twice, in parallel).
        let agree_in = |g: u64| -> Result<bool, String> {
            let (d, dlog) = direct.game(seed, g)?;
            let (l, llog) = long.game(seed, g)?;
            tick();
            tick();
            let read = if l.rounds <= check { l.outcome } else { time_up };
            let shared = dlog.len().saturating_sub(1);
            Ok(read == d.outcome && dlog.get(..shared) == llog.get(..shared))
        };
        let agree: Vec<bool> = match &mut self.sharded {
            None => (0..count).into_par_iter().map(agree_in).collect::<Result<_, String>>().map_err(Failure)?,
            Some(source) => {
                let (short, long) = (super::shards::key(&with(check)), super::shards::key(&with(hi)));
                source.clock(&short, &long, count, &agree_in).map_err(Failure)?
            }
        };
        self.played += 2 * count;
        let Some(g) = agree.iter().position(|ok| !ok) else { return Ok(false) };
        self.clock_read = true;
        self.notes.push((
            None,
            format!(
                "rounds: the AI reads the time limit (game {g} played to {check} rounds is not the beginning of the same game played to {hi}), so each limit was played on its own"
            ),
        ));
        Ok(true)
    }
}

/// Games played twice (to a limit halfway and to the longest) before a time limit is read off
/// the longest games.
const PRECHECK_GAMES: u64 = 8;

/// How far (in win rate) a neighbouring setting may be from a suggestion before the step
/// between them is called a cliff.
const CLIFF: f64 = 0.25;

/// Whether `back`, the score one step down the ladder from the start's `was` (toward the side
/// `first` says the start favours), favours the other side by two standard errors or more
/// ([`BEYOND_NOISE`], as `oc tournament` calls a side stronger): the step that should help the
/// side `first` calls short helps the other (the Ferry Crossing, default AI against itself: the
/// attacker 47.2% with eight rounds, 33.5% with nine, 400 games each).
fn reversed(first: Verdict, was: Score, back: Score) -> bool {
    reversed_by(first, was, back) >= BEYOND_NOISE
}

/// How far `back` favours the other side than `was` ([`reversed`]), in standard errors of
/// their difference ([`Score::z_above`]: the one `oc tournament` reads): above 0 the wrong way.
/// 0 where either was not played.
fn reversed_by(first: Verdict, was: Score, back: Score) -> f64 {
    match first {
        Verdict::Below => back.z_above(&was),
        Verdict::Above => was.z_above(&back),
        Verdict::Fair => 0.0,
    }
}

/// The default [`Tuner::tick`].
fn nothing() {}

/// A time limit as the report says it.
fn limit_word(r: Option<u32>) -> String {
    r.map_or("none".to_string(), |n| n.to_string())
}

/// What one run to the longest limit found.
enum Read {
    /// The limit nearest 50%.
    Chosen(Setting),
    /// Every limit is short of 50% for the attacker, and longer ones may be tried.
    Short,
}

/// Whether time limits may be read off longer games: a `survive N rounds` moving with the
/// limit must only ever give the win to the side the clock gives it to, so a game still
/// going at the limit's end is that side's however it is called.
fn derivable(s: &m::Scenario) -> bool {
    let Some(limit) = s.rounds else { return true };
    [m::SideId::Attacker, m::SideId::Defender].iter().all(|side| match &s.side(*side).win {
        Some(c) if has_survive(c, limit) => s.on_time_limit == m::Outcome::Win(*side) && only_in_or(c, limit),
        _ => true,
    })
}

fn has_survive(c: &m::Condition, limit: u32) -> bool {
    match c {
        m::Condition::Survive { rounds } => *rounds == limit,
        m::Condition::And(a, b) | m::Condition::Or(a, b) => has_survive(a, limit) || has_survive(b, limit),
        m::Condition::Not(a) => has_survive(a, limit),
        _ => false,
    }
}

/// Whether every tied `survive` is reached from the top through `or`s only.
fn only_in_or(c: &m::Condition, limit: u32) -> bool {
    match c {
        m::Condition::Or(a, b) => only_in_or(a, limit) && only_in_or(b, limit),
        m::Condition::And(..) | m::Condition::Not(_) => !has_survive(c, limit),
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The Ferry Crossing's step from eight rounds to nine (400 games each): a reversal either
    /// way it is read; the same step the way a time limit should move it, or within the noise,
    /// is none.
    #[test]
    fn a_step_the_wrong_way_by_two_standard_errors_is_a_reversal() {
        let score = |wins: u64, games: u64| Score { games, wins: [wins, games - wins] };
        let (eight, nine) = (score(189, 400), score(134, 400));
        // Nine rounds read short for the attacker; eight, a step toward the defender, is more.
        assert!(reversed(Verdict::Below, nine, eight));
        // Eight read as too much for the attacker; nine, a step toward the attacker, is less.
        assert!(reversed(Verdict::Above, eight, nine));
        assert!(!reversed(Verdict::Below, eight, nine));
        assert!(!reversed(Verdict::Above, nine, eight));
        // Within the noise, or not measured.
        assert!(!reversed(Verdict::Below, score(180, 400), score(189, 400)));
        assert!(!reversed(Verdict::Below, nine, Score::default()));
        assert!(!reversed(Verdict::Fair, nine, eight));
        // As the search first read them (nine rounds 39.0% of 100 games, eight 42.5% of 200):
        // the wrong way by more than half a standard error, so both are read again.
        let by = reversed_by(Verdict::Below, score(39, 100), score(85, 200));
        assert!(by > 0.5 && by < 2.0, "{by}");
        // A limit where the attacker never won, 0 of 40, and the step toward the defender at
        // 4 of 40: 10 points. Read as a sure 0%, that was 2.1 standard errors (a reversal); a
        // rate of 0% counts half a game, as `oc tournament` reads it: 1.98, within the noise.
        let by = reversed_by(Verdict::Below, score(0, 40), score(4, 40));
        assert!(by > 1.9 && by < 2.0, "{by}");
        assert!(!reversed(Verdict::Below, score(0, 40), score(4, 40)));
        assert!(reversed(Verdict::Below, score(0, 40), score(5, 40)));
    }

    #[test]
    fn looks_double_up_to_the_cap() {
        assert_eq!(looks(1000), vec![50, 100, 200, 400, 800, 1000]);
        assert_eq!(looks(40), vec![40]);
        assert_eq!(looks(50), vec![50]);
    }

    #[test]
    fn a_survive_tied_to_the_limit_must_favour_the_clocks_side() {
        let or = m::Condition::Or(Box::new(m::Condition::RoutLeader), Box::new(m::Condition::Survive { rounds: 12 }));
        let and = m::Condition::And(Box::new(m::Condition::RoutLeader), Box::new(m::Condition::Survive { rounds: 12 }));
        assert!(only_in_or(&or, 12) && !only_in_or(&and, 12) && only_in_or(&and, 11));
        assert!(has_survive(&or, 12) && !has_survive(&or, 13));
    }
}

//! `oc tournament --as-written`: how strong AI A plays each side of scenarios as written (their
//! sides need not be alike), measured the way the AI issue's table is: A against a reference AI
//! B, swapping one side at a time. Per scenario and pair of its armies, three cells of the
//! attacker's win rate: A attacking B, B against B (the reference), B attacking A. A is the
//! stronger attacker where the first beats the reference, the stronger defender where the third
//! falls below it; "by two standard errors" is the verdict's bar. Every cell plays the same
//! game seeds (`stats::game_seed`), so the three differ by the AIs only.

use std::path::{Path, PathBuf};

use crate::error::{Failure, Refusal};
use crate::setup::{Ais, Compiled};
use crate::simulate::{self, Run};
use crate::stats::{Score, BEYOND_NOISE};

/// One scenario with one pair of armies: the three cells, in the order the module names them.
#[derive(Clone, Debug)]
pub struct Row {
    /// The file, relative to its project root.
    pub file: String,
    pub scenario: String,
    pub attacker: String,
    pub defender: String,
    /// A attacking B, B against B, B attacking A.
    pub cells: [Score; 3],
}

/// How A compares with the reference on one side.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Better by two standard errors or more.
    Stronger,
    /// Within two standard errors.
    Even,
    /// Worse by two standard errors or more.
    Weaker,
}

impl Verdict {
    pub fn word(self) -> &'static str {
        match self {
            Verdict::Stronger => "stronger",
            Verdict::Even => "even",
            Verdict::Weaker => "weaker",
        }
    }
}

/// `better - worse` in attacker win rate, against two standard errors of their difference
/// ([`Score::z_above`], [`BEYOND_NOISE`]).
fn verdict(better: &Score, worse: &Score) -> Verdict {
    let z = better.z_above(worse);
    if z >= BEYOND_NOISE {
        Verdict::Stronger
    } else if z <= -BEYOND_NOISE {
        Verdict::Weaker
    } else {
        Verdict::Even
    }
}

impl Row {
    /// A as the attacker (its cell against the reference's), and A as the defender (the
    /// reference's against its cell: a lower attacker rate is the defender's gain).
    pub fn verdicts(&self) -> [Verdict; 2] {
        let [a_attacks, reference, a_defends] = &self.cells;
        [verdict(a_attacks, reference), verdict(reference, a_defends)]
    }
}

/// What to measure: the scenarios written in the `.oc` files under `paths` (only `scenario`
/// when given; only the attacker armies named in `armies`, all when empty), `games` games a cell
/// from `seed`, A = `ais[0]` against the reference B = `ais[1]`.
pub struct Request<'a> {
    pub paths: &'a [PathBuf],
    pub scenario: Option<&'a str>,
    pub armies: &'a [String],
    pub ais: [&'a str; 2],
    pub games: u64,
    pub seed: u64,
}

/// Plays every cell; `compile` compiles a file (the caller shows its warnings), `say` hears a
/// line per pair, `tick` each game. Refused: an unknown AI, no scenario with an army on each
/// side, or a game the engine refuses.
pub fn measure(
    r: &Request,
    compile: &dyn Fn(&Path) -> Result<Compiled, Failure>,
    say: &dyn Fn(&str),
    tick: &(dyn Fn() + Sync),
) -> Result<Vec<Row>, Failure> {
    crate::tournament::check_ais(r.ais).map_err(Failure::Refused)?;
    let [a, b] = r.ais.map(str::to_string);
    let cells = [
        Ais { attacker: a.clone(), defender: b.clone() },
        Ais { attacker: b.clone(), defender: b.clone() },
        Ais { attacker: b, defender: a },
    ];
    let run = Run { games: r.games, seed: r.seed, shard: None };
    let projects = oc_project::discover(r.paths).map_err(Failure::refused)?;
    // Every pair first: an army named that none of them fields is refused before a game is
    // played.
    let mut pairs = Vec::new();
    for project in &projects {
        for logical in &project.files {
            let file = project.root.join(logical);
            pairs.extend(crate::fairness::pairs(compile(&file)?, &file, logical, say)?.into_iter().map(|s| (logical.clone(), s)));
        }
    }
    check_named(&pairs.iter().map(|(_, s)| s).collect::<Vec<_>>(), r.armies)?;
    let mut rows = Vec::new();
    for (logical, setup) in pairs {
        let (s, [att, def]) = (&setup.scenario, &setup.armies);
        if r.scenario.is_some_and(|n| n != s.name) || !(r.armies.is_empty() || r.armies.contains(&att.name)) {
            continue;
        }
        let started = std::time::Instant::now();
        let mut scores = [Score::default(); 3];
        for (score, ais) in scores.iter_mut().zip(&cells) {
            let tally = simulate::run(&setup, ais, &run, tick)
                .map_err(|e: Refusal| Failure::Refused(Refusal::new(format!("{logical} {}: {}", s.name, e.message))))?;
            *score = Score { games: tally.games, wins: tally.wins };
        }
        let row = Row {
            file: logical.clone(),
            scenario: s.name.clone(),
            attacker: att.name.clone(),
            defender: def.name.clone(),
            cells: scores,
        };
        let [va, vd] = row.verdicts();
        say(&format!(
            "{logical} {}: {} vs {}: as attacker {}, as defender {} in {:.1?}",
            s.name,
            att.name,
            def.name,
            va.word(),
            vd.word(),
            started.elapsed()
        ));
        rows.push(row);
    }
    if rows.is_empty() {
        return Err(Failure::refused("no scenario with an army on each side under the paths given"));
    }
    Ok(rows)
}

/// Every army named (`--army`) is the attacker army of one of `pairs`: else a refusal that says
/// what it is (a defender army) or what was meant.
fn check_named(pairs: &[&crate::setup::Setup], armies: &[String]) -> Result<(), Failure> {
    let names = |side: usize| pairs.iter().filter_map(|s| s.armies.get(side)).map(|a| a.name.as_str()).collect();
    crate::tournament::refuse_unknown_armies(
        names(0),
        names(1),
        armies,
        "each attacker army named is measured against the scenario's defender army",
    )
    .map_err(Failure::Refused)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn score(wins: u64, games: u64) -> Score {
        Score { games, wins: [wins, games - wins] }
    }

    #[test]
    fn the_verdict_needs_two_standard_errors() {
        // 45% against 81% over 100 games each (the Grado Keep): 0.36 apart, SE 0.063.
        let row = Row {
            file: String::new(),
            scenario: String::new(),
            attacker: String::new(),
            defender: String::new(),
            cells: [score(45, 100), score(81, 100), score(45, 100)],
        };
        assert_eq!(row.verdicts(), [Verdict::Weaker, Verdict::Stronger]);
        // 55% against 50% over 100 games: 0.05 apart, SE 0.07: even.
        assert_eq!(verdict(&score(55, 100), &score(50, 100)), Verdict::Even);
        // At 400 games a cell, 58% against 50% is 0.08 apart, SE 0.035: stronger; 57% is not.
        assert_eq!(verdict(&score(232, 400), &score(200, 400)), Verdict::Stronger);
        assert_eq!(verdict(&score(228, 400), &score(200, 400)), Verdict::Even);
        // A sure 100% against 95% in 20 games is not a certain difference.
        assert_eq!(verdict(&score(20, 20), &score(19, 20)), Verdict::Even);
    }
}

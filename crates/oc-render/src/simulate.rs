//! `oc simulate`'s report of a whole run (text or JSON) and its plot's figure.

use oc_play::simulate::{Header, Tally};
use oc_play::stats::wilson;

use crate::plot::Outcomes;

/// The report's first line: what was played, how often, from which seed.
pub fn title(h: &Header, n: u64) -> String {
    format!(
        "{} on {}: {} (attacker, {}) vs {} (defender, {}), {n} games from seed {}",
        h.scenario_title.as_deref().unwrap_or(&h.scenario),
        h.map,
        h.attacker,
        h.attacker_ai,
        h.defender,
        h.defender_ai,
        h.seed
    )
}

/// The plot of a whole run's counts (when the tally holds them: [`Tally::has_histograms`]).
pub fn outcomes(header: &Header, tally: &Tally) -> Outcomes {
    let n = tally.games;
    let draws = n.saturating_sub(tally.wins[0] + tally.wins[1]);
    Outcomes {
        title: title(header, n),
        armies: [header.attacker.clone(), header.defender.clone()],
        games: n,
        wins: [tally.wins[0], tally.wins[1], draws],
        intervals: [wilson(tally.wins[0], n), wilson(tally.wins[1], n), wilson(draws, n)],
        rounds: tally.rounds_seen.clone(),
        lost: tally.lost_seen.clone(),
        round_limit: header.round_limit,
    }
}

/// The report of a whole run.
pub fn report(h: &Header, tally: &Tally, json: bool) -> String {
    let n = tally.games;
    let seed = h.seed;
    let (aw, dw) = (tally.wins[0], tally.wins[1]);
    let draws = n - aw - dw;
    let mean = |sum: u64| if n == 0 { 0.0 } else { sum as f64 / n as f64 };
    let mean_rounds = mean(tally.rounds);
    let lost = [mean(tally.lost[0]), mean(tally.lost[1])];
    let endings = &tally.endings;
    let rate = |w: u64| if n == 0 { 0.0 } else { w as f64 / n as f64 };
    match json {
        true => {
            let value = serde_json::json!({
                "scenario": h.scenario,
                "attacker": h.attacker,
                "defender": h.defender,
                "attacker_ai": h.attacker_ai,
                "defender_ai": h.defender_ai,
                "seed": seed,
                "games": n,
                "attacker_wins": aw,
                "defender_wins": dw,
                "draws": draws,
                "attacker_win_rate": rate(aw),
                "defender_win_rate": rate(dw),
                "ci95": wilson(aw, n),
                "defender_ci95": wilson(dw, n),
                "mean_rounds": mean_rounds,
                "round_limit": h.round_limit,
                "mean_units_lost": {"attacker": lost[0], "defender": lost[1]},
                "endings": endings,
                "endings_by_branch": tally.branches,
                "rounds_histogram": tally.rounds_seen,
                "units_lost_histogram": {"attacker": tally.lost_seen[0], "defender": tally.lost_seen[1]},
            });
            format!("{value}\n")
        }
        false => {
            let [lo, hi] = wilson(aw, n);
            let [dlo, dhi] = wilson(dw, n);
            let mut s = format!("{}\n", title(h, n));
            s.push_str(&format!(
                "  attacker wins {aw} ({:.1}%, 95% CI {:.1}-{:.1}%)\n",
                rate(aw) * 100.0,
                lo * 100.0,
                hi * 100.0
            ));
            s.push_str(&format!(
                "  defender wins {dw} ({:.1}%, 95% CI {:.1}-{:.1}%)\n",
                rate(dw) * 100.0,
                dlo * 100.0,
                dhi * 100.0
            ));
            s.push_str(&format!(
                "  draws {draws}; mean rounds {mean_rounds:.1}; units lost: attacker {:.2}, defender {:.2}\n",
                lost[0], lost[1]
            ));
            s.push_str("  how games ended:\n");
            for (k, v) in endings {
                s.push_str(&format!("    {v:>6}  {k}\n"));
                // A win by `either A or B`: how many by each.
                for (branch, n) in tally.branches.get(k).into_iter().flatten() {
                    s.push_str(&format!("    {:>6}  {n:>6}  by {branch}\n", ""));
                }
            }
            s
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]

    use super::*;

    fn run() -> (Header, Tally) {
        let header = Header {
            scenario: "keep".into(),
            scenario_title: Some("The Keep".into()),
            map: "Grado".into(),
            attacker: "Raiders".into(),
            defender: "Guard".into(),
            attacker_ai: "greedy".into(),
            defender_ai: "tactician".into(),
            seed: 7,
            games: 4,
            round_limit: Some(15),
        };
        let mut tally = Tally { games: 4, wins: [3, 1], rounds: 20, lost: [2, 6], ..Tally::default() };
        tally.endings.insert("attacker routs the defender".into(), 3);
        tally.endings.insert("defender holds".into(), 1);
        (header, tally)
    }

    #[test]
    fn a_run_reads_as_text_and_as_json() {
        let (h, t) = run();
        let text = report(&h, &t, false);
        assert_eq!(
            text.lines().next(),
            Some("The Keep on Grado: Raiders (attacker, greedy) vs Guard (defender, tactician), 4 games from seed 7")
        );
        assert!(text.contains("  attacker wins 3 (75.0%, 95% CI "));
        assert!(text.contains("  draws 0; mean rounds 5.0; units lost: attacker 0.50, defender 1.50\n"));
        assert!(text.contains("         3  attacker routs the defender\n"));
        let json: serde_json::Value = serde_json::from_str(&report(&h, &t, true)).unwrap();
        assert_eq!((json["games"].as_u64(), json["attacker_win_rate"].as_f64()), (Some(4), Some(0.75)));
        let figure = outcomes(&h, &t);
        assert_eq!(figure.wins, [3, 1, 0]);
        assert_eq!(figure.title, title(&h, 4));
    }
}

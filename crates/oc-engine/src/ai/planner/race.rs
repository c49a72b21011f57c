//! The race among the planner's candidates: a budget per decision that goes where it decides.
//!
//! The copies are played in rounds: copy `s` for every candidate still in the race, with the
//! same dice for each (common random numbers), so candidates are compared by their paired
//! differences, copy by copy. After [`MIN_COPIES`] copies a candidate whose mean trails the
//! leader's by more than [`Z`] standard errors of its paired differences is dropped (a
//! difference with no spread at all, as between copies that drew nothing, counts as decided);
//! the race stops when one candidate is left or the copies are spent. Ties go to the
//! tactician's order (the candidates' order here).

/// The copies every candidate in the race is played on before any is dropped.
pub const MIN_COPIES: usize = 4;
/// How many standard errors of the paired differences a candidate must trail the leader by
/// to be dropped.
pub const Z: f64 = 2.0;

/// A tolerance for sums of leaf values (what the planner compared totals by).
const EPS: f64 = 1e-9;

/// The candidates' values, copy by copy, in the tactician's order.
#[derive(Debug, Default)]
pub(super) struct Race {
    values: Vec<Vec<f64>>,
    running: Vec<bool>,
    /// A candidate whose copy drew nothing: every later copy is worth the same.
    settled: Vec<Option<f64>>,
}

impl Race {
    pub fn new(candidates: usize) -> Race {
        Race { values: vec![Vec::new(); candidates], running: vec![true; candidates], settled: vec![None; candidates] }
    }

    /// The candidates still in the race, in order.
    pub fn running(&self) -> Vec<usize> {
        (0..self.running.len()).filter(|&i| self.running[i]).collect()
    }

    pub fn left(&self) -> usize {
        self.running.iter().filter(|r| **r).count()
    }

    /// The value every later copy of candidate `i` has, where one drew nothing.
    pub fn settled(&self, i: usize) -> Option<f64> {
        self.settled.get(i).copied().flatten()
    }

    /// Candidate `i` is no candidate (a copy refused its turn): out of the race, never chosen.
    pub fn refuse(&mut self, i: usize) {
        if let Some(r) = self.running.get_mut(i) {
            *r = false;
        }
        if let Some(v) = self.values.get_mut(i) {
            v.clear();
        }
    }

    /// Candidate `i`'s copy is worth `v`; `drew_nothing`: so is every later copy.
    pub fn push(&mut self, i: usize, v: f64, drew_nothing: bool) {
        if let Some(vs) = self.values.get_mut(i) {
            vs.push(v);
        }
        if drew_nothing {
            if let Some(s) = self.settled.get_mut(i) {
                *s = Some(v);
            }
        }
    }

    /// The running candidate worth most so far (ties to the earliest).
    pub fn leader(&self) -> Option<usize> {
        let mut best: Option<(usize, f64)> = None;
        for i in self.running() {
            let total: f64 = self.values[i].iter().sum();
            if best.is_none_or(|(_, b)| total > b + EPS) {
                best = Some((i, total));
            }
        }
        best.map(|(i, _)| i)
    }

    /// After a round: drop every candidate the leader is decided to beat.
    pub fn settle(&mut self) {
        let Some(lead) = self.leader() else { return };
        for i in self.running() {
            if i == lead {
                continue;
            }
            let (a, b) = (&self.values[lead], &self.values[i]);
            let n = a.len().min(b.len());
            if n < MIN_COPIES {
                continue;
            }
            let d: Vec<f64> = a.iter().zip(b).map(|(x, y)| x - y).collect();
            let mean = d.iter().sum::<f64>() / n as f64;
            let var = d.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (n - 1) as f64;
            let se = (var / n as f64).sqrt();
            if se <= EPS || mean > Z * se {
                self.running[i] = false;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn race(rows: &[&[f64]]) -> Race {
        let mut r = Race::new(rows.len());
        for s in 0..rows[0].len() {
            for (i, row) in rows.iter().enumerate() {
                r.push(i, row[s], false);
            }
            r.settle();
        }
        r
    }

    #[test]
    fn a_candidate_clearly_behind_is_dropped_after_the_minimum() {
        // Paired: the second trails by 1 on every copy but one (spread, yet clearly behind).
        let r = race(&[&[5.0, 3.0, 9.0, 1.0], &[4.0, 2.0, 8.0, 0.5]]);
        assert_eq!((r.running(), r.leader()), (vec![0], Some(0)));
        // Not before the minimum.
        let r = race(&[&[5.0, 3.0, 9.0], &[4.0, 2.0, 8.0]]);
        assert_eq!(r.left(), 2);
    }

    #[test]
    fn a_close_race_runs_on_and_ties_go_to_the_first() {
        let r = race(&[&[1.0, 0.0, 1.0, 0.0], &[0.0, 1.0, 0.0, 1.0], &[1.0, 1.0, 0.0, 0.0]]);
        assert_eq!((r.left(), r.leader()), (3, Some(0)));
        // Equal on every copy: no spread, decided for the first.
        let r = race(&[&[1.0, 2.0, 3.0, 4.0], &[1.0, 2.0, 3.0, 4.0]]);
        assert_eq!(r.running(), vec![0]);
    }

    #[test]
    fn a_refused_candidate_is_never_chosen() {
        let mut r = race(&[&[1.0], &[9.0]]);
        r.refuse(1);
        assert_eq!((r.left(), r.leader()), (1, Some(0)));
    }
}

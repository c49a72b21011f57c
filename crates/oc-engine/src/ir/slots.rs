//! The IR's slots: the die slots a strike draws (with their exact distributions) and the
//! combat formulas the engine reads, by role.

use oc_model as m;

use super::E;

/// One die slot: what is rolled and its exact distribution; or, for a `Dice` value rolled in a
/// strike, the expression that names the dice (then `shape` and `dist` are unused).
pub struct DieSlot {
    pub shape: m::DiceShape,
    pub dist: m::Dist,
    pub dynamic: Option<E>,
    /// A die the ruleset names (`dice hit d100`): read once per strike or battle event however
    /// often it is written (`roll(hit)` twice is one draw). A die written in place (`roll(d10)`)
    /// or a `Dice` value's is drawn at each reading in a battle.
    pub named: bool,
    /// The running sums of the distribution's weights (`prefix[i]` the weight of the values
    /// before `i`), when the values ascend and every sum is a whole number below 2^53: then a
    /// run of values weighs `prefix[j] - prefix[i]`, exactly the sum added up one by one.
    pub prefix: Option<Vec<f64>>,
}

impl DieSlot {
    pub fn new(shape: m::DiceShape, dist: m::Dist, dynamic: Option<E>) -> DieSlot {
        let prefix = exact_prefix(&dist.values);
        DieSlot { shape, dist, dynamic, prefix, named: false }
    }
}

/// The running sums of `values`' weights, if the values ascend and every weight and sum is a
/// whole number that `f64` holds exactly.
fn exact_prefix(values: &[(i64, f64)]) -> Option<Vec<f64>> {
    const EXACT: f64 = 9_007_199_254_740_992.0; // 2^53
    let mut out = Vec::with_capacity(values.len() + 1);
    let mut sum = 0.0f64;
    out.push(sum);
    for (k, (value, weight)) in values.iter().enumerate() {
        if k > 0 && values.get(k - 1).is_none_or(|(before, _)| before >= value) {
            return None;
        }
        if *weight < 0.0 || weight.fract() != 0.0 {
            return None;
        }
        sum += weight;
        if sum >= EXACT {
            return None;
        }
        out.push(sum);
    }
    Some(out)
}

/// The most joint faces one strike may enumerate (the product of the faces of every die its
/// formulas read); a forecast walks them all.
pub const MAX_JOINT_FACES: u64 = 4_000_000;

/// The combat formulas the engine reads, by index into `Ir::formulas`.
pub struct Roles {
    pub hit: u16,
    pub critical: u16,
    pub damage: u16,
    pub critical_damage: u16,
    pub follow_up: u16,
    pub backfire: Option<u16>,
    pub strikes: Option<u16>,
    pub counter: Option<u16>,
    pub counter_any_range: Option<u16>,
    /// The strike's result on the charts, read after the exchange (`on chart`) in battles.
    pub chart: Option<u16>,
    /// The order of attack (seed 003): the defender's strikes come first; both sides' strikes
    /// counted as the exchange began.
    pub defender_first: Option<u16>,
    pub simultaneous: Option<u16>,
}

impl Roles {
    /// The formulas a strike's outcome is made of: hit, critical, damage, critical damage and
    /// backfire (where the rules have one).
    pub fn strike(&self) -> impl Iterator<Item = u16> {
        [Some(self.hit), Some(self.critical), Some(self.damage), Some(self.critical_damage), self.backfire].into_iter().flatten()
    }

    /// Every formula the engine asks for by role: the strike's, and the flags read outside any
    /// roll (follow-up, strikes, counter, counter at any range).
    pub fn all(&self) -> impl Iterator<Item = u16> {
        self.strike().chain(
            [Some(self.follow_up), self.strikes, self.counter, self.counter_any_range, self.defender_first, self.simultaneous]
                .into_iter()
                .flatten(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::exact_prefix;

    #[test]
    fn running_sums_are_kept_only_where_they_are_exact() {
        // 2d6: whole weights, ascending values.
        let two_d6: Vec<(i64, f64)> = (2..=12).map(|v| (v, (6 - (v - 7i64).abs()) as f64)).collect();
        let prefix = exact_prefix(&two_d6).unwrap_or_default();
        assert_eq!(prefix.len(), 12);
        assert_eq!(prefix.last().copied(), Some(36.0));
        // A run weighs what adding its weights one by one gives: 5..=9 is 4+5+6+5+4.
        assert_eq!(prefix[8] - prefix[3], 24.0);
        // Values out of order, a fractional weight, or sums past 2^53: no running sums.
        assert!(exact_prefix(&[(2, 1.0), (1, 1.0)]).is_none());
        assert!(exact_prefix(&[(1, 0.5), (2, 1.0)]).is_none());
        assert!(exact_prefix(&[(1, 9.0e15), (2, 9.0e15)]).is_none());
    }
}

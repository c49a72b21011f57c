//! A strike's triggers' world (`exec::World`): the verbs of `on attacked`, `hit`, `crit` and
//! `miss` change the exchange's state.

use super::*;

/// A strike's state as the verbs of its triggers change it: hit points (held at 0 once the
/// triggers are over), statuses, and what is laid for a battle to hold after the exchange.
pub(super) struct StrikeWorld<'s, 'u> {
    pub engine: &'s Engine,
    pub state: &'s mut State,
    pub laid: &'s mut Vec<Laid>,
    pub units: [&'u Unit; 2],
}

impl World for StrikeWorld<'_, '_> {
    fn present(&self, unit: usize) -> bool {
        unit < 2
    }
    fn hp(&self, unit: usize) -> i64 {
        self.state.hp.get(unit).copied().unwrap_or(0)
    }
    fn max_hp(&self, unit: usize) -> i64 {
        self.units.get(unit).map_or(0, |u| u.max_hp)
    }
    fn set_hp(&mut self, unit: usize, hp: i64) {
        if let Some(slot) = self.state.hp.get_mut(unit) {
            *slot = hp;
        }
    }
    fn inflict(&mut self, unit: usize, status: u32) -> bool {
        let Some(held) = self.state.statuses.get_mut(unit) else { return false };
        if held.contains(&status) {
            return false;
        }
        held.push(status);
        held.sort_unstable();
        self.laid.push(Laid::Afflicted { side: unit, status: self.engine.ir.name(status).to_string() });
        true
    }
    fn cure(&mut self, unit: usize) -> Vec<u32> {
        let gone = self.state.statuses.get_mut(unit).map(std::mem::take).unwrap_or_default();
        self.laid.push(Laid::Cured { side: unit });
        gone
    }
    fn clear(&mut self, unit: usize, status: u32) -> bool {
        let Some(held) = self.state.statuses.get_mut(unit) else { return false };
        let before = held.len();
        held.retain(|s| *s != status);
        let gone = held.len() < before;
        if gone {
            self.laid.push(Laid::Cleared { side: unit, status: self.engine.ir.name(status).to_string() });
        }
        gone
    }
    fn resource(&self, unit: usize, resource: u32) -> Option<i64> {
        let k = self.engine.resource_slot(resource)?;
        self.state.res.get(unit).and_then(|r| r.get(k)).map(|v| i64::from(*v))
    }
    fn set_resource(&mut self, unit: usize, resource: u32, amount: i64) {
        let Some(k) = self.engine.resource_slot(resource) else { return };
        if let Some(slot) = self.state.res.get_mut(unit).and_then(|r| r.get_mut(k)) {
            *slot = i32::try_from(amount.clamp(0, i64::from(i32::MAX))).unwrap_or(i32::MAX);
        }
    }
    /// Debuffs last through the unit's next turn, after this exchange: laid for the battle to hold.
    fn debuff(&mut self, unit: usize, attr: u16, shift: i64) -> bool {
        match self.engine.ir.attrs.get(attr as usize) {
            Some((name, _)) => {
                self.laid.push(Laid::Debuff { side: unit, attr: name.clone(), shift });
                true
            }
            None => false,
        }
    }
}

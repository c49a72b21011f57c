//! How an exchange is set up beyond its two loadouts and distance: a lone attack, who has
//! activated, the reactions struck units take.

use super::Exchange;
use crate::EngineError;

impl Exchange<'_> {
    /// A lone attack, with no counter and no follow-up (a free attack).
    pub fn single(mut self) -> Self {
        self.single = true;
        self
    }

    /// One combat of two attacks: the defender strikes back whatever the ruleset's `counter`
    /// says (within its reach), in the order of attack (`defender_first`, `simultaneous`). A
    /// battle fights so the answer to a declared attack that strikes its declarer: the declared
    /// attack is the defender's strikes.
    pub fn mutual(mut self) -> Self {
        self.mutual = true;
        self
    }

    /// Whether the defender strikes in this exchange (it may, and is in reach, as it begins).
    pub fn counters(&self) -> bool {
        !self.single && self.can_counter(&self.initial())
    }

    /// Whether the attacker and the defender have had their activation this round, as
    /// `activated` reads it: a battle's exchange says (a unit is activated once its activation
    /// is over, so an attacker in the middle of its own is not); outside a battle neither has.
    pub fn activated(mut self, activated: [bool; 2]) -> Self {
        // What the `when`s made of a strike may read it: judged again where it changes.
        if self.activated != activated {
            self.whens.get_mut().clear();
        }
        self.activated = activated;
        self
    }

    /// Whether the attacker and the defender moved in the step that made this attack, as
    /// `moved` reads it: an attack after a move in the same step is a charge. A free attack, the
    /// struck unit and every attack outside a battle did not. Rulesets that never read `moved`
    /// are not told ([`crate::Ir`] notes whether one does), so their exchanges stay one.
    pub fn moved(mut self, moved: [bool; 2]) -> Self {
        // What the `when`s made of a strike may read it: judged again where it changes.
        if self.moved != moved {
            self.whens.get_mut().clear();
        }
        self.moved = moved;
        self
    }

    /// How hidden the two units are from each other, as `cover` reads it: 0 in the open, 1 half
    /// hidden, 2 fully hidden (a battle tells, from what stands on the line between them).
    pub fn cover(mut self, cover: i64) -> Self {
        // What the `when`s made of a strike may read it: judged again where it changes.
        if self.cover != cover {
            self.whens.get_mut().clear();
        }
        self.cover = cover;
        self
    }

    /// States the reaction struck units take (a name from the ruleset's reactions), or `None` for
    /// no reactions at all; without this call each takes its best.
    pub fn with_reaction(self, reaction: Option<&str>) -> Result<Self, EngineError> {
        let name = reaction.unwrap_or("none");
        self.with_reactions([Some(name), Some(name)])
    }

    /// States each side's reaction when struck ([attacker, defender]): a reaction's name, `none`
    /// for none, or `None` (or `best`) for its best (the default).
    pub fn with_reactions(mut self, stances: [Option<&str>; 2]) -> Result<Self, EngineError> {
        for (side, stance) in stances.into_iter().enumerate() {
            let index = match stance {
                None | Some("best") => None,
                Some("none") => Some(None),
                Some(name) => {
                    // A reaction to a roll is no stance: it is taken once the dice are rolled.
                    let stances = || self.engine.rules.ruleset.reactions.iter().filter(|r| r.reroll.is_none());
                    let k = stances()
                        .position(|r| r.name == name)
                        .and_then(|_| self.engine.rules.ruleset.reactions.iter().position(|r| r.name == name));
                    let k = k.ok_or_else(|| {
                        let known = stances().map(|r| r.name.clone()).collect();
                        EngineError::UnknownReaction { name: name.to_string(), known }
                    })?;
                    Some(Some(u8::try_from(k).map_err(|_| EngineError::model("more than 255 reactions"))?))
                }
            };
            if let Some(slot) = self.policy.get_mut(side) {
                *slot = index;
            }
        }
        Ok(self)
    }
}

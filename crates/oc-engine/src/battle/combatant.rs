//! Copying a unit of the battle cheaply; its figures (seed 003's units of figures).

use super::Combatant;

/// Field by field, so that `clone_from` reuses the name and lists a unit already holds: a
/// turn keeps a copy of every unit to put back if the rules refuse it ([`Battle::turn`]), and
/// copying into last turn's copy allocates almost nothing.
impl Clone for Combatant {
    fn clone(&self) -> Self {
        Combatant {
            name: self.name.clone(),
            side: self.side,
            class: self.class,
            items: self.items.clone(),
            tags: self.tags.clone(),
            equipped: self.equipped,
            hp: self.hp,
            max_hp: self.max_hp,
            pos: self.pos,
            state: self.state,
            activated: self.activated,
            statuses: self.statuses.clone(),
            reverted: self.reverted,
            transformed: self.transformed,
            spent: self.spent.clone(),
            debuffs: self.debuffs.clone(),
            resources: self.resources.clone(),
            facing: self.facing,
            charging: self.charging,
            figures: self.figures,
            morale: self.morale.clone(),
        }
    }

    fn clone_from(&mut self, from: &Self) {
        // Every field named, so that a field added to `Combatant` cannot be left out here.
        let Combatant {
            name,
            side,
            class,
            items,
            tags,
            equipped,
            hp,
            max_hp,
            pos,
            state,
            activated,
            statuses,
            reverted,
            transformed,
            spent,
            debuffs,
            resources,
            facing,
            charging,
            figures,
            morale,
        } = from;
        self.name.clone_from(name);
        self.side = *side;
        self.class.clone_from(class);
        self.items.clone_from(items);
        self.tags.clone_from(tags);
        self.equipped.clone_from(equipped);
        self.hp = *hp;
        self.max_hp = *max_hp;
        self.pos = *pos;
        self.state = *state;
        self.activated = *activated;
        self.statuses.clone_from(statuses);
        self.reverted = *reverted;
        self.transformed = *transformed;
        self.spent.clone_from(spent);
        self.debuffs.clone_from(debuffs);
        self.resources.clone_from(resources);
        self.facing = *facing;
        self.charging = *charging;
        self.figures = *figures;
        self.morale.clone_from(morale);
    }
}

pub(super) fn one_figure() -> u32 {
    1
}

pub(super) fn is_one_figure(n: &u32) -> bool {
    *n == 1
}

impl Combatant {
    /// Its living figures: one figure's hit points into what it has left, rounded up.
    pub fn living(&self) -> i64 {
        let figures = i64::from(self.figures.max(1));
        let each = (self.max_hp / figures).max(1);
        (self.hp.max(0) + each - 1) / each
    }

    /// Its name, with its living figures where it was formed of several: "Braves (4 of 6)".
    pub fn shown(&self) -> String {
        if self.figures > 1 {
            format!("{} ({} of {})", self.name, self.living(), self.figures)
        } else {
            self.name.clone()
        }
    }
}

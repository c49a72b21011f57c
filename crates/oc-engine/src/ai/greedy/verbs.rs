//! Greedy's kept verbs: a unit's actions' verbs and whether one attacks an enemy, kept between
//! decisions by what they are read from.

use std::sync::Arc;

use oc_model as m;

use crate::battle::Battle;
use crate::fx::FastMap;
use crate::ir::{Eff, E};
use crate::Atom;

pub(in crate::ai) type Found = (Arc<[Option<m::Verb>]>, bool);

/// A unit's actions' verbs and whether one attacks an enemy (`Battle::action_verbs_attacking`),
/// by what `Battle::each_action` reads: its class, form, weapon held, items and own tags (an
/// atom by its text's address: one text, one atom). Only where no `grant` passes arguments but
/// constants and its tag's own (else it reads the unit where it stands): `Some(None)` then.
#[derive(Debug, Default)]
pub(in crate::ai) struct Verbs {
    kept: Option<Option<FastMap<Vec<usize>, Found>>>,
    /// The key being looked up, its room kept.
    key: Vec<usize>,
    /// By unit: the key its verbs were last looked up by, with what was found (a unit's, mostly
    /// the same from one decision to the next: compared, not hashed).
    last: Vec<(Vec<usize>, Option<Found>)>,
}

impl Verbs {
    /// How many units' verbs are kept.
    pub(in crate::ai) fn count(&self) -> usize {
        self.kept.iter().flatten().map(|k| k.len()).sum()
    }

    pub(in crate::ai) fn of(&mut self, b: &Battle, i: usize) -> Found {
        let kept = self.kept.get_or_insert_with(|| {
            let mut effects = b.engine.ir.effects.values().flat_map(|(_, effects)| effects);
            effects.all(|e| !matches!(e, Eff::Grant { args, .. } if !E::read_no_unit(args))).then(FastMap::default)
        });
        let found = |(verbs, attacks): (Vec<_>, bool)| (Arc::from(verbs), attacks);
        let (Some(kept), Some(u)) = (kept.as_mut(), b.units.get(i)) else { return found(b.action_verbs_attacking(i)) };
        let at = |a: &Atom| a.as_str().as_ptr() as usize;
        let key = &mut self.key;
        key.clear();
        key.extend([at(&u.class), usize::from(u.reverted), u.equipped.as_ref().map_or(0, at), u.items.len()]);
        key.extend(u.items.iter().chain(&u.tags).map(at));
        if let Some((k, Some(f))) = self.last.get(i) {
            if k == key {
                // The key of a unit's last lookup: what the map holds for it (checked in the debug builds).
                debug_assert!(kept.get(&key[..]).is_some_and(|(v, a)| v[..] == f.0[..] && *a == f.1));
                return f.clone();
            }
        }
        let f = match kept.get(&key[..]) {
            Some((verbs, attacks)) => {
                // What the key stands for must be all the verbs read: checked in the debug builds.
                debug_assert!({
                    let (fresh, fresh_attacks) = b.action_verbs_attacking(i);
                    fresh[..] == verbs[..] && fresh_attacks == *attacks
                });
                (verbs.clone(), *attacks)
            }
            None => kept.entry(key.clone()).or_insert_with(|| found(b.action_verbs_attacking(i))).clone(),
        };
        if self.last.len() <= i {
            self.last.resize_with(i + 1, Default::default);
        }
        if let Some((k, slot)) = self.last.get_mut(i) {
            k.clear();
            k.extend_from_slice(key);
            *slot = Some(f.clone());
        }
        f
    }
}

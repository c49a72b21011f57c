//! Seed 000 rules the engine got wrong, each quoted and asserted on a forecast.

use oc_engine::{Engine, Loadout};

fn ratings() -> Engine {
    let c = oc_compiler::stdlib::compile("<std>/ratings.oc").unwrap();
    Engine::new(c.rules.unwrap()).unwrap()
}

fn unit(spec: &str) -> Loadout {
    let (class, weapon) = spec.split_once(':').unwrap();
    Loadout::new(class, Some(weapon))
}

#[test]
fn accessory_weight_lowers_speed() {
    // Seed 000, Speed: "Speed is used to determine which Unit gets to make a Follow Up attack and
    // is reduced by the weight of the Unit's Weapon/Accessories."
    // Mercenary spd C, Iron Sword weight 0; Speedwings weight -1 raises Speed to B. Fighter spd C,
    // Iron Axe weight 1: D. B - D = 2 steps: a follow-up; without the Speedwings C - D = 1: none.
    let e = ratings();
    let (merc, fighter) = (unit("Mercenary:IronSword"), unit("Fighter:IronAxe"));
    let plain = e.forecast(&merc, &fighter, 1).unwrap();
    assert_eq!(plain.attacker.strikes, 1);
    let winged = Loadout { accessory: Some("Speedwings".into()), ..merc };
    let f = e.forecast(&winged, &fighter, 1).unwrap();
    assert_eq!(f.attacker.strikes, 2, "Speedwings' weight -1 gives the Mercenary its follow-up");
    // And the defender's accessory weighs on its Speed too: the Fighter with Speedwings is C.
    let fighter_winged = Loadout { accessory: Some("Speedwings".into()), ..fighter };
    let f = e.forecast(&winged, &fighter_winged, 1).unwrap();
    assert_eq!(f.attacker.strikes, 1);
}

#[test]
fn devastate_leaves_one_hp_even_on_a_critical_hit() {
    // Seed 000, General tags: "Devastate | Reduce target's HP to 1 |". A critical hit must not
    // triple that into a rout.
    let e = ratings();
    let attacker = Loadout { tags: vec![("Devastate".into(), vec![])], ..unit("Myrmidon:IronSword") };
    let f = e.forecast(&attacker, &unit("Fighter:IronAxe"), 1).unwrap();
    assert!(f.attacker.crit > 0.0, "the Myrmidon can crit");
    assert_eq!(f.defender_routed, 0.0, "Devastate never routs: {:?}", f.defender_hp);
    assert!(f.defender_hp.keys().all(|hp| *hp >= 1), "{:?}", f.defender_hp);
    assert!(f.defender_hp.get(&1).copied().unwrap_or(0.0) > 0.5, "{:?}", f.defender_hp);
}

#[test]
fn a_debuff_lowers_the_rating_in_later_exchanges() {
    // Seed 000, Inflict(Rating-X): the target's Rating is reduced by X. A Fighter (spd C, Iron
    // Axe weight 1: D) lowered by 2 is at F: the Mercenary (C) is 2 steps faster and follows up.
    let e = ratings();
    let (merc, fighter) = (unit("Mercenary:IronSword"), unit("Fighter:IronAxe"));
    assert_eq!(e.forecast(&merc, &fighter, 1).unwrap().attacker.strikes, 1);
    let slowed = Loadout { debuffs: vec![("spd".into(), -2)], ..fighter };
    assert_eq!(e.forecast(&merc, &slowed, 1).unwrap().attacker.strikes, 2);
}

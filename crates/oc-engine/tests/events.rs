//! Events in exchanges: `on attacked` runs for the defender as the attack is declared, in the
//! exact forecast and in the seeded duel alike.

use oc_compiler::{MemoryHost, Workspace};
use oc_engine::{Engine, Loadout};

#[test]
fn on_attacked_runs_before_the_first_strike() {
    let text = "tag Thorny on class, unit doc \"Thorns: whoever attacks it takes 3.\" { on attacked { damage(foe, 3) } }";
    let mut ws = Workspace::new();
    let (c, _) = ws.compile(&mut MemoryHost::one("t.oc", text), &["t.oc".to_string()]);
    let e = Engine::new(c.rules.unwrap_or_else(|| panic!("{:#?}", c.diagnostics))).unwrap();
    let attacker = Loadout::new("Myrmidon", Some("IronSword"));
    let plain = Loadout::new("Fighter", Some("IronAxe"));
    let thorny = Loadout { tags: vec![("Thorny".into(), vec![])], ..plain.clone() };
    let f = e.forecast(&attacker, &thorny, 1).unwrap();
    let top = *f.attacker_hp.keys().next_back().unwrap();
    assert_eq!(top, 20 - 3, "the Myrmidon never leaves at full HP: {:?}", f.attacker_hp);
    let without = e.forecast(&attacker, &plain, 1).unwrap();
    assert_eq!(*without.attacker_hp.keys().next_back().unwrap(), 20);
    for seed in 0..50 {
        let (_, hp) = e.duel(&attacker, &thorny, 1, seed).unwrap();
        assert!(hp[0] <= 17, "seed {seed}: {hp:?}");
    }
}

//! `oc_play::matchup`: a unit written `CLASS` takes its kit weapon, `CLASS:WEAPON` the one
//! named; what an army could not field is refused with the compiler's words, and an unknown
//! class or item with the nearest names; the default distance is the weapon's nearest reach.

use oc_play::matchup::{self, Side};
use oc_play::rules;

fn side(spec: &str) -> Side {
    Side { spec: spec.into(), terrain: None, hp: None, statuses: Vec::new(), accessory: None, normal_form: false }
}

#[test]
fn loadouts_refusals_and_distances() {
    let engine = rules::load(&rules::builtin("officers_chess").unwrap(), "test").unwrap().engine;
    let cavalier = matchup::build(&engine, &side("Cavalier")).unwrap();
    assert_eq!(cavalier.weapon.as_deref(), engine.kit_weapon("Cavalier").as_deref());
    let archer = matchup::build(&engine, &side("Archer:IronBow")).unwrap();
    assert_eq!(archer.weapon.as_deref(), Some("IronBow"));
    assert_eq!(matchup::distance_for(&engine, &archer, None), 2, "a bow's nearest reach");
    assert_eq!(matchup::distance_for(&engine, &archer, Some(3)), 3);
    let wrong = matchup::build(&engine, &side("Cavalier:IronBow")).err().unwrap();
    assert!(wrong.code.is_some_and(|c| c.starts_with("oc::")) && !wrong.help.is_empty(), "{wrong:?}");
    let unknown = matchup::build(&engine, &side("Cavalir")).err().unwrap();
    assert_eq!(unknown.code, Some("oc::engine::unknown_name"));
    assert!(unknown.message == "no class `Cavalir` in these rules" && unknown.help.contains("`Cavalier`"), "{unknown:?}");
    let item = matchup::build(&engine, &side("Cavalier:IronSwrd")).err().unwrap();
    assert!(item.message.starts_with("no item `IronSwrd`") && item.help.contains("`IronSword`"), "{item:?}");
    // An item in the other slot: said as such, with the code of its rule.
    let sword = matchup::build(&engine, &Side { accessory: Some("IronSword".into()), ..side("Fighter") }).err().unwrap();
    assert_eq!((sword.code, sword.message.as_str()), (Some("oc::engine::not_a"), "`IronSword` is not an accessory"));
    let x = matchup::exchange(&engine, &cavalier, &archer, 1, matchup::Stated::default()).unwrap();
    let f = x.forecast();
    assert!((0.0..=1.0).contains(&f.defender_routed));
}

//! Seed 001 (v0.6, numeric): one case per tag and status whose effect shows in a single
//! exchange, each quoting the seed and asserting the exact forecast figures worked out by hand:
//! a d20 at or under Skill hits, a 1 (through 1+Lucky) crits, Damage = Str + Might - Def/Res
//! (doubled after Defense on a crit), the higher Attack Speed (Spd - weights) follows up.
//! Battle-level tags (Sacred, Relic's damage, Arts, Poisoned's roll, Warp) are in this crate's
//! `tests/seed_battle_tags.rs`.
//!
//! Stats used (crates/oc-compiler/std/v06/roster.oc), str skl spd def res: Fighter 10 9 8 5 1,
//! Mercenary 7 12 10 6 2, Knight 9 8 3 12 1, Myrmidon 5 14 13 4 3 (Lucky 1), Archer 6 12 8 5 3,
//! Cavalier 7 10 8 7 3, General 12 10 4 16 5 (Guarded), Swordmaster 8 17 16 6 5 (Lucky 3),
//! Shaman 8 9 6 3 8, Monk 6 11 9 2 9, Mage 7 11 8 2 7, Lady 9 13 12 7 6 (CrestOfBlaiddyd).
//! Weapons, might/weight: Iron Sword 5/1, Iron Axe 7/3 Inaccurate(1), Iron Lance 6/2, Iron Bow
//! 6/1, Brave Sword 7/3, Killing Edge 7/1 Lucky(4), Horseslayer 7/3, Steel Lance 9/4, Fire 5/0,
//! Lightning 4/0, Luna 0/2 Piercing, Areadbhar 14/3 Relic(CrestOfBlaiddyd) Effective(Cavalry).

use oc_engine::{Engine, Forecast, Loadout, Shown};
use oc_model::{Type, Value};

fn v06() -> Engine {
    let c = oc_compiler::stdlib::compile("<std>/v06.oc").unwrap();
    assert!(c.diagnostics.is_empty(), "{:#?}", c.diagnostics);
    Engine::new(c.rules.unwrap()).unwrap()
}

fn u(spec: &str) -> Loadout {
    let (class, weapon) = spec.split_once(':').unwrap();
    Loadout::new(class, Some(weapon))
}

fn tag(mut l: Loadout, name: &str, args: Vec<Value>) -> Loadout {
    l.tags.push((name.into(), args));
    l
}

fn status(mut l: Loadout, name: &str) -> Loadout {
    l.statuses.push(name.into());
    l
}

fn int(x: i64) -> Value {
    Value::Int(x)
}

fn named(name: &str) -> Value {
    Value::Name { ty: Type::Tag, name: name.into() }
}

/// What a case asserts; `None` is not checked.
#[derive(Default)]
struct Expect {
    hit: Option<f64>,
    crit: Option<f64>,
    damage: Option<i64>,
    crit_damage: Option<i64>,
    /// (attacker, defender) strikes.
    strikes: Option<(u32, u32)>,
    defender_hit: Option<f64>,
    defender_damage: Option<i64>,
}

struct Case {
    tag: &'static str,
    seed: &'static str,
    attacker: Loadout,
    defender: Loadout,
    distance: i64,
    expect: Expect,
}

fn check(e: &Engine, c: &Case) -> Forecast {
    let f = e.forecast(&c.attacker, &c.defender, c.distance).unwrap_or_else(|err| panic!("{}: {err}", c.tag));
    let close = |a: f64, b: f64| (a - b).abs() < 1e-9;
    let x = &c.expect;
    let ctx = format!("{} (seed: {:?})", c.tag, c.seed);
    if let Some(v) = x.hit {
        assert!(close(f.attacker.hit, v), "{ctx}: hit {} != {v}", f.attacker.hit);
    }
    if let Some(v) = x.crit {
        assert!(close(f.attacker.crit, v), "{ctx}: crit {} != {v}", f.attacker.crit);
    }
    if let Some(v) = x.damage {
        assert_eq!(f.attacker.damage, v, "{ctx}: damage");
    }
    if let Some(v) = x.crit_damage {
        assert_eq!(f.attacker.crit_damage, v, "{ctx}: critical damage");
    }
    if let Some(v) = x.strikes {
        assert_eq!((f.attacker.strikes, f.defender.strikes), v, "{ctx}: strikes");
    }
    if let Some(v) = x.defender_hit {
        assert!(close(f.defender.hit, v), "{ctx}: defender hit {} != {v}", f.defender.hit);
    }
    if let Some(v) = x.defender_damage {
        assert_eq!(f.defender.damage, v, "{ctx}: defender damage");
    }
    f
}

fn hp(mut l: Loadout, hp: i64) -> Loadout {
    l.hp = Some(hp);
    l
}

fn cases() -> Vec<Case> {
    let merc = || u("Mercenary:IronSword");
    let fighter = || u("Fighter:IronAxe");
    vec![
        Case {
            tag: "Lucky(X)",
            seed: "Lucky(X) Unit crits on 1 through 1+X. This effect stacks if a Class and Weapon both provide it.",
            // Swordmaster Lucky(3) + Killing Edge Lucky(4): crits on 1..8. Skill 17+1 = 18 of 20.
            // Damage 8 + 7 - 5 + 1 = 11, doubled 22.
            attacker: u("Swordmaster:KillingEdge"),
            defender: fighter(),
            distance: 1,
            expect: Expect { hit: Some(0.90), crit: Some(0.40), damage: Some(11), crit_damage: Some(22), ..Expect::default() },
        },
        Case {
            tag: "Bonus(Stat+X)",
            seed: "Bonus(Stat+X) While wielded, increase Stat by X.",
            // 10 + 7 - (12 + 3) + 1 (Axes beat Lances) = 3.
            attacker: fighter(),
            defender: tag(u("Knight:IronLance"), "Bonus", vec![Value::StatMod { stat: "def".into(), amount: 3 }]),
            distance: 1,
            expect: Expect { damage: Some(3), crit_damage: Some(6), ..Expect::default() },
        },
        Case {
            tag: "Brave",
            seed: "Brave Attack an additional time any time this Unit attacks.",
            // AS 13 - 3 = 10 vs 8 - 3 = 5: a follow-up, both doubled. 5 + 7 - 5 + 1 = 8.
            attacker: u("Myrmidon:BraveSword"),
            defender: fighter(),
            distance: 1,
            expect: Expect { strikes: Some((4, 1)), damage: Some(8), ..Expect::default() },
        },
        Case {
            tag: "Complex",
            seed: "Complex When using this weapon the unit will never get a follow up attack, even if it is faster.",
            attacker: tag(u("Myrmidon:IronSword"), "Complex", vec![]),
            defender: fighter(),
            distance: 1,
            expect: Expect { strikes: Some((1, 1)), ..Expect::default() },
        },
        Case {
            tag: "Decimate",
            seed: "Decimate Deal damage equal to half target's HP",
            attacker: tag(u("Myrmidon:IronSword"), "Decimate", vec![]),
            defender: hp(fighter(), 18),
            distance: 1,
            expect: Expect { damage: Some(9), crit_damage: Some(9), ..Expect::default() },
        },
        Case {
            tag: "Devastate",
            seed: "Devastate Reduce target's HP to 1",
            attacker: tag(u("Myrmidon:IronSword"), "Devastate", vec![]),
            defender: fighter(),
            distance: 1,
            expect: Expect { damage: Some(19), crit_damage: Some(19), ..Expect::default() },
        },
        Case {
            tag: "DistantCounter",
            seed: "DistantCounter Unit can counter attack at any range, even one they could not normally attack at.",
            // The Mercenary counters the bow at 2 and follows up (AS 9 vs 7): skill 12, 7 + 5 - 5.
            attacker: u("Archer:IronBow"),
            defender: tag(merc(), "DistantCounter", vec![]),
            distance: 2,
            expect: Expect { strikes: Some((1, 2)), defender_hit: Some(0.60), defender_damage: Some(7), ..Expect::default() },
        },
        Case {
            tag: "Effective(tag)",
            seed: "Effective(tag) Attacks against units with the noted tag do 3 extra Damage.",
            // Horseslayer: Effective(Cavalry). 9 + 7 - 7 + 1 (Lances beat Swords) + 3 = 13.
            attacker: u("Knight:Horseslayer"),
            defender: u("Cavalier:IronSword"),
            distance: 1,
            expect: Expect { damage: Some(13), ..Expect::default() },
        },
        Case {
            tag: "Countermeasure(Tag)",
            seed: "Countermeasure(Tag) Weapons with Effective against the listed tag do not get their effectiveness bonus against this Unit.",
            attacker: u("Knight:Horseslayer"),
            defender: tag(u("Cavalier:IronSword"), "Countermeasure", vec![named("Cavalry")]),
            distance: 1,
            expect: Expect { damage: Some(10), ..Expect::default() },
        },
        Case {
            tag: "Guarded",
            seed: "Guarded This unit does not take extra damage from critical hits.",
            // 10 + 7 - 16 + 1 = 2, and 2 on a crit.
            attacker: fighter(),
            defender: u("General:SteelLance"),
            distance: 1,
            expect: Expect { damage: Some(2), crit_damage: Some(2), ..Expect::default() },
        },
        Case {
            tag: "Ineffective(tag)",
            seed: "Ineffective(tag) Units with the listed tag take no damage from this weapon.",
            attacker: tag(fighter(), "Ineffective", vec![named("Armored")]),
            defender: u("Knight:IronLance"),
            distance: 1,
            expect: Expect { damage: Some(0), crit_damage: Some(0), ..Expect::default() },
        },
        Case {
            tag: "Inverted",
            seed: "Inverted Reverse the Weapon Triangle when using this weapon",
            // The axe gains the advantage, the sword loses it. Fighter skill 9 - 1 + 1 = 9 (45%),
            // 10 + 7 - 6 + 1 = 12; Mercenary skill 12 - 1 = 11 (55%), 7 + 5 - 5 - 1 = 6.
            attacker: tag(fighter(), "Inverted", vec![]),
            defender: merc(),
            distance: 1,
            expect: Expect {
                hit: Some(0.45),
                damage: Some(12),
                defender_hit: Some(0.55),
                defender_damage: Some(6),
                ..Expect::default()
            },
        },
        Case {
            tag: "Magic(Type)",
            seed: "Magic(Type) Attacks with this Weapon are considered Magic attacks of the Type listed.",
            // Against Resistance 1 instead of Defense 12: 10 + 7 - 1 + 1 = 17.
            attacker: tag(fighter(), "Magic", vec![Value::Name { ty: Type::WeaponType, name: "Reason".into() }]),
            defender: u("Knight:IronLance"),
            distance: 1,
            expect: Expect { damage: Some(17), ..Expect::default() },
        },
        Case {
            tag: "Piercing",
            seed: "Piercing Ignore Target's Defense.",
            // Luna (Dark) against the Monk's Resistance 9, ignored: 8 + 0 - 0 - 1 (Faith beats Dark) = 7.
            attacker: u("Shaman:Luna"),
            defender: u("Monk:Lightning"),
            distance: 2,
            expect: Expect { damage: Some(7), ..Expect::default() },
        },
        Case {
            tag: "Assassinate",
            seed: "Assassinate When this unit crits a non promoted Unit, deal Damage equal to it's remaining health.",
            attacker: tag(u("Myrmidon:IronSword"), "Assassinate", vec![]),
            defender: hp(fighter(), 13),
            distance: 1,
            expect: Expect { crit_damage: Some(13), ..Expect::default() },
        },
        Case {
            tag: "Assassinate (promoted target)",
            seed: "Assassinate When this unit crits a non promoted Unit, deal Damage equal to it's remaining health.",
            // The Swordmaster is promoted: the usual ((5 + 5) - 6) * 2 = 8.
            attacker: tag(u("Myrmidon:IronSword"), "Assassinate", vec![]),
            defender: u("Swordmaster:IronSword"),
            distance: 1,
            expect: Expect { damage: Some(4), crit_damage: Some(8), ..Expect::default() },
        },
        Case {
            tag: "Barrier",
            seed: "Barrier Unit gains Bonus(Res+2) until end of next round.",
            // 7 + 5 - (1 + 2) = 9 (11 without).
            attacker: u("Mage:Fire"),
            defender: status(u("Knight:IronLance"), "Barrier"),
            distance: 2,
            expect: Expect { damage: Some(9), ..Expect::default() },
        },
        Case {
            tag: "Petrified",
            seed: "Petrified Unit cannot move or attack and Attacks against it have Lucky(2).",
            // Skill 12 + 1 = 13 (65%); crits on 1..3; no counter; AS 9 vs 5: a follow-up.
            attacker: merc(),
            defender: status(fighter(), "Petrified"),
            distance: 1,
            expect: Expect { hit: Some(0.65), crit: Some(0.15), strikes: Some((2, 0)), ..Expect::default() },
        },
        Case {
            tag: "Sleep",
            seed: "Sleep Unit cannot move or attack.",
            attacker: merc(),
            defender: status(fighter(), "Sleep"),
            distance: 1,
            expect: Expect { strikes: Some((2, 0)), ..Expect::default() },
        },
        Case {
            tag: "Silenced",
            seed: "Silenced Unit cannot use Reason, Dark, Faith, or Staves.",
            attacker: u("Archer:IronBow"),
            defender: status(u("Mage:Fire"), "Silenced"),
            distance: 2,
            expect: Expect { strikes: Some((1, 0)), ..Expect::default() },
        },
        Case {
            tag: "Poisoned (no combat effect in v0.6)",
            seed: "Poisoned At the start of a new round, roll a D20. On 1~10, Unit loses Poisoned, on 11~20, take 2 points of damage.",
            // Unlike seed 000's Poisoned, attacks against it deal nothing extra: 7 + 5 - 5 + 1 = 8.
            attacker: merc(),
            defender: status(fighter(), "Poisoned"),
            distance: 1,
            expect: Expect { damage: Some(8), ..Expect::default() },
        },
        Case {
            tag: "Relic(Crest) (without the Crest)",
            seed: "Relic(Crest) All other tags are ignored if the Unit does not have the Crest listed.",
            // A Knight wields lances but has no Crest of Blaiddyd: no Effective(Cavalry).
            // 9 + 14 - 7 + 1 = 17 (the Lady, who has it, deals 20: forecast.rs v06).
            attacker: u("Knight:Areadbhar"),
            defender: u("Cavalier:IronSword"),
            distance: 1,
            expect: Expect { damage: Some(17), ..Expect::default() },
        },
        Case {
            tag: "Crest (a unit granted the Crest)",
            seed: "Having this ancestry is called having a Crest.",
            // The same Knight given the Crest of Blaiddyd as a unit tag: Effective(Cavalry) counts.
            attacker: tag(u("Knight:Areadbhar"), "CrestOfBlaiddyd", vec![]),
            defender: u("Cavalier:IronSword"),
            distance: 1,
            expect: Expect { damage: Some(20), ..Expect::default() },
        },
        Case {
            tag: "SpellRange(X)",
            seed: "SpellRange(X) Increase the range of Reason, Dark, and Faith weapons used by this unit by X.",
            // Luna reaches 1..2; SpellRange(1): 3.
            attacker: tag(u("Shaman:Luna"), "SpellRange", vec![int(1)]),
            defender: fighter(),
            distance: 3,
            expect: Expect { damage: Some(8), strikes: Some((1, 0)), ..Expect::default() },
        },
    ]
}

#[test]
fn every_exchange_tag_gives_the_seeds_numbers() {
    let e = v06();
    let failed: Vec<&str> = cases()
        .iter()
        .filter(|c| std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| check(&e, c))).is_err())
        .map(|c| c.tag)
        .collect();
    assert!(failed.is_empty(), "failed: {failed:?}");
}

#[test]
fn drain_heals_half_the_damage_dealt() {
    // "Drain Recover HP equal to half of the damage dealt". Archer (10 HP) with Drain shoots a
    // Fighter from 2 (no counter) twice (AS 7 vs 5): skill 12 (60%), a 1 crits (5%); 6 + 6 - 5 = 7
    // heals 3, a crit's 14 heals 7.
    let e = v06();
    let archer = hp(tag(u("Archer:IronBow"), "Drain", vec![]), 10);
    let f = e.forecast(&archer, &u("Fighter:IronAxe"), 2).unwrap();
    let p = |h: i64| f.attacker_hp.get(&h).copied().unwrap_or(0.0);
    let close = |a: f64, b: f64| (a - b).abs() < 1e-9;
    assert!(close(p(10), 0.16) && close(p(13), 0.44) && close(p(16), 0.3025) && close(p(17), 0.04), "{:?}", f.attacker_hp);
}

fn effective(e: &Engine, l: &Loadout, name: &str) -> Shown {
    let f = e.forecast(l, &u("Fighter:IronAxe"), 1).unwrap_or_else(|err| panic!("{err}"));
    f.attacker.effective.iter().find(|(n, _)| n == name).map(|(_, v)| v.clone()).unwrap()
}

#[test]
fn movement_tags_set_the_units_movement() {
    let e = v06();
    // "Fast(X) Unit can move X more spaces in a turn." Thief: Fast(1).
    assert_eq!(effective(&e, &u("Thief:IronSword"), "movement"), Shown::Int(6));
    // "Slow(X) Unit can move X less spaces in a turn."; "Slowed Unit gains the tag Slow(1)."
    assert_eq!(effective(&e, &tag(u("Mercenary:IronSword"), "Slow", vec![int(2)]), "movement"), Shown::Int(3));
    assert_eq!(effective(&e, &status(u("Mercenary:IronSword"), "Slowed"), "movement"), Shown::Int(4));
    // "Units with certain tags (Armored, Cavalry, Flying) use their respective columns".
    for (spec, column) in
        [("Knight:IronLance", "Armored"), ("Cavalier:IronLance", "Cavalry"), ("PegasusKnight:IronLance", "Flying")]
    {
        assert_eq!(effective(&e, &u(spec), "movement_type"), Shown::Text(column.into()), "{spec}");
    }
    // "Flying Unit ignores Terrain": a Pegasus Knight in a Forest keeps Defense 4.
    let mut pegasus = u("PegasusKnight:IronLance");
    pegasus.terrain = Some("Forest".into());
    let f = e.forecast(&u("Archer:IronBow"), &pegasus, 2).unwrap();
    assert_eq!(f.attacker.damage, 6 + 6 - 4 + 3);
}

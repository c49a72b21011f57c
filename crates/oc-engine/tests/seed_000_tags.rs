//! Seed 000 (the ratings revision): one case per tag and status whose effect shows in a single
//! exchange, each quoting the seed and asserting the exact forecast figures worked out by hand
//! from the seed's To Hit and Damage tables. Battle-level tags (special actions, scenario tags,
//! durations, movement on a map) are in this crate's `tests/seed_battle_tags.rs`; tags an older
//! test already asserts are listed in `docs/seed-coverage.md`.
//!
//! Ratings used (crates/oc-compiler/std/ratings/classes.oc), str mag skl spd def res:
//! Mercenary C E B C C D, Fighter A E D C D E, Knight B E D E A E, Archer C E B C D D,
//! Myrmidon D E A A D D (Lucky 5), Mage E B C C E C, Monk E C C C E B, Lord C E B B D D,
//! Thief E E C A E D (Pick, Fast 1), Manakete (transformed) A C C D A B.

use oc_engine::{Engine, Forecast, Loadout, Shown};
use oc_model::{Type, Value};

fn ratings() -> Engine {
    let c = oc_compiler::stdlib::compile("<std>/ratings.oc").unwrap();
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

fn accessory(mut l: Loadout, name: &str) -> Loadout {
    l.accessory = Some(name.into());
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

fn cases() -> Vec<Case> {
    let merc = || u("Mercenary:IronSword");
    let fighter = || u("Fighter:IronAxe");
    vec![
        Case {
            tag: "Bonus(Rating+X)",
            seed: "Bonus(Rating+X) | While wielded, increase Rating by X.",
            // Iron Buckler: Bonus(def+1), weight 1. Def C+1 = B: Damage[C][B] = 2, x3 = 6;
            // Speed C-1 = D: To Hit[B][D] = 80; C vs D is one step: no follow-up.
            attacker: merc(),
            defender: accessory(merc(), "IronBuckler"),
            distance: 1,
            expect: Expect {
                hit: Some(0.80),
                damage: Some(2),
                crit_damage: Some(6),
                strikes: Some((1, 1)),
                ..Expect::default()
            },
        },
        Case {
            tag: "Brave (counter)",
            seed: "Brave | Attack an additional time any time this Unit attacks. (This applies to both the Attack, and potential Follow Up.)",
            // A counter attack is an attack ("the Target becomes the Attacker"): the Brave Sword
            // strikes twice on the counter and twice on the follow-up (spd A-1 = B vs D).
            attacker: fighter(),
            defender: u("Myrmidon:BraveSword"),
            distance: 1,
            expect: Expect { strikes: Some((1, 4)), defender_damage: Some(4), ..Expect::default() },
        },
        Case {
            tag: "Complex",
            seed: "Complex | When using this weapon the unit will never get a Follow Up attack, even if it is faster.",
            // Myrmidon spd A vs Fighter D: 3 steps, a follow-up without Complex (r01).
            attacker: tag(u("Myrmidon:IronSword"), "Complex", vec![]),
            defender: fighter(),
            distance: 1,
            expect: Expect { strikes: Some((1, 1)), ..Expect::default() },
        },
        Case {
            tag: "DistantCounter",
            seed: "DistantCounter | Unit can counter attack at any range, even one they could not normally attack at with their equipped Weapon.",
            // The sword reaches 1, the bow shoots from 2: the Mercenary still counters.
            // To Hit[B][C] = 70; Damage[C][D] = 3.
            attacker: u("Archer:IronBow"),
            defender: tag(merc(), "DistantCounter", vec![]),
            distance: 2,
            expect: Expect { strikes: Some((1, 1)), defender_hit: Some(0.70), defender_damage: Some(3), ..Expect::default() },
        },
        Case {
            tag: "Dragon (Effective(Dragon))",
            seed: "Effective(tag) | Attacks against units with the noted tag do 3 extra Damage.",
            // Manakete (Dragon), transformed def A: Damage[C][A] = 1, +3 = 4.
            attacker: tag(u("Archer:IronBow"), "Effective", vec![named("Dragon")]),
            defender: u("Manakete:Dragonstone"),
            distance: 2,
            expect: Expect { damage: Some(4), crit_damage: Some(12), ..Expect::default() },
        },
        Case {
            tag: "Monster (Effective(Monster))",
            seed: "Effective(tag) | Attacks against units with the noted tag do 3 extra Damage.",
            // Divine: Effective(Monster), might 2: Monk mag C+2 = A vs res E: Damage[A][E] = 6, +3.
            attacker: u("Monk:Divine"),
            defender: tag(fighter(), "Monster", vec![]),
            distance: 2,
            expect: Expect { damage: Some(9), ..Expect::default() },
        },
        Case {
            tag: "Ineffective(tag)",
            seed: "Ineffective(tag) | Units with the listed tag take no damage from this weapon.",
            attacker: tag(fighter(), "Ineffective", vec![named("Armored")]),
            defender: u("Knight:IronLance"),
            distance: 1,
            expect: Expect { damage: Some(0), crit_damage: Some(0), ..Expect::default() },
        },
        Case {
            tag: "Inverted",
            seed: "Inverted | Reverse the Weapon Triangle when using this weapon.",
            // Swordreaver (Axes, Inverted, weight 1) against a sword: the axe now has the
            // advantage and the sword the disadvantage. Fighter skl D+1 = C vs spd C: To Hit 60;
            // Damage[A][C] = 4, +1 = 5. Mercenary skl B-1 = C vs spd C-1 = D: To Hit 80;
            // Damage[C][D] = 3, -1 = 2.
            attacker: u("Fighter:Swordreaver"),
            defender: merc(),
            distance: 1,
            expect: Expect {
                hit: Some(0.60),
                damage: Some(5),
                defender_hit: Some(0.80),
                defender_damage: Some(2),
                strikes: Some((1, 1)),
                ..Expect::default()
            },
        },
        Case {
            tag: "Inverted (both sides)",
            seed: "Inverted | Reverse the Weapon Triangle when using this weapon.",
            // Both weapons Inverted: the triangle is reversed twice, so it is the plain one.
            // Mercenary skl B+1 = A vs Fighter spd D: To Hit 90, Damage[C][D] = 3, +1 = 4.
            // Fighter skl D-1 = E vs C: To Hit 50, Damage[A][C] = 4, -1 = 3.
            attacker: tag(merc(), "Inverted", vec![]),
            defender: u("Fighter:Swordreaver"),
            distance: 1,
            expect: Expect {
                hit: Some(0.90),
                damage: Some(4),
                defender_hit: Some(0.50),
                defender_damage: Some(3),
                ..Expect::default()
            },
        },
        Case {
            tag: "Lucky(X)",
            seed: "Lucky(X) | Unit scores a critical hit when their roll to Hit is less than 10+X.",
            // Slim Sword: Lucky(5), weight -1. Read as 10+X or less: crit on 1..15.
            // Skill B vs spd C: To Hit 70.
            attacker: u("Mercenary:SlimSword"),
            defender: merc(),
            distance: 1,
            expect: Expect { hit: Some(0.70), crit: Some(0.15), ..Expect::default() },
        },
        Case {
            tag: "Lucky(X) (stacks)",
            seed: "This effect stacks if a Class and Weapon both provide it.",
            // Myrmidon Lucky(5) + Lucky Charm Lucky(5) + Killing Edge Lucky(20): crit on 1..40.
            attacker: accessory(u("Myrmidon:KillingEdge"), "LuckyCharm"),
            defender: fighter(),
            distance: 1,
            expect: Expect { hit: Some(0.90), crit: Some(0.40), ..Expect::default() },
        },
        Case {
            tag: "Magic(Type)",
            seed: "Magic(Type) | Attacks with this Weapon are considered Magic attacks of the Type listed.",
            // Light Brand (Swords, Magic(Reason)): the Lord's Mag E against the Knight's Res E:
            // Damage[E][E] = 3, -1 (Swords lose to Lances) = 2; with Str C vs Def A it would be 0.
            // Spd B-1 = C vs E: a follow-up; the lance cannot reach 2.
            attacker: u("Lord:LightBrand"),
            defender: u("Knight:IronLance"),
            distance: 2,
            expect: Expect { damage: Some(2), strikes: Some((2, 0)), ..Expect::default() },
        },
        Case {
            tag: "Assassinate",
            seed: "Assassinate | When this unit scores a critical hit on a non promoted Unit, deal Damage equal to it's remaining health.",
            attacker: u("Assassin:SteelSword"),
            defender: {
                let mut l = fighter();
                l.hp = Some(13);
                l
            },
            distance: 1,
            expect: Expect { crit_damage: Some(13), ..Expect::default() },
        },
        Case {
            tag: "Decimate",
            seed: "Decimate | Deal damage equal to half target's HP",
            // Eclipse: half of 18 is 9, on a critical hit too (the set amount is not tripled,
            // as Devastate's is not).
            attacker: u("Druid:Eclipse"),
            defender: {
                let mut l = fighter();
                l.hp = Some(18);
                l
            },
            distance: 3,
            expect: Expect { damage: Some(9), crit_damage: Some(9), strikes: Some((1, 0)), ..Expect::default() },
        },
        Case {
            tag: "Barrier",
            seed: "Barrier | Unit gains Bonus(Res+1) until end of next round.",
            // Mage mag B vs Knight res E+1 = D: Damage[B][D] = 4 (5 without Barrier).
            attacker: u("Mage:Fire"),
            defender: status(u("Knight:IronLance"), "Barrier"),
            distance: 2,
            expect: Expect { damage: Some(4), ..Expect::default() },
        },
        Case {
            tag: "Sleep",
            seed: "Sleep | Unit cannot move or attack.",
            attacker: u("Myrmidon:IronSword"),
            defender: status(fighter(), "Sleep"),
            distance: 1,
            expect: Expect { strikes: Some((2, 0)), ..Expect::default() },
        },
        Case {
            tag: "Poisoned",
            seed: "Poisoned | All attacks against the Unit deal an additional 1 point of damage.",
            // Mercenary vs Mercenary: Damage[C][C] = 3, +1.
            attacker: merc(),
            defender: status(merc(), "Poisoned"),
            distance: 1,
            expect: Expect { damage: Some(4), crit_damage: Some(12), ..Expect::default() },
        },
        Case {
            tag: "Petrified",
            seed: "Petrified | Unit cannot move or attack and Attacks against it have Lucky(20).",
            // Crit on 1..30; To Hit[B][C] = 70; no counter.
            attacker: merc(),
            defender: status(merc(), "Petrified"),
            distance: 1,
            expect: Expect { hit: Some(0.70), crit: Some(0.30), strikes: Some((1, 0)), ..Expect::default() },
        },
        Case {
            tag: "SpellRange(X)",
            seed: "SpellRange(X) | Increase the range of Reason, Dark, and Faith weapons used by this unit by X.",
            // Fire reaches 1..2; with SpellRange(1) the Mage reaches 3. Mag B vs res E: 5.
            attacker: tag(u("Mage:Fire"), "SpellRange", vec![int(1)]),
            defender: fighter(),
            distance: 3,
            expect: Expect { damage: Some(5), strikes: Some((1, 0)), ..Expect::default() },
        },
        Case {
            tag: "SpellRange(X) (long-range tomes)",
            seed: "SpellRange(X) | Increase the range of Reason, Dark, and Faith weapons used by this unit by X.",
            // Bolting reaches 3..10: every Reason weapon, so 11 with SpellRange(1).
            attacker: tag(u("Mage:Bolting"), "SpellRange", vec![int(1)]),
            defender: fighter(),
            distance: 11,
            expect: Expect { strikes: Some((1, 0)), ..Expect::default() },
        },
    ]
}

#[test]
fn every_exchange_tag_gives_the_seeds_numbers() {
    let e = ratings();
    let failed: Vec<&str> = cases()
        .iter()
        .filter(|c| std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| check(&e, c))).is_err())
        .map(|c| c.tag)
        .collect();
    assert!(failed.is_empty(), "failed: {failed:?}");
}

fn effective(e: &Engine, l: &Loadout, name: &str) -> Shown {
    let f = e.forecast(l, &u("Fighter:IronAxe"), 1).unwrap_or_else(|err| panic!("{err}"));
    f.attacker.effective.iter().find(|(n, _)| n == name).map(|(_, v)| v.clone()).unwrap()
}

#[test]
fn movement_tags_set_the_units_movement() {
    let e = ratings();
    // "Fast(X) | Unit can move X more spaces in a turn." Thief: Fast(1) on the base 5.
    assert_eq!(effective(&e, &u("Thief:IronSword"), "movement"), Shown::Int(6));
    // Speedwings: Fast(1) on an accessory.
    assert_eq!(effective(&e, &accessory(u("Thief:IronSword"), "Speedwings"), "movement"), Shown::Int(7));
    // "Slow(X) | Unit can move X less spaces in a turn."
    assert_eq!(effective(&e, &tag(u("Mercenary:IronSword"), "Slow", vec![int(2)]), "movement"), Shown::Int(3));
    // "Slowed | Unit gains the tag Slow(1)."
    assert_eq!(effective(&e, &status(u("Mercenary:IronSword"), "Slowed"), "movement"), Shown::Int(4));
    // "Units with certain tags (Armored, Cavalry, Flying) use their respective columns on the
    // table, while all other units use the "Foot" column."
    for (spec, column) in [
        ("Knight:IronLance", "Armored"),
        ("Cavalier:IronLance", "Cavalry"),
        ("PegasusKnight:IronLance", "Flying"),
        ("Mercenary:IronSword", "Foot"),
    ] {
        assert_eq!(effective(&e, &u(spec), "movement_type"), Shown::Text(column.into()), "{spec}");
    }
    // "Canto | After taking a non attack action, this unit can use the remainder of it's move".
    assert_eq!(effective(&e, &u("Cavalier:IronLance"), "canto"), Shown::Bool(true));
    // "Sleep | Unit cannot move or attack." / "Petrified | Unit cannot move or attack".
    for s in ["Sleep", "Petrified"] {
        let l = status(u("Mercenary:IronSword"), s);
        assert_eq!(effective(&e, &l, "can_move"), Shown::Bool(false), "{s}");
    }
    // "AoE | Hits all targets in range." (the battle plays it: tests/battle.rs).
    assert_eq!(effective(&e, &tag(u("Mercenary:IronSword"), "AoE", vec![]), "area_attack"), Shown::Bool(true));
    // "GreaterHeal(X) | Increase the amount healed when using Heal actions by X." Bishop: GreaterHeal(2).
    assert_eq!(effective(&e, &u("Bishop:Lightning"), "heal_bonus"), Shown::Int(2));
}

#[test]
fn inflict_lowers_the_rating_in_the_next_exchange_and_does_not_stack() {
    // "Inflict(Rating-X) | Target unit has their Rating reduced by X on their next turn. This
    // effect does not stack." A duel reports the debuff on each hit; it never changes the
    // exchange it is laid in.
    let e = ratings();
    let hex = tag(u("Myrmidon:IronSword"), "Inflict", vec![Value::StatMod { stat: "spd".into(), amount: -2 }]);
    let mut seen = 0;
    for seed in 0..30 {
        let (log, _) = e.duel(&hex, &u("Fighter:IronAxe"), 1, seed).unwrap();
        for s in log.iter().filter(|s| s.side == 0) {
            assert_eq!(s.outcome.hit, s.debuffed == [("spd".to_string(), -2)], "{s:?}");
            seen += usize::from(s.outcome.hit);
        }
    }
    assert!(seen > 10);
}

//! Forecasts computed by hand from the seed tables, for both revisions. Each case says which
//! rule it checks, the numbers used, and where they come from.
//! Ratings revision (seed 000): To Hit[Skl][Spd], Damage[Atk][Def]; crit on 10+Lucky or less (x3).
//! v0.6 (seed 001): d20 at or under Skill; Damage = Str + Mt - Def; crit on 1+Lucky (x2 after Def).

use oc_engine::{Engine, Forecast, Loadout};

fn engine(index: &str) -> Engine {
    let c = oc_compiler::stdlib::compile(index).unwrap();
    assert!(c.diagnostics.is_empty(), "{:#?}", c.diagnostics);
    Engine::new(c.rules.unwrap()).unwrap()
}

fn ratings() -> Engine {
    engine("<std>/ratings.oc")
}

fn v06() -> Engine {
    engine("<std>/v06.oc")
}

fn unit(spec: &str) -> Loadout {
    let (class, weapon) = spec.split_once(':').unwrap();
    Loadout::new(class, Some(weapon))
}

fn fc(e: &Engine, a: &Loadout, d: &Loadout, distance: i64) -> Forecast {
    e.forecast(a, d, distance).unwrap_or_else(|err| panic!("{err}"))
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

#[test]
fn r01_to_hit_damage_crit_triangle_and_follow_up() {
    // Myrmidon (str D skl A spd A, Lucky 5) with an Iron Sword vs a Fighter (str A skl D spd C def D)
    // with an Iron Axe (weight 1). Swords beat Axes: +1 Skill step and +1 damage.
    let f = fc(&ratings(), &unit("Myrmidon:IronSword"), &unit("Fighter:IronAxe"), 1);
    // To Hit[S (A+1)][D (C-1 weight)] = 90; crit roll <= 10 + 5 = 15.
    assert!(close(f.attacker.hit, 0.90) && close(f.attacker.crit, 0.15));
    // Damage[D][D] = 3, +1 triangle = 4; critical x3 = 12.
    assert_eq!((f.attacker.damage, f.attacker.crit_damage), (4, 12));
    // Speed A vs D (C - weight 1): 3 steps >= 2, so a follow-up: two strikes.
    assert_eq!((f.attacker.strikes, f.defender.strikes), (2, 1));
    // Fighter: To Hit[E (D-1)][A] = 30, crit 10; Damage[A][D] = 5, -1 triangle = 4.
    assert!(close(f.defender.hit, 0.30) && close(f.defender.crit, 0.10));
    assert_eq!(f.defender.damage, 4);
    // The Fighter is routed only by two crits (12 + 12 >= 20): 0.15^2.
    assert!(close(f.defender_routed, 0.0225), "{}", f.defender_routed);
    assert!(close(f.attacker_routed, 0.0));
    // The Myrmidon takes 4 on 20% of rolls and 12 on 10%: 2.0 expected.
    assert!(close(f.attacker_damage_taken, 2.0));
}

#[test]
fn r02_triangle_disadvantage() {
    // Swords lose to Lances: Myrmidon skl A-1 = B vs Soldier spd D: To Hit[B][D] = 80.
    let f = fc(&ratings(), &unit("Myrmidon:IronSword"), &unit("Soldier:IronLance"), 1);
    assert!(close(f.attacker.hit, 0.80));
    // Damage[D][C] = 2, -1 = 1. The Soldier: skl D+1 = C vs spd A: To Hit[C][A] = 50; Damage[C][D] = 3 + 1 = 4.
    assert_eq!(f.attacker.damage, 1);
    assert!(close(f.defender.hit, 0.50));
    assert_eq!(f.defender.damage, 4);
}

#[test]
fn r03_terrain_defense_bonus() {
    // A Forest gives +1 Def/Res: the Fighter's def D becomes C. Damage[D][C] = 2, +1 triangle = 3.
    let mut d = unit("Fighter:IronAxe");
    d.terrain = Some("Forest".into());
    let f = fc(&ratings(), &unit("Myrmidon:IronSword"), &d, 1);
    assert_eq!(f.attacker.damage, 3);
    // A Fort gives +2: D becomes B. Damage[D][B] = 1, +1 = 2.
    d.terrain = Some("Fort".into());
    assert_eq!(fc(&ratings(), &unit("Myrmidon:IronSword"), &d, 1).attacker.damage, 2);
}

#[test]
fn r04_flying_ignores_terrain() {
    // A Pegasus Knight (def E) in a Forest keeps def E: Damage[D][E] = 3, -1 (Swords lose to Lances) = 2.
    let mut d = unit("PegasusKnight:IronLance");
    d.terrain = Some("Forest".into());
    let f = fc(&ratings(), &unit("Myrmidon:IronSword"), &d, 1);
    assert_eq!(f.attacker.damage, 2);
    // To Hit[B ][B] = 60.
    assert!(close(f.attacker.hit, 0.60));
}

#[test]
fn r05_effective_adds_three_and_out_of_range_foes_do_not_counter() {
    // Iron Bow: Effective(Flying). Archer str C vs Pegasus def E: Damage[C][E] = 4, +3 = 7.
    let f = fc(&ratings(), &unit("Archer:IronBow"), &unit("PegasusKnight:IronLance"), 2);
    assert_eq!(f.attacker.damage, 7);
    // To Hit[B][B] = 60. The lance reaches 1 tile: no counter at 2.
    assert!(close(f.attacker.hit, 0.60));
    assert_eq!(f.defender.strikes, 0);
}

#[test]
fn r06_countermeasure_cancels_effective() {
    // A Delphi Shield gives Countermeasure(Flying): back to Damage[C][E] = 4.
    let mut d = unit("PegasusKnight:IronLance");
    d.accessory = Some("DelphiShield".into());
    assert_eq!(fc(&ratings(), &unit("Archer:IronBow"), &d, 2).attacker.damage, 4);
}

#[test]
fn r07_brave_strikes_twice_on_the_attack_and_the_follow_up() {
    // Brave Sword: might 1 (str D -> C), weight 1 (spd A -> B, still 2 above the Fighter's D).
    let f = fc(&ratings(), &unit("Myrmidon:BraveSword"), &unit("Fighter:IronAxe"), 1);
    assert_eq!(f.attacker.strikes, 4);
    // Damage[C][D] = 3, +1 triangle = 4.
    assert_eq!(f.attacker.damage, 4);
}

#[test]
fn r08_staves_never_counter() {
    let f = fc(&ratings(), &unit("Myrmidon:IronSword"), &unit("Cleric:HealStaff"), 1);
    assert_eq!(f.defender.strikes, 0);
    assert!(close(f.attacker_routed, 0.0));
}

#[test]
fn r09_piercing_treats_defense_as_e() {
    // Luna (Dark, Piercing): Druid mag A vs a Paladin's res C would be Damage[A][C] = 4; as E it is 6.
    let f = fc(&ratings(), &unit("Druid:Luna"), &unit("Paladin:SteelLance"), 2);
    assert_eq!(f.attacker.damage, 6);
    let plain = fc(&ratings(), &unit("Druid:Flux"), &unit("Paladin:SteelLance"), 2);
    assert_eq!(plain.attacker.damage, 4);
}

#[test]
fn r10_guarded_takes_no_extra_crit_damage() {
    // Fighter str A vs General def A: Damage[A][A] = 3, +1 (Axes beat Lances) = 4; Guarded: crit 4.
    let f = fc(&ratings(), &unit("Fighter:IronAxe"), &unit("General:SilverLance"), 1);
    assert_eq!((f.attacker.damage, f.attacker.crit_damage), (4, 4));
}

#[test]
fn r11_lucky_stacks_from_class_and_weapon() {
    // Swordmaster Lucky(15) + Killing Edge Lucky(20): crit on 45 or less.
    // Skill A+1 = S vs Warrior spd C - 2 (Steel Axe) = E: To Hit[S][E] = 100.
    let f = fc(&ratings(), &unit("Swordmaster:KillingEdge"), &unit("Warrior:SteelAxe"), 1);
    assert!(close(f.attacker.hit, 1.0));
    assert!(close(f.attacker.crit, 0.45));
}

#[test]
fn r12_assassinate_routs_unpromoted_units_on_a_crit() {
    let e = ratings();
    let f = fc(&e, &unit("Assassin:SteelSword"), &unit("Fighter:IronAxe"), 1);
    assert_eq!(f.attacker.crit_damage, 20, "deal damage equal to its remaining health");
    // A promoted Warrior takes the usual triple damage: Damage[C + 1 might = B][C] = 3, +1 = 4 -> 12.
    let f = fc(&e, &unit("Assassin:SteelSword"), &unit("Warrior:SteelAxe"), 1);
    assert_eq!(f.attacker.crit_damage, 12);
}

#[test]
fn r13_decimate_deals_half_the_targets_hp() {
    let mut d = unit("Fighter:IronAxe");
    d.hp = Some(18);
    let f = fc(&ratings(), &unit("Druid:Eclipse"), &d, 3);
    assert_eq!(f.attacker.damage, 9);
    assert_eq!(f.defender.strikes, 0, "Eclipse reaches 3..10, the axe only 1");
}

#[test]
fn r14_poisoned_takes_one_more_damage() {
    let mut d = unit("Fighter:IronAxe");
    d.statuses = vec!["Poisoned".into()];
    assert_eq!(fc(&ratings(), &unit("Myrmidon:IronSword"), &d, 1).attacker.damage, 5);
}

#[test]
fn r15_petrified_grants_lucky_20_and_cannot_counter() {
    let mut d = unit("Fighter:IronAxe");
    d.statuses = vec!["Petrified".into()];
    let f = fc(&ratings(), &unit("Myrmidon:IronSword"), &d, 1);
    assert!(close(f.attacker.crit, 0.35), "10 + Lucky(5) + Lucky(20)");
    assert_eq!(f.defender.strikes, 0);
}

#[test]
fn r16_devil_backfires_on_80_or_more() {
    // Brigand (skl E, str A) with a Devil Axe (might 3, weight 2) vs a Myrmidon (spd A, def D).
    // Skill E-1 (Axes lose to Swords) = F vs A: To Hit[F][A] = 10: faces 1..10 hit; 80..100 backfire.
    let f = fc(&ratings(), &unit("Brigand:DevilAxe"), &unit("Myrmidon:IronSword"), 1);
    assert!(close(f.attacker.hit, 0.10));
    // Damage[S (A+3, capped)][D] = 6, -1 = 5.
    assert_eq!(f.attacker.damage, 5);
    // The Brigand hurts itself on 21 faces of 100 before the Myrmidon's strikes.
    assert!(f.attacker_damage_taken > 0.21 * 5.0);
}

#[test]
fn r17_drain_heals_half_the_damage() {
    // Druid mag A vs Fighter res E: Damage[A][E] = 6, crit 18. To Hit[C][D (C-1)] = 80, crit 10.
    // Drain heals 3 (or 9 on a crit) from 10 HP; the axe cannot reach 2 tiles.
    let mut a = unit("Druid:Nosferatu");
    a.hp = Some(10);
    let f = fc(&ratings(), &a, &unit("Fighter:IronAxe"), 2);
    let p = |hp: i64| f.attacker_hp.get(&hp).copied().unwrap_or(0.0);
    assert!(close(p(10), 0.2) && close(p(13), 0.7) && close(p(19), 0.1), "{:?}", f.attacker_hp);
}

#[test]
fn r18_a_rout_ends_the_exchange() {
    // The Fighter has 4 HP: any hit of the Myrmidon (4 damage) routs it. It strikes back only if
    // the first strike missed (10%); the Myrmidon then follows up.
    let mut d = unit("Fighter:IronAxe");
    d.hp = Some(4);
    let f = fc(&ratings(), &unit("Myrmidon:IronSword"), &d, 1);
    assert!(close(f.defender_routed, 1.0 - 0.1 * 0.1));
    // Expected damage taken: only after a miss (0.1): 0.2 * 4 + 0.1 * 12.
    assert!(close(f.attacker_damage_taken, 0.1 * 2.0));
}

#[test]
fn r19_status_on_hit_is_applied() {
    // Fimbulvetr: Status(Slowed). In a seeded duel every hit reports the status.
    let e = ratings();
    let mut seen = false;
    for seed in 0..20 {
        let (log, _) = e.duel(&unit("Sage:Fimbulvetr"), &unit("Fighter:IronAxe"), 2, seed).unwrap();
        let first = &log[0];
        assert_eq!(first.outcome.hit, first.inflicted == ["Slowed"], "{first:?}");
        seen |= first.outcome.hit;
    }
    assert!(seen);
}

#[test]
fn r20_inaccurate_lowers_skill() {
    // Javelin: Inaccurate(1). Pegasus skl C -1 = D, -1 (Lances lose to Axes) = E vs Fighter spd
    // C - 1 = D: To Hit[E][D] = 50.
    let f = fc(&ratings(), &unit("PegasusKnight:Javelin"), &unit("Fighter:IronAxe"), 2);
    assert!(close(f.attacker.hit, 0.50));
}

#[test]
fn r21_magic_uses_mag_against_res() {
    // Fire: Mage mag B vs Knight res E: Damage[B][E] = 5. On a Fort (+2): res C, Damage[B][C] = 3.
    let e = ratings();
    assert_eq!(fc(&e, &unit("Mage:Fire"), &unit("Knight:IronLance"), 2).attacker.damage, 5);
    let mut d = unit("Knight:IronLance");
    d.terrain = Some("Fort".into());
    assert_eq!(fc(&e, &unit("Mage:Fire"), &d, 2).attacker.damage, 3);
}

#[test]
fn r22_weight_can_cost_the_follow_up() {
    // Steel Sword weight 1: Myrmidon spd A-1 = B vs Fighter D (C - Iron Axe 1): still 2 steps.
    let e = ratings();
    assert_eq!(fc(&e, &unit("Myrmidon:SteelSword"), &unit("Fighter:IronAxe"), 1).attacker.strikes, 2);
    // Against a Mercenary (spd C, Iron Sword weight 0): B vs C is one step: no follow-up.
    assert_eq!(fc(&e, &unit("Myrmidon:SteelSword"), &unit("Mercenary:IronSword"), 1).attacker.strikes, 1);
}

#[test]
fn r23_out_of_range_attacks_are_refused() {
    let err = ratings().forecast(&unit("Myrmidon:IronSword"), &unit("Fighter:IronAxe"), 2).unwrap_err();
    assert!(err.message().contains("reaches 1..1"), "{err}");
    let err = ratings().forecast(&unit("Myrmidon:IronAxe"), &unit("Fighter:IronAxe"), 1).unwrap_err();
    assert!(err.message().contains("cannot wield"), "{err}");
}

#[test]
fn v01_the_seeds_own_example_crit_10_against_def_4_deals_12() {
    // Pegasus Knight str 5 + Javelin might 5 = 10 against a Pegasus Knight's Defense 4 (lance vs
    // lance: no triangle): ((Str + Mt) - Def) * 2 = 12, "not 16".
    let f = fc(&v06(), &unit("PegasusKnight:Javelin"), &unit("PegasusKnight:IronLance"), 1);
    assert_eq!((f.attacker.damage, f.attacker.crit_damage), (6, 12));
}

#[test]
fn v02_d20_at_or_under_skill_and_crit_on_one() {
    // Skill 11, Inaccurate(2): 9 or less on a d20 hits (45%); a 1 crits (5%).
    let f = fc(&v06(), &unit("PegasusKnight:Javelin"), &unit("PegasusKnight:IronLance"), 1);
    assert!(close(f.attacker.hit, 0.45) && close(f.attacker.crit, 0.05));
}

#[test]
fn v03_higher_attack_speed_follows_up() {
    // Attack speed: 12 - 3 (Javelin) = 9 against 12 - 2 (Iron Lance) = 10: the defender follows up.
    let f = fc(&v06(), &unit("PegasusKnight:Javelin"), &unit("PegasusKnight:IronLance"), 1);
    assert_eq!((f.attacker.strikes, f.defender.strikes), (1, 2));
    // Equal attack speed: neither follows up.
    let f = fc(&v06(), &unit("PegasusKnight:IronLance"), &unit("PegasusKnight:IronLance"), 1);
    assert_eq!((f.attacker.strikes, f.defender.strikes), (1, 1));
}

#[test]
fn v04_accessories_add_defense_and_weight() {
    // Shield: def +4, weight 2. Fighter str 10 + 7 vs Knight def 12 + 4 = 16: 1, +1 (Axes beat Lances) = 2.
    let mut d = unit("Knight:IronLance");
    d.accessory = Some("Shield".into());
    let f = fc(&v06(), &unit("Fighter:IronAxe"), &d, 1);
    assert_eq!(f.attacker.damage, 2);
    // Knight attack speed 3 - 2 - 2 = -1 against the Fighter's 8 - 3 = 5: the Fighter follows up.
    assert_eq!(f.attacker.strikes, 2);
}

#[test]
fn v05_terrain_and_triangle_in_numbers() {
    // Myrmidon 5 + 5 - (12 + 2 Fort) - 1 (Swords lose to Lances) < 0: no damage.
    // Knight 9 + 6 - 4 + 1 = 12; crit x2 = 24; skill 8 + 1 = 9: 45%.
    let mut d = unit("Knight:IronLance");
    d.terrain = Some("Fort".into());
    let f = fc(&v06(), &unit("Myrmidon:IronSword"), &d, 1);
    assert_eq!((f.attacker.damage, f.defender.damage, f.defender.crit_damage), (0, 12, 24));
    assert!(close(f.attacker.hit, 0.65) && close(f.defender.hit, 0.45));
    assert!(close(f.attacker_routed, 0.05), "only the Knight's crit (a 1) routs");
}

#[test]
fn v06_relic_without_its_crest_loses_its_tags() {
    // Areadbhar: Relic(CrestOfBlaiddyd), Effective(Cavalry). The Lady has the Crest; a Knight
    // would not (and cannot wield it anyway), so compare against a Cavalier defender.
    let e = v06();
    let f = fc(&e, &unit("Lady:Areadbhar"), &unit("Cavalier:IronSword"), 1);
    // str 9 + 14 - def 7 + 1 (Lances beat Swords) + 3 (Effective) = 20.
    assert_eq!(f.attacker.damage, 20);
}

#[test]
fn v07_devil_backfires_on_9_or_10() {
    // Brigand skl 7 - 1 (Axes lose to Swords) = 6: faces 1..6 hit; 9 and 10 backfire.
    let f = fc(&v06(), &unit("Brigand:DevilAxe"), &unit("Myrmidon:IronSword"), 1);
    assert!(close(f.attacker.hit, 0.30));
    // 11 + 16 - 4 - 1 = 22 to the Myrmidon; a backfire (10%) routs the Brigand itself.
    assert_eq!(f.attacker.damage, 22);
    assert!(f.attacker_routed >= 0.10);
}

#[test]
fn r24_silenced_units_cannot_use_tomes_or_staves() {
    let e = ratings();
    let mut mage = unit("Mage:Fire");
    mage.statuses = vec!["Silenced".into()];
    // A silenced defender does not counter with its tome...
    let f = fc(&e, &unit("Archer:IronBow"), &mage, 2);
    assert_eq!(f.defender.strikes, 0);
    // ...and cannot attack with it.
    let err = e.forecast(&mage, &unit("Fighter:IronAxe"), 2).unwrap_err();
    assert!(err.message().contains("may not use Fire"), "{err}");
    // A silenced Fighter still swings its axe.
    let mut fighter = unit("Fighter:IronAxe");
    fighter.statuses = vec!["Silenced".into()];
    assert_eq!(fc(&e, &unit("Myrmidon:IronSword"), &fighter, 1).defender.strikes, 1);
}

#[test]
fn r25_devastate_leaves_one_hp() {
    // A home-brew weapon with Devastate, compiled with the standard library.
    let mut ws = oc_compiler::Workspace::new();
    let user = ws.add("user.oc".into(), "weapon Ruin { type Axes might 0 weight 0 range 1 tags Devastate cost 1 }\n".into());
    let c = ws.compile_ids(&mut oc_compiler::stdlib::NoFiles, &[user]);
    assert!(c.diagnostics.is_empty(), "{:#?}", c.diagnostics);
    let e = Engine::new(c.rules.unwrap()).unwrap();
    let mut d = unit("Myrmidon:IronSword");
    d.hp = Some(17);
    let f = fc(&e, &unit("Fighter:Ruin"), &d, 1);
    assert_eq!(f.attacker.damage, 16, "reduce the target's HP to 1");
}

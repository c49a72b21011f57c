//! Accepted means executed, for expressions: every (kind, place) pair the compiler accepts
//! (`oc_model::conformance::accepted_exprs`) is written into a generated ruleset — an expression
//! of that kind, true by the language reference, in that place — and run (a forecast for the
//! exchange's places, a battle for the battle's), once as written and once negated: the engine
//! must do what the place does when it is true, and not when it is false. Every other pair is
//! a compile error. A kind or place added to the table without a case here fails
//! `every_accepted_expression_is_evaluated`.

use std::collections::HashMap;

use oc_compiler::{MemoryHost, Workspace};
use oc_engine::battle::{Act, Affliction, Battle, Record, StepVars, Turn};
use oc_engine::{Engine, Loadout};
use oc_model::conformance::{self as conf, ExprKind, Params, Place};
use oc_model::{BattleMap, Event, Rules, SideId, UnitRef, Verb};

/// The probe's ruleset: no dice in its strikes (one strike each way, 1 damage, 5 more with
/// `bonus`), a table, a named die, a `Dice` base, a resource and a turn of steps paid from it,
/// three weapon types in a triangle. `HIT`, `RESOURCE` and `STEP` are filled in per case.
const RULES: &str = r#"
ruleset probe {
    scale Rating { E D C B A }
    stat str: Rating
    base hp: Int = 30
    base movement: Int = 4
    base movement_type: Movement = Foot
    base aim: Int = 1
    base bonus: Int = 0
    base shown: Int = 0
    base dmg: Dice = d4
    inventory 3
    dice six d6
    table t[Rating] -> Int { E: 10 D: 20 C: 30 B: 40 A: 50 }
    resource pool: Int = RESOURCE at start_of_round
    turn { order alternate spend pool step_cost = STEP }
    combat {
        _five = 2 + 3
        hit = HIT
        critical = true
        damage = 1 + attacker.bonus
        critical_damage = 1 + attacker.bonus
        follow_up = false
        chart = 1
        counter = false
    }
}
movement Foot
terrain Plains { symbol "." cost { Foot 1 } }
terrain Fort { symbol "F" defense +2 cost { Foot 1 } }
weapon_type Blades physical
weapon_type Clubs physical
weapon_type Whips physical
triangle { Blades > Clubs > Whips > Blades }
status Marked { }
class Subject { ratings { str C } wields Blades tags Probe(4, str+2, Marker), Marker cost 1 }
tag Marker on class { }
class Foe { ratings { str C } wields Clubs cost 1 }
weapon Knife { type Blades might 3 weight 1 range 1 cost 1 }
weapon Club { type Clubs might 0 weight 0 range 1 cost 1 }
accessory Ring { weight 2 cost 1 }
scenario Probing {
    map "p.map.toml"
    rounds 9
    attacker { zone "a" war_chest 99999 units 1..3 win rout all }
    defender { zone "d" war_chest 99999 units 1..3 win rout all }
}
army A for Probing attacker { unit S: Subject { items Knife, Ring, Kit } }
army D for Probing defender { unit F: Foe { items Club } }
"#;

/// The subject (unit 0) on a Fort at (1, 1); the foe (unit 1) beside it at (2, 1).
const MAP: &str = r#"name = "Probe"
width = 5
height = 3
rows = [
  ".....",
  ".F...",
  ".....",
]
[[regions]]
name = "a"
kind = "deployment"
side = "attacker"
rect = [0, 0, 2, 3]
[[regions]]
name = "d"
kind = "deployment"
side = "defender"
rect = [2, 0, 3, 3]
"#;

/// An expression of `kind`, true by the language reference in `place` as this file sets it up.
fn probe(kind: ExprKind, place: Place) -> String {
    let scope = conf::scope(place);
    // The first unit the place names (the subject), and a second one where it has one.
    let name = |r: UnitRef| UnitRef::ALL.iter().find(|(_, u)| *u == r).map(|(n, _)| *n).unwrap();
    let me = name(scope.units[0]);
    // Where the subject is the attacker of the exchange, its striking triangle is +1 (Blades
    // beat Clubs); where it is the one attacked, the striker's is -1.
    let triangle = if place == Place::Trigger(Event::Attacked) { -1 } else { 1 };
    let distance = match place {
        Place::Requires { unit: false } | Place::Action { unit: false } => 0,
        _ => 1,
    };
    // Whether the subject has had its activation when the place is read (it is routed on the
    // foe's turn, after its own).
    let activated = matches!(place, Place::Trigger(Event::EndOfTurn | Event::EndOfRound | Event::Routed));
    match kind {
        ExprKind::Const => "true".into(),
        ExprKind::Unit => format!("{me} == {me}"),
        ExprKind::Param if scope.params == Params::Step => "moved == 3".into(),
        ExprKind::Param => "p == 4".into(),
        ExprKind::Formula => "_five == 5".into(),
        ExprKind::Triangle => format!("triangle == {triangle}"),
        ExprKind::Distance => format!("distance == {distance}"),
        // Nothing stands between the probe and its foe.
        ExprKind::Cover => "cover == 0".into(),
        ExprKind::Dealt => "dealt == 1".into(),
        ExprKind::Chart => "chart == 1".into(),
        ExprKind::Attribute => format!("{me}.aim == 1"),
        ExprKind::AttributeOfParam => format!("{me}.b == C"),
        ExprKind::Weapon => format!("{me}.weapon.might == 3"),
        ExprKind::Accessory => format!("{me}.accessory.weight == 2"),
        ExprKind::Promoted => format!("not {me}.promoted"),
        ExprKind::TerrainDefense => format!("{me}.terrain_defense == 2"),
        // One figure (none left once routed), of the class's hit points.
        ExprKind::Figures => format!("{me}.figures <= 1 and {me}.figure_hp >= 1"),
        ExprKind::Activated if activated => format!("{me}.activated"),
        ExprKind::Activated => format!("not {me}.activated"),
        // The probe attacks standing (and the struck unit never moved to make the attack).
        ExprKind::Moved => format!("not {me}.moved"),
        ExprKind::AmountOfParam => "b.amount == 2".into(),
        ExprKind::Unary => "-(-3) == 3".into(),
        ExprKind::Binary => "2 * 3 + 1 == 7".into(),
        ExprKind::Lookup => "t[C] == 30".into(),
        ExprKind::Roll => "roll(six) >= 1 and roll(six) <= 6".into(),
        ExprKind::RollOpposed => "roll(six, defender) >= 1".into(),
        ExprKind::RollFresh => "roll(2d6) >= 2".into(),
        ExprKind::RollValue => format!("roll({me}.dmg) >= 1"),
        ExprKind::Call => "max(1, 2) == 2 and clamp(9, 0, 4) == 4".into(),
        ExprKind::Has => format!("{me} has Marker"),
        ExprKind::HasParam => format!("{me} has t"),
        ExprKind::If => "if false then false else true".into(),
    }
}

/// The generated source: the probe tag's body, the rules' `HIT`, `RESOURCE` and `STEP`, and
/// the consumable's use.
struct Source {
    tag: String,
    hit: String,
    resource: String,
    step: String,
    kit: String,
    statuses: String,
}

impl Source {
    fn new() -> Source {
        Source {
            tag: String::new(),
            hit: "true".into(),
            resource: "5".into(),
            step: "1".into(),
            kit: String::new(),
            statuses: String::new(),
        }
    }

    fn text(&self) -> String {
        let rules = RULES.replace("HIT", &self.hit).replace("RESOURCE", &self.resource).replace("STEP", &self.step);
        format!(
            "{rules}\ntag Probe(p: Int, b: StatMod, t: Tag) on class {{ {} }}\nconsumable Kit {{ cost 1 use {{ {} }} }}\n{}\n",
            self.tag, self.kit, self.statuses
        )
    }
}

/// `condition` written in `place`, with what the place does when it holds.
fn source(place: Place, condition: &str) -> Source {
    let mut s = Source::new();
    let c = condition;
    match place {
        Place::Formula => s.hit = c.into(),
        Place::Standing => s.tag = format!("shown = if {c} then 7 else 0"),
        Place::Strike => s.tag = format!("when {c} {{ bonus += 5 }}"),
        Place::Trigger(Event::Attacked) => s.tag = format!("on attacked {{ when {c} {{ damage(self, 7) }} }}"),
        Place::Trigger(Event::Miss) => {
            s.hit = "false".into();
            s.tag = format!("on miss {{ when {c} {{ damage(foe, 7) }} }}");
        }
        Place::Trigger(e @ (Event::Hit | Event::Crit)) => s.tag = format!("on {} {{ when {c} {{ damage(foe, 7) }} }}", name(e)),
        Place::Trigger(Event::Routed) => s.tag = format!("on routed {{ when {c} {{ heal(foe, 1) }} }}"),
        Place::Trigger(e) => s.tag = format!("on {} {{ when {c} {{ damage(self, 1) }} }}", name(e)),
        Place::Reach => s.tag = format!("action {{ target self within (if {c} then 0 else 1)..2 heal(self, 0) }}"),
        Place::Requires { unit: true } => s.tag = format!("action {{ target enemy within 1 requires {c} heal(self, 0) }}"),
        Place::Requires { unit: false } => s.tag = format!("action {{ target tile within 0 requires {c} transform(Plains) }}"),
        Place::Action { unit: true } => {
            s.tag = format!("action {{ target enemy within 1 heal(self, 0) when {c} {{ damage(target, 3) }} }}")
        }
        Place::Action { unit: false } => {
            s.tag = format!("action {{ target tile within 0 transform(Fort) when {c} {{ damage(self, 3) }} }}")
        }
        Place::Use => s.kit = format!("when {c} {{ damage(self, 3) }}"),
        Place::Clear => s.statuses = format!("status Passing {{ }} clears when {c} at start_of_round"),
        Place::Resource => s.resource = format!("if {c} then 7 else 3"),
        Place::Step => s.step = format!("if {c} then 2 else 1"),
    }
    s
}

fn name(e: Event) -> &'static str {
    Event::ALL.iter().find(|(_, x)| *x == e).map(|(n, _)| *n).unwrap()
}

fn compile(text: &str) -> Result<(Rules, BattleMap), String> {
    let files = HashMap::from([("p.map.toml".to_string(), MAP.to_string()), ("p.oc".to_string(), text.to_string())]);
    let mut ws = Workspace::new();
    let (c, _) = ws.compile(&mut files.into_iter().collect::<MemoryHost>(), &["p.oc".to_string()]);
    let errors: Vec<String> = c
        .diagnostics
        .iter()
        .filter(|d| d.severity == oc_diag::Severity::Error)
        .map(|d| format!("{} {}", d.code, d.message))
        .collect();
    if !errors.is_empty() {
        return Err(errors.join("\n"));
    }
    let rules = c.rules.ok_or("no rules")?;
    let (map, diags) = oc_atlas::parse(oc_diag::FileId(0), MAP);
    assert!(diags.is_empty(), "{diags:?}");
    let mut map = map.ok_or("no map")?;
    map.resolve(&rules);
    Ok((rules, map.battle_map()))
}

fn battle<'e>(engine: &'e Engine, map: &BattleMap) -> Battle<'e> {
    let s = &engine.rules.scenarios[0];
    let armies = [SideId::Attacker, SideId::Defender].map(|side| engine.rules.armies.iter().find(|a| a.side == side).unwrap());
    Battle::new(engine, s, map, armies, [&[(1, 1)][..], &[(2, 1)][..]], 3).unwrap()
}

fn turn(unit: usize, act: Act) -> Turn {
    Turn { unit, act, ..Default::default() }
}

fn triggered(b: &Battle, unit: usize, event: Event) -> bool {
    b.log.iter().any(|r| matches!(r, Record::Trigger { unit: u, on, .. } if *u == unit && *on == event))
}

/// Runs the rules of `source` and says whether the place did what it does when its condition
/// holds.
fn did(place: Place, source: &Source) -> bool {
    let (rules, map) = compile(&source.text()).unwrap_or_else(|e| panic!("{place:?}: {e}\n{}", source.text()));
    let engine = Engine::new(rules).unwrap();
    let subject =
        Loadout { accessory: Some("Ring".into()), terrain: Some("Fort".into()), ..Loadout::new("Subject", Some("Knife")) };
    let foe = Loadout::new("Foe", Some("Club"));
    match place {
        Place::Formula => engine.forecast(&subject, &foe, 1).unwrap().attacker.hit == 1.0,
        Place::Standing => engine
            .forecast(&subject, &foe, 1)
            .unwrap()
            .attacker
            .effective
            .iter()
            .any(|(n, v)| n == "shown" && *v == oc_engine::Shown::Int(7)),
        Place::Strike => engine.forecast(&subject, &foe, 1).unwrap().attacker.damage == 6,
        Place::Trigger(Event::Attacked) => {
            let f = engine.forecast(&foe, &subject, 1).unwrap();
            f.defender_hp.keys().all(|hp| *hp == 22)
        }
        Place::Trigger(Event::Hit | Event::Crit) => {
            engine.forecast(&subject, &foe, 1).unwrap().defender_hp.keys().all(|hp| *hp == 22)
        }
        Place::Trigger(Event::Miss) => engine.forecast(&subject, &foe, 1).unwrap().defender_hp.keys().all(|hp| *hp == 23),
        Place::Trigger(event) => {
            let mut b = battle(&engine, &map);
            match event {
                Event::Activated | Event::EndOfTurn => b.turn(turn(0, Act::Wait)).unwrap(),
                Event::StartOfRound | Event::EndOfRound => {
                    b.turn(turn(0, Act::Wait)).unwrap();
                    b.turn(turn(1, Act::Wait)).unwrap();
                }
                Event::AfterAttack | Event::Chart => b.turn(turn(0, Act::Attack { target: 1 })).unwrap(),
                Event::Routed => {
                    b.state.units[0].hp = 1;
                    b.turn(turn(0, Act::Wait)).unwrap();
                    b.turn(turn(1, Act::Attack { target: 0 })).unwrap();
                }
                _ => unreachable!("{event:?} fires in an exchange"),
            }
            triggered(&b, 0, event)
        }
        Place::Reach | Place::Requires { unit: true } => battle(&engine, &map)
            .turn(turn(
                0,
                Act::Special { verb: Verb::Heal, target: Some(usize::from(place != Place::Reach)), tile: None, from: None },
            ))
            .is_ok(),
        Place::Requires { unit: false } => battle(&engine, &map)
            .turn(turn(0, Act::Special { verb: Verb::Transform, target: None, tile: Some((1, 1)), from: None }))
            .is_ok(),
        Place::Action { unit: true } => {
            let mut b = battle(&engine, &map);
            b.turn(turn(0, Act::Special { verb: Verb::Heal, target: Some(1), tile: None, from: None })).unwrap();
            b.units[1].hp == 27
        }
        Place::Action { unit: false } => {
            let mut b = battle(&engine, &map);
            b.turn(turn(0, Act::Special { verb: Verb::Transform, target: None, tile: Some((1, 1)), from: None })).unwrap();
            b.units[0].hp == 27
        }
        Place::Use => {
            let mut b = battle(&engine, &map);
            b.turn(turn(0, Act::Use { item: "Kit".into(), target: None, tile: None })).unwrap();
            b.units[0].hp == 27
        }
        Place::Clear => {
            let mut b = battle(&engine, &map);
            b.state.units[0].statuses.push(Affliction { status: "Passing".into(), left: None });
            b.turn(turn(0, Act::Wait)).unwrap();
            b.turn(turn(1, Act::Wait)).unwrap();
            b.units[0].statuses.is_empty()
        }
        Place::Resource => {
            let b = battle(&engine, &map);
            b.log.iter().any(|r| matches!(r, Record::Refill { values, .. } if values.contains(&(0, 7))))
        }
        Place::Step => {
            let b = battle(&engine, &map);
            let vars = StepVars { moved: 3, attacks: false, acts: false, moves: 0, steps: 0, repeats: 0, ..Default::default() };
            b.step_price(0, &vars, None) == Some(Ok(2))
        }
    }
}

#[test]
fn every_accepted_expression_is_evaluated() {
    let accepted = conf::accepted_exprs();
    assert!(accepted.len() > 300, "{} pairs", accepted.len());
    for (kind, place) in accepted {
        let condition = probe(kind, place);
        assert!(did(place, &source(place, &condition)), "{kind:?} in {place:?}: `{condition}` was not read as true");
        let negated = format!("not ({condition})");
        assert!(!did(place, &source(place, &negated)), "{kind:?} in {place:?}: `{negated}` was not read as false");
    }
}

#[test]
fn every_other_expression_is_a_compile_error() {
    let mut rejected = 0;
    for place in conf::places() {
        for kind in conf::EXPR_KINDS {
            if conf::allows(place, *kind) {
                continue;
            }
            rejected += 1;
            let text = source(place, &probe(*kind, place)).text();
            let err = compile(&text).err().unwrap_or_else(|| panic!("{kind:?} in {place:?} compiles:\n{text}"));
            // What the place lacks (a formula is not even a name outside the combat formulas).
            let why = [
                "oc::expr::not_here",
                "oc::effect::context",
                "oc::name::unknown_name",
                "oc::name::unknown_stat",
                "oc::name::unknown_tag",
            ];
            for line in err.lines() {
                assert!(why.iter().any(|c| line.starts_with(c)), "{kind:?} in {place:?}: {err}");
            }
        }
    }
    assert!(rejected > 50, "{rejected}");
}

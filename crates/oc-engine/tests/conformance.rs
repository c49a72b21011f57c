//! Accepted means executed. For every (context, verb) pair of `oc_model::conformance` a tiny
//! generated ruleset puts the verb there, runs it — forecast and duel for the exchange events
//! (attacked, hit, miss, crit), a battle for everything — and asserts what it did, against the
//! same ruleset without the effect. Every pair outside the table is a compile error. A verb or
//! event added to the table without a case here fails `every_accepted_pair_is_executed`.

use std::collections::HashMap;

use oc_compiler::{MemoryHost, Workspace};
use oc_engine::battle::{Act, Affliction, Battle, Combatant, Record, State, Turn};
use oc_engine::{rng, Engine, Exchange, Laid, Loadout};
use oc_model::conformance::{self as conf, Context, Fires};
use oc_model::{BattleMap, Event, Outcome, Rules, SideId, UnitRef, Verb};

/// A ruleset without dice: `aim` decides every strike (0 misses, 1 hits, 2 crits), two strikes
/// each way, one damage a strike (two on a crit), five more against a Marked unit, and the
/// striker's `guard` points more (a resource, 0 at each activation, that `gain` raises).
const RULES: &str = r#"
ruleset conform {
    scale Rating { E D C B A }
    stat str: Rating
    stat def: Rating
    base hp: Int = 30
    base movement: Int = 4
    base movement_type: Movement = Foot
    base aim: Int = 1
    base damage_bonus: Int = 0
    inventory 3
    resource guard: Int = 0 at activated
    combat {
        hit = attacker.aim >= 1
        critical = attacker.aim >= 2
        damage = 1 + attacker.damage_bonus + attacker.guard + (if defender has Marked then 5 else 0)
        critical_damage = 2 + attacker.damage_bonus + attacker.guard + (if defender has Marked then 5 else 0)
        follow_up = false
        chart = 1
        strikes = 2
    }
}
movement Foot
terrain Plains { symbol "." cost { Foot 1 } }
terrain Floor { symbol "_" cost { Foot 1 } }
terrain Ruins { symbol "x" cost { Foot 1 } }
terrain Door { symbol "D" impassable opened_by Probe becomes Floor }
weapon_type Blades physical
status Marked { }
tag Keen on class { aim = 2 }
tag Clumsy on class { aim = 0 }
tag Sharp on weapon { damage_bonus += 3 }
class Hitter { ratings { str C def C } wields Blades cost 1 }
weapon Knife { type Blades might 0 weight 0 range 1 cost 1 }
consumable Tonic { cost 1 }
scenario Conform {
    map "c.map.toml"
    chest [1, 1] Tonic
    attacker { zone "attacker-zone" war_chest 99999 units 1..3 win seize "goal" or rout all }
    defender { zone "defender-zone" war_chest 99999 units 1..3 win rout all }
}
"#;

/// Subject (unit 0) at (1, 1) on the goal, exit, granary and chest; its ally (1) at (0, 1); the
/// foe (2) at (4, 1); a door at (1, 0).
const MAP: &str = r#"name = "Conform"
width = 6
height = 3
rows = [
  ".D....",
  "......",
  "......",
]
[[regions]]
name = "attacker-zone"
kind = "deployment"
side = "attacker"
rect = [0, 0, 2, 3]
[[regions]]
name = "defender-zone"
kind = "deployment"
side = "defender"
rect = [4, 0, 2, 3]
[[regions]]
name = "goal"
kind = "seize"
side = "attacker"
tiles = [[1, 1]]
[[regions]]
name = "exit"
kind = "escape"
side = "attacker"
tiles = [[1, 1]]
[[regions]]
name = "granary"
kind = "raze"
side = "attacker"
tiles = [[1, 1]]
"#;

const SUBJECT: usize = 0;
const ALLY: usize = 1;
const FOE: usize = 2;

/// What a case adds to [`RULES`]: the probe tag's body (on the subject's class), the consumable
/// Kit's `use`, the subject's other class tags, its shifter forms, items and the Blade's tags.
#[derive(Clone, Default)]
struct Case {
    tag: String,
    kit: String,
    subject_tags: String,
    forms: bool,
    subject_items: String,
    blade_tags: String,
    /// The ruleset holds units in contact (`turn { engaged = range <= 1 }`).
    engaged: bool,
}

impl Case {
    fn text(&self, tag: &str, kit: &str) -> String {
        let forms = if self.forms {
            "normal { ratings { str E def E } } transformed { ratings { str A def A } }"
        } else {
            "ratings { str C def C }"
        };
        let blade_tags = if self.blade_tags.is_empty() { String::new() } else { format!("tags {}", self.blade_tags) };
        let items = if self.subject_items.is_empty() { "Knife".to_string() } else { format!("Knife, {}", self.subject_items) };
        let rules = if self.engaged {
            RULES.replace("    inventory 3", "    inventory 3\n    turn { engaged = range <= 1 }")
        } else {
            RULES.to_string()
        };
        format!(
            "{rules}
tag Probe {{ {tag} }}
class Subject {{ {forms} wields Blades tags Probe{} cost 1 }}
weapon Blade {{ type Blades might 0 weight 0 range 1 {blade_tags} cost 1 }}
consumable Kit {{ cost 1 use {{ {kit} }} }}
army A for Conform attacker {{ unit S: Subject {{ items {items} }} unit L: Hitter {{ items Knife }} }}
army D for Conform defender {{ unit F: Hitter {{ items Knife }} }}
",
            self.subject_tags
        )
    }

    /// The rules with the probe, or without it (the baseline).
    fn rules(&self, with_probe: bool) -> (Rules, BattleMap) {
        let text = if with_probe { self.text(&self.tag, &self.kit) } else { self.text("", "") };
        compile(&text).unwrap_or_else(|d| panic!("{}{}\n{d}", self.tag, self.kit))
    }
}

fn compile(text: &str) -> Result<(Rules, BattleMap), String> {
    let files = HashMap::from([("c.map.toml".to_string(), MAP.to_string()), ("c.oc".to_string(), text.to_string())]);
    let mut ws = Workspace::new();
    let (c, _) = ws.compile(&mut files.into_iter().collect::<MemoryHost>(), &["c.oc".to_string()]);
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
    let mut map = map.unwrap();
    map.resolve(&rules);
    Ok((rules, map.battle_map()))
}

fn new_battle<'e>(engine: &'e Engine, map: &BattleMap) -> Battle<'e> {
    let scenario = engine.rules.scenarios.iter().find(|s| s.name == "Conform").unwrap();
    let a = engine.rules.armies.iter().find(|a| a.name == "A").unwrap();
    let d = engine.rules.armies.iter().find(|a| a.name == "D").unwrap();
    let mut b = Battle::new(engine, scenario, map, [a, d], [&[(1, 1), (0, 1)][..], &[(4, 1)][..]], 7).unwrap();
    for u in &mut b.state.units {
        u.hp = 15;
    }
    b
}

fn wait(unit: usize) -> Turn {
    Turn { unit, ..Default::default() }
}

fn special(verb: Verb, target: Option<usize>, tile: Option<(i64, i64)>) -> Turn {
    Turn { unit: SUBJECT, act: Act::Special { verb, target, tile, from: None }, ..Default::default() }
}

fn mark(b: &mut Battle, unit: usize) {
    b.state.units[unit].statuses.push(Affliction { status: "Marked".into(), left: None });
}

/// What a battle left: its units and its log.
struct Played {
    units: Vec<Combatant>,
    log: Vec<Record>,
}

impl From<&Battle<'_>> for Played {
    fn from(b: &Battle) -> Played {
        Played { units: b.units.clone(), log: b.log.clone() }
    }
}

fn marked(b: &Played, unit: usize) -> bool {
    b.units[unit].statuses.iter().any(|a| a.status == "Marked")
}

fn debuffed(b: &Played, unit: usize) -> bool {
    b.log.iter().any(
        |r| matches!(r, Record::Affliction { unit: u, status, change } if *u == unit && status == "def-1" && change == "inflicted"),
    )
}

// ------------------------------------------------------------------ the table, both ways

#[test]
fn every_accepted_pair_is_executed() {
    let accepted = conf::accepted();
    assert!(accepted.len() > 60, "{} pairs", accepted.len());
    for (context, verb) in accepted {
        match context {
            Context::Trigger(event) => trigger_case(event, verb),
            Context::Action => action_case(verb),
            Context::Use => use_case(verb),
            Context::Always | Context::When => standing_case(context, verb),
        }
    }
}

#[test]
fn every_other_pair_is_a_compile_error_with_a_span_and_help() {
    let mut contexts = vec![Context::Always, Context::When, Context::Action, Context::Use];
    contexts.extend(conf::EVENTS.iter().map(|e| Context::Trigger(e.event)));
    let mut rejected = 0;
    for context in contexts {
        for spec in conf::VERBS {
            let command = format!("{}({})", spec.name, args(spec.verb, "self"));
            let (tag, consumable) = match context {
                Context::Always => (command, String::new()),
                Context::When => (format!("when self.hp > 0 {{ {command} }}"), String::new()),
                Context::Trigger(e) => (format!("on {} {{ {command} }}", conf::event_spec(e).unwrap().name), String::new()),
                Context::Action => (format!("action {{ target self {command} }}"), String::new()),
                Context::Use => (String::new(), command),
            };
            let text = format!("{RULES}\ntag Probe {{ {tag} }}\nconsumable Kit {{ cost 1 use {{ {consumable} }} }}\n");
            let result = compile(&text);
            if conf::accepts(context, spec.verb) {
                continue;
            }
            rejected += 1;
            let err = result.err().unwrap_or_else(|| panic!("{context:?} {} compiles", spec.name));
            assert!(err.contains("oc::effect::context"), "{context:?} {}: {err}", spec.name);
            // The span is on the verb and the help names where it may appear.
            let mut ws = Workspace::new();
            let files = HashMap::from([("c.oc".to_string(), text.clone())]);
            let (c, _) = ws.compile(&mut files.into_iter().collect::<MemoryHost>(), &["c.oc".to_string()]);
            let d = c.diagnostics.iter().find(|d| d.code == "oc::effect::context").unwrap();
            let start = d.span.start as usize;
            assert!(text[start..].starts_with(spec.name) || text[start..].starts_with("self"), "{context:?} {}", spec.name);
            assert!(!d.help.is_empty(), "{context:?} {}", spec.name);
        }
    }
    assert!(rejected > 100, "{rejected}");
}

/// Arguments that type check for `verb`, naming `unit` where it takes one.
fn args(verb: Verb, unit: &str) -> String {
    match verb {
        Verb::Heal | Verb::Damage | Verb::Relocate | Verb::Attack | Verb::Flee => format!("{unit}, 3"),
        Verb::Inflict | Verb::Clear => format!("{unit}, Marked"),
        Verb::Injure => format!("{unit}, 3, Marked"),
        Verb::Cure | Verb::Reactivate | Verb::BreakWeapon | Verb::StrikeFriend | Verb::Join => unit.to_string(),
        Verb::Debuff => format!("{unit}, def-1"),
        Verb::Gain => format!("{unit}, guard, 3"),
        Verb::Raze | Verb::Transform => "Ruins".into(),
        Verb::Reveal | Verb::Disengage | Verb::Search => "3".into(),
        Verb::Hide => String::new(),
        Verb::Divide => "1".into(),
        Verb::Restrict => "Blades".into(),
        Verb::Shift => "\"transformed\"".into(),
        Verb::Open | Verb::TakeChest | Verb::Seize | Verb::Escape | Verb::MustAttackWeakest | Verb::IgnoreItemTags => {
            String::new()
        }
    }
}

// ------------------------------------------------------------------ triggers

/// `on EVENT { VERB(unit, ...) }` for every unit the event names (`self`, `foe`).
fn trigger_case(event: Event, verb: Verb) {
    if verb == Verb::Shift {
        return shift_case(event);
    }
    if matches!(verb, Verb::BreakWeapon | Verb::StrikeFriend) {
        return fumble_case(event, verb);
    }
    assert!(
        matches!(verb, Verb::Heal | Verb::Damage | Verb::Inflict | Verb::Cure | Verb::Debuff | Verb::Gain),
        "no case for {verb:?} on {event:?}"
    );
    let spec = conf::event_spec(event).unwrap();
    let mut ran = 0;
    for (unit, own) in [("self", true), ("foe", false)] {
        let r = if own { UnitRef::Holder } else { UnitRef::Foe };
        if !spec.units.contains(&r) {
            continue;
        }
        ran += 1;
        let name = conf::verb_spec(verb).unwrap().name;
        let case = Case {
            tag: format!("on {} {{ {name}({}) }}", spec.name, args(verb, unit)),
            subject_tags: match event {
                Event::Crit => ", Keen".into(),
                Event::Miss => ", Clumsy".into(),
                _ => String::new(),
            },
            ..Case::default()
        };
        if spec.fires == Fires::Exchange {
            exchange_trigger(event, verb, own, &case);
        }
        battle_trigger(event, verb, own, &case);
    }
    assert!(ran > 0, "{event:?} names no unit");
}

/// Forecast and duel: the subject attacks the foe (for `attacked`, the foe attacks the subject).
fn exchange_trigger(event: Event, verb: Verb, own: bool, case: &Case) {
    let what = format!("{:?} on {event:?} ({})", verb, if own { "self" } else { "foe" });
    let subject = |verb: Verb| Loadout {
        hp: Some(15),
        statuses: if verb == Verb::Cure && own { vec!["Marked".into()] } else { vec![] },
        ..Loadout::new("Subject", Some("Knife"))
    };
    let foe = |verb: Verb| Loadout {
        hp: Some(15),
        statuses: if verb == Verb::Cure && !own { vec!["Marked".into()] } else { vec![] },
        ..Loadout::new("Hitter", Some("Knife"))
    };
    let attacked = event == Event::Attacked;
    let subject_side = usize::from(attacked);
    let side = if own { subject_side } else { 1 - subject_side };
    let fired = if attacked { 1 } else { 2 };
    let run = |with: bool| {
        let (rules, _) = case.rules(with);
        let e = Engine::new(rules).unwrap();
        let (s, f) = (subject(verb), foe(verb));
        let (a, d) = if attacked { (&f, &s) } else { (&s, &f) };
        let forecast = e.forecast(a, d, 1).unwrap();
        let taken = [forecast.attacker_damage_taken, forecast.defender_damage_taken];
        let (taken, dealt) = (taken[side], taken[1 - side]);
        let resolution = Exchange::new(&e, a, d, 1).unwrap().resolve_all(&mut rng(3));
        (taken, dealt, resolution)
    };
    let (taken, dealt, r) = run(true);
    let (base_taken, base_dealt, base) = run(false);
    let laid: Vec<Laid> = r.declared.iter().chain(r.log.iter().flat_map(|s| s.laid.iter())).cloned().collect();
    // A miss's foe is struck by nothing after it: nothing laid on it shows in hit points.
    let unseen = event == Event::Miss && !own;
    match verb {
        Verb::Heal => {
            assert_eq!(taken, base_taken - 3.0 * fired as f64, "{what}: forecast");
            assert_eq!(r.hp[side], base.hp[side] + 3 * fired, "{what}: duel");
        }
        Verb::Damage => {
            assert_eq!(taken, base_taken + 3.0 * fired as f64, "{what}: forecast");
            assert_eq!(r.hp[side], base.hp[side] - 3 * fired, "{what}: duel");
        }
        Verb::Inflict => {
            assert!(unseen || taken > base_taken, "{what}: forecast {taken} vs {base_taken}");
            assert!(laid.contains(&Laid::Afflicted { side, status: "Marked".into() }), "{what}: duel {laid:?}");
        }
        Verb::Cure => {
            assert!(unseen || taken < base_taken, "{what}: forecast {taken} vs {base_taken}");
            assert!(laid.contains(&Laid::Cured { side }), "{what}: duel {laid:?}");
        }
        Verb::Debuff => {
            // It lasts until the unit's next turn ends: later exchanges, not this one.
            assert_eq!(taken, base_taken, "{what}: forecast");
            assert!(laid.contains(&Laid::Debuff { side, attr: "def".into(), shift: -1 }), "{what}: duel {laid:?}");
        }
        Verb::Gain => {
            // The points are the exchange's state: a strike after the gain deals 3 more.
            assert_eq!(r.resources[side].first(), Some(&(3 * fired)), "{what}: duel {:?}", r.resources);
            assert_eq!(base.resources[side].first(), Some(&0), "{what}: duel without it");
            let strikes_after = match event {
                Event::Attacked => true,
                // The second of the subject's two strikes follows the first's gain.
                Event::Hit | Event::Crit => own,
                _ => false,
            };
            if strikes_after {
                assert!(dealt > base_dealt, "{what}: forecast {dealt} vs {base_dealt}");
            }
        }
        other => panic!("no exchange case for {other:?}"),
    }
}

/// A battle in which `event` happens to the subject; the effect lands on it or on its foe.
fn battle_trigger(event: Event, verb: Verb, own: bool, case: &Case) {
    let what = format!("{:?} on {event:?} ({}) in a battle", verb, if own { "self" } else { "foe" });
    let unit = if own { SUBJECT } else { FOE };
    let play = |with: bool| {
        let (rules, map) = case.rules(with);
        let e = Engine::new(rules).unwrap();
        let mut b = new_battle(&e, &map);
        if verb == Verb::Cure {
            mark(&mut b, unit);
        }
        match event {
            Event::Activated | Event::EndOfTurn => b.turn(wait(SUBJECT)).unwrap(),
            Event::StartOfRound | Event::EndOfRound => {
                while b.round == 1 {
                    let next = b.waiting(b.to_act)[0];
                    b.turn(wait(next)).unwrap();
                }
            }
            Event::Hit | Event::Crit | Event::Miss | Event::AfterAttack | Event::Chart => {
                b.turn(Turn { unit: SUBJECT, to: Some((3, 1)), act: Act::Attack { target: FOE }, ..Default::default() }).unwrap();
            }
            Event::Attacked | Event::Routed => {
                if event == Event::Routed {
                    b.state.units[SUBJECT].hp = 1;
                }
                b.turn(wait(SUBJECT)).unwrap();
                b.turn(Turn { unit: FOE, to: Some((2, 1)), act: Act::Attack { target: SUBJECT }, ..Default::default() }).unwrap();
                if event == Event::Routed {
                    assert_eq!(b.units[SUBJECT].state, State::Routed, "{what}");
                }
            }
        }
        Played { units: b.units.clone(), log: b.log.clone() }
    };
    let b = play(true);
    let base = play(false);
    let fired = if matches!(event, Event::Hit | Event::Crit | Event::Miss | Event::Chart) { 2 } else { 1 };
    match verb {
        Verb::Heal => assert_eq!(b.units[unit].hp, base.units[unit].hp + 3 * fired, "{what}: {:?}", b.log),
        Verb::Damage => assert_eq!(b.units[unit].hp, base.units[unit].hp - 3 * fired, "{what}: {:?}", b.log),
        Verb::Inflict => assert!(marked(&b, unit) && !marked(&base, unit), "{what}: {:?}", b.log),
        Verb::Cure => assert!(!marked(&b, unit) && marked(&base, unit), "{what}: {:?}", b.log),
        Verb::Debuff => assert!(debuffed(&b, unit) && !debuffed(&base, unit), "{what}: {:?}", b.log),
        Verb::Gain => assert_eq!(
            (b.units[unit].resources.first(), base.units[unit].resources.first().copied().unwrap_or(0)),
            (Some(&(3 * fired)), 0),
            "{what}: {:?}",
            b.log
        ),
        other => panic!("no battle case for {other:?}"),
    }
}

/// `break_weapon` and `strike_friend` on a battle's event, on `self` and on `foe` where the event
/// names one: the unit's Knife is gone; the ally, next to the unit named, is struck by the subject.
fn fumble_case(event: Event, verb: Verb) {
    let spec = conf::event_spec(event).unwrap();
    assert_eq!(spec.fires, Fires::Battle, "{verb:?} on {event:?}");
    for (unit, own) in [(SUBJECT, true), (FOE, false)] {
        if !spec.units.contains(if own { &UnitRef::Holder } else { &UnitRef::Foe }) {
            continue;
        }
        let what = format!("{verb:?} on {event:?} ({})", if own { "self" } else { "foe" });
        let name = conf::verb_spec(verb).unwrap().name;
        let case =
            Case { tag: format!("on {} {{ {name}({}) }}", spec.name, if own { "self" } else { "foe" }), ..Case::default() };
        let play = |with: bool| {
            let (rules, map) = case.rules(with);
            let e = Engine::new(rules).unwrap();
            let mut b = new_battle(&e, &map);
            // Next to the subject (where it stands and where it attacks from), or to the foe.
            b.state.units[ALLY].pos = if own { (2, 1) } else { (4, 0) };
            match event {
                Event::StartOfRound | Event::EndOfRound => {
                    while b.round == 1 {
                        let next = b.waiting(b.to_act)[0];
                        b.turn(wait(next)).unwrap();
                    }
                }
                Event::Activated | Event::EndOfTurn => b.turn(wait(SUBJECT)).unwrap(),
                _ => b
                    .turn(Turn { unit: SUBJECT, to: Some((3, 1)), act: Act::Attack { target: FOE }, ..Default::default() })
                    .unwrap(),
            }
            Played::from(&b)
        };
        let (b, base) = (play(true), play(false));
        match verb {
            Verb::BreakWeapon => {
                assert!(base.units[unit].items.iter().any(|i| i.as_str() == "Knife"), "{what}");
                assert!(!b.units[unit].items.iter().any(|i| i.as_str() == "Knife"), "{what}: {:?}", b.log);
                assert_eq!(b.units[unit].equipped, None, "{what}");
            }
            _ => assert!(b.units[ALLY].hp < base.units[ALLY].hp, "{what}: {:?}", b.log),
        }
    }
}

/// `shift`: the shifting rule. A shifter acts transformed and is normal again once it has acted
/// (an action or a free action: here it equips its knife); a turn with neither leaves it transformed.
fn shift_case(event: Event) {
    let form = conf::shift_form(event).unwrap_or_else(|| panic!("shift on {event:?}"));
    let case = Case {
        tag: format!("on {} {{ shift(\"{form}\") }}", conf::event_spec(event).unwrap().name),
        forms: true,
        ..Case::default()
    };
    let (rules, map) = case.rules(true);
    let e = Engine::new(rules).unwrap();
    let mut b = new_battle(&e, &map);
    assert_eq!(b.loadout_of(SUBJECT, true).unwrap().form, oc_engine::Form::Default, "transformed in its turn");
    let mut idle = new_battle(&e, &map);
    idle.turn(wait(SUBJECT)).unwrap();
    assert!(!idle.units[SUBJECT].reverted && idle.units[SUBJECT].transformed, "no action: {:?}", idle.log);
    b.turn(Turn { unit: SUBJECT, equip: Some("Knife".into()), ..Default::default() }).unwrap();
    assert!(b.units[SUBJECT].reverted, "shift on {event:?}: normal after acting: {:?}", b.log);
    assert_eq!(b.loadout_of(SUBJECT, true).unwrap().form, oc_engine::Form::Normal);
}

// ------------------------------------------------------------------ actions and uses

fn action_case(verb: Verb) {
    let name = conf::verb_spec(verb).unwrap().name;
    let (target, body) = match verb {
        Verb::Heal | Verb::Cure | Verb::Clear | Verb::Reactivate | Verb::Relocate => ("ally within 1", args(verb, "target")),
        Verb::Damage | Verb::Inflict | Verb::Debuff | Verb::Attack | Verb::Injure | Verb::Flee => {
            ("enemy within 1..4", args(verb, "target"))
        }
        Verb::Gain => ("self", args(verb, "self")),
        Verb::Open => ("door within 1", String::new()),
        Verb::TakeChest => ("chest within 0", String::new()),
        Verb::Raze | Verb::Seize | Verb::Escape => ("tile within 0", args(verb, "")),
        Verb::Transform => ("tile within 1", args(verb, "")),
        Verb::Reveal | Verb::Disengage | Verb::Search => ("self", "3".into()),
        Verb::Hide => ("self", String::new()),
        Verb::Divide => ("self", "1".into()),
        Verb::Join => ("ally within 1", args(verb, "target")),
        other => panic!("no action case for {other:?}"),
    };
    let engaged = verb == Verb::Disengage;
    let case = Case { tag: format!("action {{ target {target} {name}({body}) }}"), engaged, ..Case::default() };
    let (rules, map) = case.rules(true);
    let e = Engine::new(rules).unwrap();
    let mut b = new_battle(&e, &map);
    let what = format!("{name} in an action");
    match verb {
        Verb::Heal => {
            b.turn(special(verb, Some(ALLY), None)).unwrap();
            assert_eq!(b.units[ALLY].hp, 18, "{what}");
        }
        Verb::Cure | Verb::Clear => {
            mark(&mut b, ALLY);
            b.turn(special(verb, Some(ALLY), None)).unwrap();
            assert!(!marked(&(&b).into(), ALLY), "{what}");
        }
        Verb::Reactivate => {
            b.turn(wait(ALLY)).unwrap();
            b.turn(wait(FOE)).unwrap();
            assert!(b.units[ALLY].activated);
            b.turn(special(verb, Some(ALLY), None)).unwrap();
            assert!(!b.units[ALLY].activated, "{what}");
        }
        Verb::Disengage => {
            // Next to the foe, the subject is held: it may not move, but it may disengage.
            b.state.units[SUBJECT].pos = (3, 1);
            let held = b.turn(Turn { unit: SUBJECT, to: Some((2, 1)), ..Default::default() }).unwrap_err().to_string();
            assert!(held.contains("engaged"), "{what}: {held}");
            b.turn(special(verb, None, None)).unwrap();
            assert!(b.units[SUBJECT].pos.0 < 3, "{what}: {:?}", b.log);
        }
        Verb::Hide => {
            // Hidden: the foe may not target it.
            b.turn(special(verb, None, None)).unwrap();
            assert!(b.hidden(SUBJECT) && !b.spots(oc_model::SideId::Defender, SUBJECT), "{what}: {:?}", b.log);
        }
        Verb::Search => {
            // The foe, hidden 3 tiles off, is found.
            b.state.units[FOE].hidden = Some(b.state.units[FOE].pos);
            assert!(b.hidden(FOE));
            b.turn(special(verb, None, None)).unwrap();
            assert!(!b.hidden(FOE), "{what}: {:?}", b.log);
        }
        Verb::Divide => {
            // A unit of two figures: one of them forms a unit of its own beside it.
            let f = &mut b.state.units[SUBJECT];
            (f.figures, f.max_hp, f.hp) = (2, 2 * f.max_hp, 2 * f.max_hp);
            let n = b.units.len();
            b.turn(special(verb, None, None)).unwrap();
            assert_eq!(b.units.len(), n + 1, "{what}: {:?}", b.log);
            assert_eq!((b.units[n].figures, b.units[n].hp), (1, b.units[SUBJECT].hp), "{what}");
        }
        Verb::Join => {
            b.turn(special(verb, Some(ALLY), None)).unwrap();
            assert_eq!(b.units[SUBJECT].state, State::Joined, "{what}: {:?}", b.log);
        }
        Verb::Relocate => {
            b.turn(special(verb, Some(ALLY), Some((1, 2)))).unwrap();
            assert_eq!(b.units[ALLY].pos, (1, 2), "{what}");
        }
        Verb::Damage => {
            b.turn(special(verb, Some(FOE), None)).unwrap();
            assert_eq!(b.units[FOE].hp, 12, "{what}");
        }
        Verb::Flee => {
            // From (4, 1), away from the subject at (1, 1): straight on to (5, 1), then the map
            // ends, so up to (5, 0) (as far off as (5, 2), and up comes first); then no square
            // is farther.
            b.turn(special(verb, Some(FOE), None)).unwrap();
            assert_eq!(b.units[FOE].pos, (5, 0), "{what}: {:?}", b.log);
        }
        Verb::Inflict => {
            b.turn(special(verb, Some(FOE), None)).unwrap();
            assert!(marked(&(&b).into(), FOE), "{what}");
        }
        Verb::Gain => {
            // Kept until its next activation refills it; meanwhile the points are the unit's.
            b.turn(special(verb, None, None)).unwrap();
            assert_eq!(b.units[SUBJECT].resources.first(), Some(&3), "{what}: {:?}", b.log);
        }
        Verb::Debuff => {
            b.turn(special(verb, Some(FOE), None)).unwrap();
            assert_eq!(b.units[FOE].debuffs.first().map(|d| (d.attr.as_str(), d.shift)), Some(("def", -1)), "{what}");
        }
        Verb::Attack | Verb::Injure => {
            let t = Turn { to: Some((3, 1)), ..special(verb, Some(FOE), None) };
            b.turn(t).unwrap();
            // Two strikes of 1 + 3, and the foe's two counters of 1.
            assert_eq!((b.units[FOE].hp, b.units[SUBJECT].hp), (15 - 8, 15 - 2), "{what}: {:?}", b.log);
            // `injure`: the attack took hit points, so the status is laid.
            assert_eq!(marked(&(&b).into(), FOE), verb == Verb::Injure, "{what}");
        }
        Verb::Open => {
            b.turn(special(verb, None, Some((1, 0)))).unwrap();
            assert_eq!(b.map.terrain[1], "Floor", "{what}");
        }
        Verb::TakeChest => {
            b.turn(special(verb, None, Some((1, 1)))).unwrap();
            assert!(b.units[SUBJECT].items.iter().any(|i| *i == "Tonic"), "{what}");
        }
        Verb::Raze => {
            b.turn(special(verb, None, Some((1, 1)))).unwrap();
            assert_eq!(b.map.terrain[6 + 1], "Ruins", "{what}");
        }
        Verb::Transform => {
            b.turn(special(verb, None, Some((2, 1)))).unwrap();
            assert_eq!(b.map.terrain[6 + 2], "Ruins", "{what}");
        }
        Verb::Seize => {
            b.turn(special(verb, None, Some((1, 1)))).unwrap();
            assert_eq!(b.outcome.as_ref().map(|(o, _)| *o), Some(Outcome::Win(SideId::Attacker)), "{what}");
        }
        Verb::Escape => {
            b.turn(special(verb, None, Some((1, 1)))).unwrap();
            assert_eq!(b.units[SUBJECT].state, State::Escaped, "{what}");
        }
        Verb::Reveal => {
            b.turn(special(verb, None, None)).unwrap();
            // This scenario has no fog: it is performed, and says there is nothing to reveal.
            assert!(
                b.log.iter().any(|r| matches!(r, Record::Turn { note, .. } if note.contains("nothing to reveal"))),
                "{what}: {:?}",
                b.log
            );
            // Under fog (vision 1), `reveal(3)` brings the foe 3 tiles away into sight (tests/fog.rs
            // has the rest).
            let mut s = e.rules.scenarios.iter().find(|s| s.name == "Conform").unwrap().clone();
            s.fog = Some(oc_model::Fog { vision: 1 });
            let armies = ["A", "D"].map(|n| e.rules.armies.iter().find(|a| a.name == n).unwrap());
            let mut b = Battle::new(&e, &s, &map, armies, [&[(1, 1), (0, 1)][..], &[(4, 1)][..]], 7).unwrap();
            let foe = b.units[FOE].pos;
            assert!(!b.sees(SideId::Attacker, foe), "{what}");
            b.turn(special(verb, None, None)).unwrap();
            assert!(b.sees(SideId::Attacker, foe), "{what}: {:?}", b.log);
        }
        other => panic!("no action case for {other:?}"),
    }
}

/// A consumable's direct `use`, on its user.
fn use_case(verb: Verb) {
    let name = conf::verb_spec(verb).unwrap().name;
    let case = Case { kit: format!("{name}({})", args(verb, "self")), subject_items: "Kit".into(), ..Case::default() };
    let (rules, map) = case.rules(true);
    let e = Engine::new(rules).unwrap();
    let mut b = new_battle(&e, &map);
    if matches!(verb, Verb::Cure | Verb::Clear) {
        mark(&mut b, SUBJECT);
    }
    b.turn(Turn { unit: SUBJECT, act: Act::Use { item: "Kit".into(), target: None, tile: None }, ..Default::default() }).unwrap();
    let what = format!("{name} in a use: {:?}", b.log);
    let b = Played::from(&b);
    match verb {
        Verb::Heal => assert_eq!(b.units[SUBJECT].hp, 18, "{what}"),
        Verb::Damage => assert_eq!(b.units[SUBJECT].hp, 12, "{what}"),
        Verb::Inflict => assert!(marked(&b, SUBJECT), "{what}"),
        Verb::Cure | Verb::Clear => assert!(!marked(&b, SUBJECT), "{what}"),
        Verb::Debuff => assert!(debuffed(&b, SUBJECT), "{what}"),
        Verb::Gain => assert_eq!(b.units[SUBJECT].resources.first(), Some(&3), "{what}"),
        other => panic!("no use case for {other:?}"),
    }
}

// ------------------------------------------------------------------ standing effects

fn standing_case(context: Context, verb: Verb) {
    let name = conf::verb_spec(verb).unwrap().name;
    let command = format!("{name}({})", args(verb, "self"));
    let (yes, no) = match context {
        Context::When => (format!("when self.hp > 0 {{ {command} }}"), format!("when self.hp > 100 {{ {command} }}")),
        _ => (command, String::new()),
    };
    let run = |probe: &str| {
        let mut case = Case { tag: probe.to_string(), ..Case::default() };
        if verb == Verb::IgnoreItemTags {
            case.blade_tags = "Probe, Sharp".into();
        }
        case.rules(true)
    };
    let what = format!("{name} in {context:?}");
    let ((rules, map), (base_rules, _)) = (run(&yes), run(&no));
    let (e, base) = (Engine::new(rules).unwrap(), Engine::new(base_rules).unwrap());
    let subject = Loadout::new("Subject", Some("Knife"));
    let foe = Loadout::new("Hitter", Some("Knife"));
    match verb {
        Verb::Restrict => {
            assert!(e.forecast(&subject, &foe, 1).is_err(), "{what}: the weapon type is barred");
            assert!(base.forecast(&subject, &foe, 1).is_ok());
            let mut b = new_battle(&e, &map);
            let attack = Turn { unit: SUBJECT, to: Some((3, 1)), act: Act::Attack { target: FOE }, ..Default::default() };
            assert!(b.turn(attack).is_err(), "{what}");
        }
        Verb::MustAttackWeakest => {
            let mut b = new_battle(&e, &map);
            assert!(b.turn(Turn { unit: SUBJECT, to: Some((3, 1)), ..Default::default() }).is_err(), "{what}: it may not wait");
            b.turn(Turn { unit: SUBJECT, to: Some((3, 1)), act: Act::Attack { target: FOE }, ..Default::default() }).unwrap();
            let (base_rules, map) = run("");
            let base = Engine::new(base_rules).unwrap();
            let mut b = new_battle(&base, &map);
            b.turn(Turn { unit: SUBJECT, to: Some((3, 1)), ..Default::default() }).unwrap();
        }
        Verb::IgnoreItemTags => {
            // The Blade's other tag (Sharp: 3 more damage) is ignored while the condition holds.
            let blade = Loadout::new("Subject", Some("Blade"));
            let damage = |e: &Engine| e.forecast(&blade, &foe, 1).unwrap().attacker.damage;
            assert_eq!((damage(&e), damage(&base)), (1, 4), "{what}");
        }
        other => panic!("no standing case for {other:?}"),
    }
}

#[test]
fn the_engine_refuses_a_model_with_an_effect_outside_the_table() {
    let case = Case { tag: "on hit { heal(self, 3) }".into(), ..Case::default() };
    let (rules, _) = case.rules(true);
    assert!(Engine::new(rules.clone()).is_ok());
    let mut broken = rules.clone();
    let probe = broken.tags.iter_mut().find(|t| t.name == "Probe").unwrap();
    // `heal` standing at the top of a tag: nothing would ever run it.
    let oc_model::Effect::On { then, .. } = probe.effects[0].clone() else { panic!() };
    probe.effects = then;
    let err = Engine::new(broken).err().unwrap();
    assert!(err.message().contains("Heal"), "{err}");
    let mut broken = rules;
    broken.statuses.iter_mut().for_each(|s| s.clears.push(oc_model::Clear { condition: None, event: Event::Hit }));
    assert!(Engine::new(broken).is_err());
}

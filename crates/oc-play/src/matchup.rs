//! One exchange between two units, as `oc forecast` and `oc duel` (and a play server's forecast
//! window) set it up: a unit written `CLASS` or `CLASS:WEAPON` (the class's kit weapon by
//! default), on a terrain, with HP, statuses, an accessory and a form; refused, with the
//! compiler's own army rules, when an army could not field it; a class or item the rules lack
//! is looked for in the working directory's project, to say which `--ruleset` has it.

use std::path::{Path, PathBuf};

use oc_engine::error_codes::{NOT_A, UNKNOWN_NAME};
use oc_engine::{Atom, Engine, Form, Loadout};
use oc_project::DiskHost;

/// Why a matchup is refused, as data: the code of the rule it breaks where one applies (a
/// usage slip, hit points or a distance out of range, has none), what is wrong and how to mend
/// it. The caller renders it (`error[CODE]: MESSAGE`, then `help: HELP`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refused {
    pub code: Option<&'static str>,
    pub message: String,
    pub help: String,
}

impl Refused {
    fn new(code: Option<&'static str>, message: impl Into<String>, help: impl Into<String>) -> Refused {
        Refused { code, message: message.into(), help: help.into() }
    }
}

/// `MESSAGE` and a `help:` line, as a terminal shows it under its `error` heading.
impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}\nhelp: {}", self.message, self.help)
    }
}

/// The loadout a unit written `CLASS` or `CLASS:WEAPON` means; without a weapon, the first
/// weapon of the class's kit (or of the rules).
pub fn loadout(engine: &Engine, spec: &str) -> Result<Loadout, Refused> {
    let (class, weapon) = match spec.split_once(':') {
        Some((c, w)) => (c.trim(), Some(w.trim().to_string())),
        None => (spec.trim(), None),
    };
    let Some(c) = engine.rules.class(class) else {
        let names = engine.rules.classes.iter().map(|c| c.name.as_str());
        let close = oc_diag::closest(class, names, 3);
        let help = if let Some(elsewhere) = defined_elsewhere("class", class) {
            elsewhere
        } else if close.is_empty() {
            "`oc matrix` lists every class with its weapons".to_string()
        } else {
            format!("did you mean {}?", or_list(&close))
        };
        return Err(Refused::new(Some(UNKNOWN_NAME), format!("no class `{class}` in these rules"), help));
    };
    let weapon = weapon.or_else(|| engine.kit_weapon(&c.name));
    // Its kit's other attack forms strike too, as in a battle (a wyvern's bite, talons and tail).
    let carried = engine.kit_forms(&c.name);
    Ok(Loadout { class: Atom::new(class), weapon: weapon.map(Atom::from), carried, ..Loadout::default() })
}

/// `A`, `B` or `C`.
fn or_list(names: &[&str]) -> String {
    let quoted: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
    match quoted.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        _ => quoted.join(""),
    }
}

/// Where the project of the working directory defines a class or item the rules in use lack
/// (a home-brew file the forecast was not given), with how to use it.
fn defined_elsewhere(kind: &str, name: &str) -> Option<String> {
    let project = oc_project::discover(&[PathBuf::from(".")]).ok()?.into_iter().next()?;
    let mut host = DiskHost::for_project(&project);
    for file in &project.files {
        let Ok(text) = oc_compiler::Host::read(&mut host, file) else { continue };
        let (ast, _) = oc_syntax::parse(oc_diag::FileId(0), &text);
        let found = ast.items.iter().any(|i| match i {
            oc_syntax::ast::Item::Class(c) => kind == "class" && c.name.value == name,
            oc_syntax::ast::Item::Item(it) => kind == "item" && it.name.value == name,
            _ => false,
        });
        if found {
            let shown = project.root.join(file);
            let shown = shown.strip_prefix(std::env::current_dir().ok()?).map_or(shown.clone(), Path::to_path_buf);
            return Some(format!(
                "the {kind} `{name}` is defined in {}, which these rules do not include: pass `--ruleset {}`, or run from a project whose oc.toml names it (`ruleset = \"{file}\"`)",
                shown.display(),
                shown.display()
            ));
        }
    }
    None
}

/// One side of a matchup as the command line gives it.
pub struct Side {
    /// `CLASS` or `CLASS:WEAPON`.
    pub spec: String,
    pub terrain: Option<String>,
    pub hp: Option<i64>,
    pub statuses: Vec<String>,
    pub accessory: Option<String>,
    pub normal_form: bool,
}

/// Refuses what an army may not field: a weapon the class does not wield, an item exclusive to
/// another class (the compiler's army rules, word for word).
fn check_items(engine: &Engine, l: &Loadout) -> Result<(), Refused> {
    let Some(class) = engine.rules.class(&l.class) else { return Ok(()) };
    let slots = l
        .weapon
        .iter()
        .map(|w| (w, oc_model::ItemKind::Weapon))
        .chain(l.accessory.iter().map(|a| (a, oc_model::ItemKind::Accessory)));
    for (name, slot) in slots {
        let Some(item) = engine.rules.item(name) else {
            let close = oc_diag::closest(name, engine.rules.items.iter().map(|i| i.name.as_str()), 3);
            let help = match defined_elsewhere("item", name) {
                Some(elsewhere) => elsewhere,
                None if close.is_empty() => "name an item of the rules (`oc doc` lists them)".to_string(),
                None => format!("did you mean {}?", or_list(&close)),
            };
            return Err(Refused::new(Some(UNKNOWN_NAME), format!("no item `{name}` in these rules"), help));
        };
        // An item in the other slot is said as such before what the class may carry (a sword
        // as an accessory was refused as a weapon the class does not wield).
        if item.kind != slot {
            let (wanted, flag) = if slot == oc_model::ItemKind::Weapon {
                ("weapon", "`CLASS:WEAPON` takes")
            } else {
                ("accessory", "--attacker-accessory and --defender-accessory take")
            };
            let some: Vec<&str> = engine.rules.items.iter().filter(|i| i.kind == slot).map(|i| i.name.as_str()).take(4).collect();
            let help = if some.is_empty() {
                format!("these rules have no {wanted}: leave it out")
            } else {
                format!("{flag} {}, such as {}", oc_diag::article(wanted), or_list(&some))
            };
            return Err(Refused::new(Some(NOT_A), format!("`{name}` is not {}", oc_diag::article(wanted)), help));
        }
        if let Some((code, message, help)) = oc_compiler::scenario::item_refusals(class, item, None).into_iter().next() {
            return Err(Refused::new(Some(code), message, help));
        }
    }
    Ok(())
}

/// The loadout of one side of a matchup, refused when an army could not field it.
pub fn build(engine: &Engine, side: &Side) -> Result<Loadout, Refused> {
    let mut l = loadout(engine, &side.spec)?;
    l.terrain = side.terrain.as_deref().map(Atom::new);
    l.hp = side.hp;
    l.statuses = side.statuses.iter().map(Atom::from).collect();
    l.accessory = side.accessory.as_deref().map(Atom::new);
    if side.normal_form {
        l.form = Form::Normal;
    }
    check_items(engine, &l)?;
    // Hit points the unit cannot have are refused, not held to its range without a word.
    if let Some(hp) = side.hp {
        let most = engine.unit(&Loadout { hp: None, ..l.clone() }, &[]).map_or(i64::MAX, |u| u.max_hp);
        if !(1..=most).contains(&hp) {
            return Err(Refused::new(
                None,
                format!("{hp} hit points for {}: it has 1 to {most}", l.class),
                format!("give its hit points from 1 to {most}, or leave them out for full"),
            ));
        }
    }
    Ok(l)
}

/// The distance asked for, else the nearest the attacker's weapon reaches.
pub fn distance_for(engine: &Engine, a: &Loadout, distance: Option<i64>) -> i64 {
    distance.unwrap_or_else(|| a.weapon.as_ref().and_then(|w| engine.reach(&a.class, w)).map_or(1, |(lo, _)| lo.max(1)))
}

/// Both sides' loadouts ([`build`]) and the distance between them ([`distance_for`]).
pub fn both(
    engine: &Engine,
    attacker: &Side,
    defender: &Side,
    distance: Option<i64>,
) -> Result<(Loadout, Loadout, i64), Refused> {
    if let Some(d) = distance.filter(|d| *d < 1) {
        return Err(Refused::new(
            None,
            format!("a distance of {d}: two units stand at least 1 tile apart"),
            "give --distance 1 or more, or leave it out for the nearest the attacker's weapon reaches",
        ));
    }
    let (a, d) = (build(engine, attacker)?, build(engine, defender)?);
    // The battle refuses an attack by a unit that may not attack (`can_attack`): no exchange.
    if !engine.may_attack(&a) {
        return Err(Refused::new(
            None,
            format!("{} cannot attack as loaded: its rules' `can_attack` is false (a status or tag forbids attacks)", a.class),
            "drop the status or tag that forbids it, or forecast another unit",
        ));
    }
    let distance = distance_for(engine, &a, distance);
    Ok((a, d, distance))
}

/// How an exchange is made, beyond its units and distance, as a forecast window states it.
#[derive(Clone, Copy, Debug, Default)]
pub struct Stated<'a> {
    /// The reaction struck units take (`none` for none); `None`: each takes its best.
    pub reaction: Option<&'a str>,
    /// The attacker moved in the step that made the attack (a charge, as `attacker.moved` reads).
    pub moved: bool,
    /// How hidden the defender is (`cover`: 0 in the open, 1 half hidden, 2 fully hidden).
    pub cover: i64,
}

/// The exchange of a matchup as `stated`.
pub fn exchange<'e>(
    engine: &'e Engine,
    a: &'e Loadout,
    d: &'e Loadout,
    distance: i64,
    stated: Stated,
) -> Result<oc_engine::Exchange<'e>, oc_engine::EngineError> {
    let x = oc_engine::Exchange::new(engine, a, d, distance)?.moved([stated.moved, false]).cover(stated.cover);
    match stated.reaction {
        None => Ok(x),
        Some("none") => x.with_reaction(None),
        Some(name) => x.with_reaction(Some(name)),
    }
}

//! Where a unit can go, for the map's pictures (`oc render --reach`, `--heat`) and a play
//! page's move preview: the squares a unit of a class reaches this turn from a square, with the
//! movement each costs (the engine's movement rules, asked of a battle holding that one unit),
//! and the rounds from every square to a side's objective.

use oc_atlas::render::{Overlay, OverlayKind};
use oc_engine::Engine;

use crate::error::Refusal;

/// A battle with one unit of `class` standing on `at` and nobody else, for asking the engine
/// how that unit moves.
pub fn lone_unit<'e>(
    engine: &'e oc_engine::Engine,
    map: &oc_atlas::Map,
    class: &str,
    at: oc_atlas::Tile,
) -> Result<oc_engine::battle::Battle<'e>, String> {
    use oc_model as m;
    let mut battle_map = map.battle_map();
    let (mine, theirs) = ("oc render: the unit", "oc render: nobody");
    for (name, tiles) in [(mine, vec![(at.x, at.y)]), (theirs, vec![])] {
        battle_map.regions.push(m::MapRegion { name: name.into(), kind: "deployment".into(), side: None, tiles });
    }
    let side = |id: m::SideId, zone: &str| m::SideRules {
        side: id,
        doc: None,
        zone: zone.into(),
        war_chest: 0,
        min_units: 0,
        max_units: 1,
        limits: Vec::new(),
        grants: Vec::new(),
        allowed_classes: Vec::new(),
        allowed_items: Vec::new(),
        banned_classes: Vec::new(),
        banned_items: Vec::new(),
        win: None,
    };
    let scenario = m::Scenario {
        name: "render".into(),
        title: None,
        doc: None,
        map: String::new(),
        regions: Vec::new(),
        rounds: None,
        on_time_limit: m::Outcome::Draw,
        deploy_first: m::SideId::Attacker,
        chests: Vec::new(),
        fog: None,
        advanced: Vec::new(),
        home_edges: None,
        placement_units: None,
        attacker: side(m::SideId::Attacker, mine),
        defender: side(m::SideId::Defender, theirs),
    };
    let army = |id: m::SideId, units: Vec<m::ArmyUnit>| m::Army {
        name: "render".into(),
        title: None,
        scenario: "render".into(),
        side: id,
        units,
    };
    let unit =
        m::ArmyUnit { name: class.into(), class: class.into(), items: Vec::new(), tags: Vec::new(), figures: 1, joins: None };
    let (attackers, defenders) = (army(m::SideId::Attacker, vec![unit]), army(m::SideId::Defender, Vec::new()));
    let deploy: [&[oc_engine::battle::Tile]; 2] = [&[(at.x, at.y)], &[]];
    oc_engine::battle::Battle::new(engine, &scenario, &battle_map, [&attackers, &defenders], deploy, 0).map_err(|e| e.to_string())
}

/// The squares a unit of `class` reaches this turn from `from`, with the movement each costs.
pub fn reach(engine: &Engine, map: &oc_atlas::Map, class: &str, from: oc_atlas::Tile) -> Result<Overlay, Refusal> {
    let battle = lone_unit(engine, map, class, from)
        .map_err(|e| Refusal::new(format!("a {class} cannot stand on ({}, {}): {e}", from.x, from.y)))?;
    let (points, kind, _) = battle.mobility(0).map_err(|e| Refusal::new(e.to_string()))?;
    let stands = battle.terrain_at((from.x, from.y)).is_some_and(|t| t.costs.get(kind.as_str()).copied().flatten().is_some());
    if !stands {
        return Err(Refusal::new(format!(
            "a {class} ({kind} movement) cannot stand on ({}, {}): {}",
            from.x,
            from.y,
            map.terrain(from).unwrap_or("no terrain")
        )));
    }
    let reach = battle.reachable(0).map_err(|e| Refusal::new(e.to_string()))?;
    let values = reach.into_iter().map(|((x, y), cost)| (oc_atlas::Tile { x, y }, cost.max(0) as u32)).collect();
    Ok(Overlay {
        kind: OverlayKind::Reach,
        title: format!("Reach of a {class} from ({}, {}): {points} movement, {kind}", from.x, from.y),
        values,
        origin: Some(from),
    })
}

/// The rounds from every square to `side`'s objective, for a unit of `class` (or the rules'
/// reference mover: Foot at 5 movement in the standard game).
pub fn heat(
    engine: &Engine,
    map: &oc_atlas::Map,
    rules: &oc_model::Rules,
    class: Option<&str>,
    side: oc_atlas::Side,
) -> Result<Overlay, Refusal> {
    let targets = oc_atlas::path::objective_tiles(map, side);
    let (points, kind) = match class {
        // The rules' own mover where no class is named (`Rules::reference_mover`).
        None => match rules.reference_mover() {
            Some(m) => (m.movement.unwrap_or(oc_atlas::path::UNBOUNDED), m.movement_type),
            None => return Err(Refusal::new("these rules declare no movement type: there is no way to move to draw")),
        },
        Some(class) => {
            // Any square the class can stand on will do to ask the engine how it moves.
            let probe = map.tiles().find_map(|t| lone_unit(engine, map, class, t).ok());
            match probe.map(|b| b.mobility(0)) {
                Some(Ok((points, kind, _))) => (points.max(0) as u32, kind.to_string()),
                _ => return Err(Refusal::new(format!("a {class} can stand on no square of this map"))),
            }
        }
    };
    let costs = oc_atlas::path::costs(map, rules, &kind);
    let rounds = oc_atlas::path::rounds_to(map, &costs, &targets, points);
    let values = map.tiles().zip(rounds).filter_map(|(t, r)| r.map(|r| (t, r))).collect();
    let whose = match side {
        oc_atlas::Side::Attacker => "the attacker's",
        oc_atlas::Side::Defender => "the defender's",
    };
    Ok(Overlay {
        kind: OverlayKind::Heat,
        title: format!(
            "Rounds to {whose} objective: {} movement, {kind}{}",
            points,
            class.map(|c| format!(" ({c})")).unwrap_or_default()
        ),
        values,
        origin: None,
    })
}

/// The overlay `oc render` (or a page) asks for: a class's reach from a square (`X,Y` as
/// given), or the rounds to a side's objective (for the class's movement, or the rules' mover).
pub enum Ask<'a> {
    Reach { at: &'a str, class: &'a str },
    Heat { side: oc_atlas::Side, class: Option<&'a str> },
}

/// Why no overlay: a usage problem (the square given is not one of the map's), or one of the
/// input (no such class, a class that cannot move there).
#[derive(Debug)]
pub enum Refused {
    Usage(Refusal),
    Input(Refusal),
}

/// The engine a class's movement is asked of when no ruleset is given: the map's own rules, or,
/// for a class they lack, the project's (`project`: oc.toml's `ruleset`), if it has the class —
/// a home-brew class on a map of the standard game.
pub fn engine_for(
    map_rules: &oc_model::Rules,
    class: Option<&str>,
    project: &dyn Fn() -> Option<Engine>,
) -> Result<Engine, Refusal> {
    if let Some(c) = class.filter(|c| map_rules.class(c).is_none()) {
        if let Some(e) = project().filter(|e| e.rules.class(c).is_some()) {
            return Ok(e);
        }
    }
    Engine::new(map_rules.clone()).map_err(|e| Refusal::new(format!("the rules cannot run: {e}")))
}

/// The overlay asked for, drawn on `map` with `engine`'s movement; `whose` names where the
/// class was looked for (in a refusal).
pub fn overlay(
    engine: &Engine,
    map: &oc_atlas::Map,
    rules: &oc_model::Rules,
    ask: &Ask,
    whose: &str,
) -> Result<Overlay, Refused> {
    let class = match ask {
        Ask::Reach { class, .. } => Some(*class),
        Ask::Heat { class, .. } => *class,
    };
    if let Some(c) = class.filter(|c| engine.rules.class(c).is_none()) {
        let hint = oc_diag::did_you_mean(c, engine.rules.classes.iter().map(|k| k.name.as_str()));
        let message = format!("no class `{c}` in {whose}{}", hint.map(|h| format!("; did you mean `{h}`?")).unwrap_or_default());
        return Err(Refused::Input(Refusal::new(message).with_help("pass `--ruleset FILE.oc` with the file that defines it")));
    }
    match ask {
        Ask::Reach { at, class } => {
            let Some(from) = tile(at).filter(|t| map.in_bounds(*t)) else {
                let corner = format!("{},{}", map.width.saturating_sub(1), map.height.saturating_sub(1));
                return Err(Refused::Usage(Refusal::new(format!(
                    "--reach {at}: give a square of the map as X,Y (0,0 to {corner})"
                ))));
            };
            reach(engine, map, class, from).map_err(Refused::Input)
        }
        Ask::Heat { side, class } => heat(engine, map, rules, *class, *side).map_err(Refused::Input),
    }
}

/// `X,Y` as a square.
pub fn tile(s: &str) -> Option<oc_atlas::Tile> {
    let (x, y) = s.split_once(',')?;
    Some(oc_atlas::Tile { x: x.trim().parse().ok()?, y: y.trim().parse().ok()? })
}

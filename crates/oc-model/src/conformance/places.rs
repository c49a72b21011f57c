//! Where expressions are evaluated ([`Place`]) and what each place's environment holds
//! ([`Scope`]): the units that may be named, the strike's distance, triangle and damage dealt,
//! the combat formulas, the dice. The compiler lets an expression read only what its place
//! holds (`oc::expr::not_here`, naming the places that do) and the engine's one evaluator reads
//! it there; [`accepted_exprs`] is every (kind, place) pair a test runs.

use crate::{ActionTarget, Event, Expr, UnitRef};

use super::{event_spec, Fires};

/// Where an expression is evaluated.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Place {
    /// A combat formula (`hit`, `damage`, a helper): a strike, the striker as `attacker`.
    Formula,
    /// A modifier at the top of a tag's, status's or item's body, a `grant`'s arguments, a
    /// weapon's range: the unit alone, as it is built.
    Standing,
    /// A `when` of a tag or status, a reaction's requirement and modifiers: a strike in progress.
    Strike,
    /// `on EVENT { ... }`: its `when`s and commands.
    Trigger(Event),
    /// An action's reach (`within`): how far the unit reaches, before it picks a target.
    Reach,
    /// An action's requirements: a unit weighing the action on its target. `unit`: the action
    /// targets a unit (`target self|ally|enemy|unit`), not a tile.
    Requires { unit: bool },
    /// An action's body: its `when`s and commands.
    Action { unit: bool },
    /// A consumable's `use` (outside an `action`): acting on its user.
    Use,
    /// A status's `clears when ...`.
    Clear,
    /// A resource's value, set at its event.
    Resource,
    /// A step's `step_cost`, `step_allowed`, `respond`, `interrupt`, `opportunity`: a unit pricing a step of its
    /// activation, or declaring an attack its target may answer.
    Step,
}

/// The parameters a place has.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Params {
    None,
    /// The enclosing tag's (`tag Bonus(b: StatMod)`): any type.
    Tag,
    /// A step's (`oc_model::STEP_PARAMS`): numbers and flags.
    Step,
}

/// What an evaluation in a place may read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Scope {
    /// The units that may be named.
    pub units: &'static [UnitRef],
    /// Tiles between the two units, or to the tile acted on.
    pub distance: bool,
    /// The weapon triangle of the strike.
    pub triangle: bool,
    /// The damage the strike dealt.
    pub dealt: bool,
    /// The strike's `chart` (its result on the ruleset's charts).
    pub chart: bool,
    /// The combat formulas above this one.
    pub formulas: bool,
    /// The parameters in scope: a tag's (of any type) or a step's (numbers and flags).
    pub params: Params,
    /// Dice drawn here: the ruleset's named dice and dice written in place.
    pub rolls: bool,
    /// A named die's draw by the struck unit (`roll(acc, defender)`).
    pub opposed: bool,
    /// `Dice` values rolled (`roll(self.absorption)`).
    pub dice_values: bool,
    /// Whether a unit has had its activation this round (not of a unit being built).
    pub activated: bool,
    /// Whether a unit moved in the step that made the attack (`attacker.moved`) and how hidden
    /// the unit struck is (`cover`): an exchange's.
    pub moved: bool,
}

const FORMULA_UNITS: &[UnitRef] = &[UnitRef::Attacker, UnitRef::Defender];
const OWN: &[UnitRef] = &[UnitRef::Holder];
const OWN_AND_TARGET: &[UnitRef] = &[UnitRef::Holder, UnitRef::Target];
const STRIKE: &[UnitRef] = &[UnitRef::Holder, UnitRef::Foe, UnitRef::Attacker, UnitRef::Defender, UnitRef::Target];
const OWN_AND_FOE: &[UnitRef] = &[UnitRef::Holder, UnitRef::Foe, UnitRef::Target];

const NOTHING: Scope = Scope {
    units: OWN,
    distance: false,
    triangle: false,
    dealt: false,
    chart: false,
    formulas: false,
    params: Params::None,
    rolls: false,
    opposed: false,
    dice_values: false,
    activated: true,
    moved: false,
};

/// What `place` holds.
pub fn scope(place: Place) -> Scope {
    match place {
        Place::Formula => Scope {
            units: FORMULA_UNITS,
            distance: true,
            triangle: true,
            formulas: true,
            rolls: true,
            opposed: true,
            dice_values: true,
            moved: true,
            ..NOTHING
        },
        Place::Standing => Scope { params: Params::Tag, activated: false, ..NOTHING },
        Place::Strike => Scope { units: STRIKE, distance: true, triangle: true, params: Params::Tag, moved: true, ..NOTHING },
        Place::Trigger(event) => match event_spec(event).map(|s| s.fires) {
            Some(Fires::Exchange) => Scope {
                units: STRIKE,
                distance: true,
                triangle: true,
                dealt: matches!(event, Event::Hit | Event::Crit),
                params: Params::Tag,
                moved: true,
                ..NOTHING
            },
            _ => match event {
                // The event has another unit: the one attacked, the one that routed the holder.
                // A strike's result on the charts, after the exchange.
                Event::Chart => Scope {
                    units: OWN_AND_FOE,
                    distance: true,
                    chart: true,
                    params: Params::Tag,
                    rolls: true,
                    dice_values: true,
                    ..NOTHING
                },
                Event::AfterAttack | Event::Routed => {
                    Scope { units: OWN_AND_FOE, distance: true, params: Params::Tag, rolls: true, dice_values: true, ..NOTHING }
                }
                _ => Scope { params: Params::Tag, rolls: true, dice_values: true, ..NOTHING },
            },
        },
        Place::Reach => Scope { params: Params::Tag, ..NOTHING },
        Place::Requires { unit } => {
            Scope { units: if unit { OWN_AND_TARGET } else { OWN }, distance: true, params: Params::Tag, ..NOTHING }
        }
        Place::Action { unit } => Scope {
            units: if unit { OWN_AND_TARGET } else { OWN },
            distance: true,
            params: Params::Tag,
            rolls: true,
            dice_values: true,
            ..NOTHING
        },
        Place::Use | Place::Clear | Place::Resource => Scope { rolls: true, dice_values: true, ..NOTHING },
        Place::Step => Scope { params: Params::Step, ..NOTHING },
    }
}

impl Place {
    /// The place of an action's requirements for an action targeting `target`.
    pub fn requires(target: ActionTarget) -> Place {
        Place::Requires { unit: targets_unit(target) }
    }

    /// The place of an action's body for an action targeting `target`.
    pub fn action(target: ActionTarget) -> Place {
        Place::Action { unit: targets_unit(target) }
    }

    /// "a combat formula", "`on hit`"... for diagnostics.
    pub fn describe(self) -> String {
        match self {
            Place::Formula => "a combat formula".into(),
            Place::Standing => "a standing modifier (the unit as it is built)".into(),
            Place::Strike => "a strike's condition (`when`) or a reaction".into(),
            Place::Trigger(e) => format!("`on {}`", event_spec(e).map_or("?", |s| s.name)),
            Place::Reach => "an action's reach (`within`)".into(),
            Place::Requires { unit: true } => "an action's requirement".into(),
            Place::Requires { unit: false } => "the requirement of an action on a tile".into(),
            Place::Action { unit: true } => "an action".into(),
            Place::Action { unit: false } => "an action on a tile".into(),
            Place::Use => "a consumable's `use`".into(),
            Place::Clear => "a status's `clears when`".into(),
            Place::Resource => "a resource's value".into(),
            Place::Step => "`step_cost`, `step_allowed`, `respond`, `interrupt`, `opportunity` or `engaged`".into(),
        }
    }
}

fn targets_unit(target: ActionTarget) -> bool {
    matches!(
        target,
        ActionTarget::Ally
            | ActionTarget::Enemy
            | ActionTarget::Enemies
            | ActionTarget::Unit
            | ActionTarget::SelfOnly
            | ActionTarget::SelfOrAlly
    )
}

/// Every place, battle events included, in a fixed order.
pub fn places() -> Vec<Place> {
    let mut out = vec![Place::Formula, Place::Standing, Place::Strike];
    out.extend(Event::ALL.iter().map(|(_, e)| Place::Trigger(*e)));
    out.extend([
        Place::Reach,
        Place::Requires { unit: true },
        Place::Requires { unit: false },
        Place::Action { unit: true },
        Place::Action { unit: false },
        Place::Use,
        Place::Clear,
        Place::Resource,
        Place::Step,
    ]);
    out
}

/// The kinds of expression ([`Expr`]'s variants, a roll split by what it rolls).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ExprKind {
    Const,
    Unit,
    Param,
    Formula,
    Triangle,
    Distance,
    Cover,
    Dealt,
    Chart,
    Attribute,
    AttributeOfParam,
    Weapon,
    Accessory,
    Promoted,
    TerrainDefense,
    /// `x.figures`, `x.figure_hp`.
    Figures,
    Activated,
    Moved,
    AmountOfParam,
    Unary,
    Binary,
    Lookup,
    /// `roll(NAME)`: the striker's (or the event's) draw of a named die.
    Roll,
    /// `roll(NAME, defender)`: the struck unit's own draw.
    RollOpposed,
    /// `roll(2d6)`.
    RollFresh,
    /// `roll(x.absorption)`.
    RollValue,
    Call,
    Has,
    HasParam,
    If,
}

/// Every kind, in [`ExprKind`]'s order.
pub const EXPR_KINDS: &[ExprKind] = &[
    ExprKind::Const,
    ExprKind::Unit,
    ExprKind::Param,
    ExprKind::Formula,
    ExprKind::Triangle,
    ExprKind::Distance,
    ExprKind::Cover,
    ExprKind::Dealt,
    ExprKind::Chart,
    ExprKind::Attribute,
    ExprKind::AttributeOfParam,
    ExprKind::Weapon,
    ExprKind::Accessory,
    ExprKind::Promoted,
    ExprKind::TerrainDefense,
    ExprKind::Figures,
    ExprKind::Activated,
    ExprKind::Moved,
    ExprKind::AmountOfParam,
    ExprKind::Unary,
    ExprKind::Binary,
    ExprKind::Lookup,
    ExprKind::Roll,
    ExprKind::RollOpposed,
    ExprKind::RollFresh,
    ExprKind::RollValue,
    ExprKind::Call,
    ExprKind::Has,
    ExprKind::HasParam,
    ExprKind::If,
];

impl Expr {
    /// Its kind. Exhaustive: a new kind of expression does not compile until it is classed
    /// here, and then [`allows`] and the conformance test must place it.
    pub fn kind(&self) -> ExprKind {
        match self {
            Expr::Const(_) => ExprKind::Const,
            Expr::Unit(_) => ExprKind::Unit,
            Expr::Param(_) => ExprKind::Param,
            Expr::Formula(_) => ExprKind::Formula,
            Expr::Triangle => ExprKind::Triangle,
            Expr::Distance => ExprKind::Distance,
            Expr::Cover => ExprKind::Cover,
            Expr::Dealt => ExprKind::Dealt,
            Expr::Chart => ExprKind::Chart,
            Expr::Attribute { .. } => ExprKind::Attribute,
            Expr::AttributeOfParam { .. } => ExprKind::AttributeOfParam,
            Expr::Weapon { .. } => ExprKind::Weapon,
            Expr::Accessory { .. } => ExprKind::Accessory,
            Expr::Promoted(_) => ExprKind::Promoted,
            Expr::TerrainDefense(_) => ExprKind::TerrainDefense,
            Expr::Figures(_) | Expr::FigureHp(_) => ExprKind::Figures,
            Expr::Activated(_) => ExprKind::Activated,
            Expr::Moved(_) => ExprKind::Moved,
            Expr::AmountOfParam(_) => ExprKind::AmountOfParam,
            Expr::Unary { .. } => ExprKind::Unary,
            Expr::Binary { .. } => ExprKind::Binary,
            Expr::Lookup { .. } => ExprKind::Lookup,
            Expr::Roll { target: false, .. } => ExprKind::Roll,
            Expr::Roll { target: true, .. } => ExprKind::RollOpposed,
            Expr::RollFresh { .. } => ExprKind::RollFresh,
            Expr::RollValue { .. } => ExprKind::RollValue,
            Expr::Call { .. } => ExprKind::Call,
            Expr::Has { .. } => ExprKind::Has,
            Expr::HasParam { .. } => ExprKind::HasParam,
            Expr::If { .. } => ExprKind::If,
        }
    }
}

/// Whether an expression of `kind` may be written in `place` (its parts are checked on their own).
pub fn allows(place: Place, kind: ExprKind) -> bool {
    let s = scope(place);
    match kind {
        ExprKind::Const
        | ExprKind::Unit
        | ExprKind::Attribute
        | ExprKind::Weapon
        | ExprKind::Accessory
        | ExprKind::Promoted
        | ExprKind::TerrainDefense
        | ExprKind::Has
        | ExprKind::Unary
        | ExprKind::Binary
        | ExprKind::Lookup
        | ExprKind::Call
        | ExprKind::If => true,
        ExprKind::Param => s.params != Params::None,
        ExprKind::AttributeOfParam | ExprKind::AmountOfParam | ExprKind::HasParam => s.params == Params::Tag,
        ExprKind::Formula => s.formulas,
        ExprKind::Triangle => s.triangle,
        ExprKind::Distance => s.distance,
        ExprKind::Cover => s.moved,
        ExprKind::Dealt => s.dealt,
        ExprKind::Chart => s.chart,
        ExprKind::Activated => s.activated,
        // A unit's figures are counted on its hit points: not of a unit being built.
        ExprKind::Figures => s.activated,
        ExprKind::Moved => s.moved,
        ExprKind::Roll | ExprKind::RollFresh => s.rolls,
        ExprKind::RollOpposed => s.opposed,
        ExprKind::RollValue => s.dice_values,
    }
}

/// Every accepted (kind, place) pair.
pub fn accepted_exprs() -> Vec<(ExprKind, Place)> {
    places().into_iter().flat_map(|p| EXPR_KINDS.iter().filter(move |k| allows(p, **k)).map(move |k| (*k, p))).collect()
}

/// The places where `kind` may be written, in words for a help line: grouped (every action
/// place as "actions", the exchange's events as "the exchange's triggers"...), or "everywhere
/// but ..." where that is shorter.
pub fn where_allowed(kind: ExprKind) -> Vec<String> {
    let (yes, no): (Vec<Place>, Vec<Place>) = places().into_iter().partition(|p| allows(*p, kind));
    let (yes, no) = (groups(&yes), groups(&no));
    if !no.is_empty() && no.len() < yes.len() {
        return vec![format!("every place but {}", no.join(" and "))];
    }
    yes
}

/// `places` in words, related places as one.
fn groups(places: &[Place]) -> Vec<String> {
    let has = |p: Place| places.contains(&p);
    let mut out: Vec<String> = Vec::new();
    let mut taken: Vec<Place> = Vec::new();
    let group = |out: &mut Vec<String>, taken: &mut Vec<Place>, members: Vec<Place>, name: &str| {
        if !members.is_empty() && members.iter().all(|p| has(*p)) && members.iter().any(|p| !taken.contains(p)) {
            out.push(name.to_string());
            taken.extend(members);
        }
    };
    let exchange: Vec<Place> = Event::ALL
        .iter()
        .filter(|(_, e)| event_spec(*e).is_some_and(|s| s.fires == Fires::Exchange))
        .map(|(_, e)| Place::Trigger(*e))
        .collect();
    let battle: Vec<Place> = Event::ALL
        .iter()
        .filter(|(_, e)| event_spec(*e).is_some_and(|s| s.fires == Fires::Battle))
        .map(|(_, e)| Place::Trigger(*e))
        .collect();
    let actions = vec![
        Place::Reach,
        Place::Requires { unit: true },
        Place::Requires { unit: false },
        Place::Action { unit: true },
        Place::Action { unit: false },
    ];
    let requires_and_body = vec![
        Place::Requires { unit: true },
        Place::Requires { unit: false },
        Place::Action { unit: true },
        Place::Action { unit: false },
    ];
    group(&mut out, &mut taken, vec![Place::Formula], "combat formulas");
    group(&mut out, &mut taken, vec![Place::Standing], "standing modifiers");
    group(&mut out, &mut taken, vec![Place::Strike], "a `when` of a tag or status, and reactions");
    group(&mut out, &mut taken, exchange.clone(), "the exchange's triggers (`on attacked`, `on hit`, `on crit`, `on miss`)");
    group(&mut out, &mut taken, battle.clone(), "the battle's events (`on activated`, `on end_of_turn`...)");
    group(&mut out, &mut taken, actions, "actions");
    group(&mut out, &mut taken, requires_and_body, "an action's requirements and body");
    group(&mut out, &mut taken, vec![Place::Action { unit: true }, Place::Action { unit: false }], "an action's body");
    for p in self::places() {
        if has(p) && !taken.contains(&p) {
            out.push(p.describe());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_is_listed_once_and_allowed_somewhere() {
        for k in EXPR_KINDS {
            assert_eq!(EXPR_KINDS.iter().filter(|x| *x == k).count(), 1, "{k:?}");
            assert!(places().into_iter().any(|p| allows(p, *k)), "{k:?} is allowed nowhere");
        }
        assert!(allows(Place::Trigger(Event::AfterAttack), ExprKind::Distance));
        assert!(!allows(Place::Trigger(Event::Activated), ExprKind::Distance));
        assert!(!allows(Place::Standing, ExprKind::Activated));
        assert!(allows(Place::Trigger(Event::Hit), ExprKind::Dealt));
        assert!(!allows(Place::Strike, ExprKind::Dealt));
        assert_eq!(where_allowed(ExprKind::Activated), vec!["every place but standing modifiers".to_string()]);
        assert_eq!(where_allowed(ExprKind::Dealt), vec!["`on hit`".to_string(), "`on crit`".to_string()]);
    }
}

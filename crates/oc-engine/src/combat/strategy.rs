//! How an exchange is worked out. The reference is the plain way: every joint value of a
//! strike's dice enumerated, every state walked by the general loop, every formula evaluated
//! whole ([`Strategy::REFERENCE`]). Each fast path of [`Strategy::FAST`] gives the same bits,
//! and a test holds each to the reference on every built-in matchup (`testing::agree_with`).

/// The ways of working an exchange out that may be switched on, each one a fast path that
/// changes no result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Strategy {
    /// How many joint dice values a strike may have before its outcomes are worked out from
    /// independent parts (`combat::outcomes`); `u64::MAX`: never.
    pub factor_above: u64,
    /// Exchanges whose states differ only in hit points walked on those alone (`combat::plain`).
    pub plain_walks: bool,
    /// A strike's outcomes looked up by what they read, where they read only their dice and
    /// some formulas (`Ir::outcome_inputs`).
    pub outcome_table: bool,
    /// Formulas reading both units staged for their striker (`Ir::stage`, `Unit::staged`).
    pub staging: bool,
    /// Each matchup's plain exchange forecast, kept from its second forecast on and copied when
    /// asked again (`combat::plan`).
    pub plans: bool,
    /// What a forecast's strikes come to as it begins, kept by their two units for the
    /// forecasts after it on the same thread (`combat::memo::Pairs`): a matchup's counter is
    /// its mirror's attack.
    pub pairs: bool,
    /// A settled strike's joint values (`combat::reroll`) worked out once for each value of the
    /// dice its settling reads at that strike (`Exchange::read_dice`), replayed for the others.
    pub settle_by_reads: bool,
    /// With `settle_by_reads`: a die the settling reads only by comparing it (`Ir::summed_cuts`)
    /// read by its outcome class, the values of a class sharing what is worked out.
    pub settle_by_classes: bool,
    /// Where a settling's sums are exact: each value (or class) of the dice it reads visited
    /// once, weighed by the summed weights of the joint values that show it, not every joint
    /// value in turn.
    pub settle_summed: bool,
    /// A strike's outcomes whose triggers read nothing an outcome changes but which of them
    /// fire led to their states by their hit points and those triggers, each state made once
    /// (the general walk, `combat::play`).
    pub blind_triggers: bool,
    /// A strike's parts that read no hit points nor resources (`Ir::valued_inputs`), its
    /// outcomes' key, worked out once an exchange for each striker and pair of units, not at
    /// every state (`combat::outcomes`).
    pub kept_parts: bool,
    /// A strike's outcomes at each state kept beyond the exchange for the exchanges of the same
    /// two loadouts at other hit points (`combat::across`; the AIs' endings).
    pub across: bool,
    /// The general walk's strikes from a state by runs of outcomes with one effect, worked out
    /// once for each list of outcomes and hit points (`combat::runs`), not outcome by outcome.
    pub effect_runs: bool,
    /// A seeded exchange's formulas that read no die and nothing its state holds (`Ir::varying`)
    /// kept from strike to strike of one striker on the same two units with their own
    /// attributes (`Exchange::resolve_all`), not worked out again at each.
    pub steady_formulas: bool,
    /// A flag whose formula reads nothing an exchange's state holds (`Ir::state_formulas`),
    /// where no `when` changes either unit, worked out on the units' own attributes, no strike
    /// attributes made (`combat::phase`).
    pub own_flags: bool,
    /// What the units' `when`s make of a strike's attributes kept in the exchange by striker,
    /// units, hit points and resources (`combat::attrs`), not judged again at one state.
    pub kept_whens: bool,
    /// An exchange's verdict on the faces its strikes may walk (`Exchange::checked`) kept for
    /// the exchanges of the same two loadouts at other hit points, where reaching it read none.
    pub kept_checks: bool,
    /// With `staging`: a strike's outcome inputs (`Ir::outcome_inputs`) read from their
    /// striker's list of them (`Unit::inputs`: the value of each that reads the striker alone,
    /// the staged rest of each that reads both units), not each asked of its formula.
    pub staged_inputs: bool,
}

impl Strategy {
    /// Every fast path on: what [`crate::Engine::new`] builds.
    pub const FAST: Strategy = Strategy {
        factor_above: super::outcomes::FACTOR_ABOVE,
        plain_walks: true,
        outcome_table: true,
        staging: true,
        plans: true,
        pairs: true,
        settle_by_reads: true,
        settle_by_classes: true,
        settle_summed: true,
        blind_triggers: true,
        kept_parts: true,
        across: true,
        effect_runs: true,
        steady_formulas: true,
        own_flags: true,
        kept_whens: true,
        kept_checks: true,
        staged_inputs: true,
    };

    /// The plain way, every fast path off: the semantics the others are held to.
    pub const REFERENCE: Strategy = Strategy {
        factor_above: u64::MAX,
        plain_walks: false,
        outcome_table: false,
        staging: false,
        plans: false,
        pairs: false,
        settle_by_reads: false,
        settle_by_classes: false,
        settle_summed: false,
        blind_triggers: false,
        kept_parts: false,
        across: false,
        effect_runs: false,
        steady_formulas: false,
        own_flags: false,
        kept_whens: false,
        kept_checks: false,
        staged_inputs: false,
    };
}

impl Default for Strategy {
    fn default() -> Self {
        Strategy::FAST
    }
}
